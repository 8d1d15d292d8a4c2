import { ApiError } from '../../errors.ts';
import { bodySchema } from '../../openapi/json-schema.ts';
import type { Schema } from '../../openapi/json-schema.ts';
import type { Resource } from '../../resources/define.ts';
import type { StoredRecord } from '../../store/store.ts';
import { field, fields } from '../guard.ts';
import type { Form } from '../guard.ts';

/** How a field of a row is asked for in a form. */
export type InputKind = 'text' | 'textarea' | 'url' | 'color' | 'number' | 'select' | 'checkbox' | 'checks' | 'reference' | 'references';

/** One input of a resource form, derived from the row's schema (through its JSON Schema, as the OpenAPI document reads it). */
export interface Input {
  name: string;
  kind: InputKind;
  required: boolean;
  /** The values a select or a group of checkboxes offers. */
  options?: readonly string[];
  /** The collection a reference field names records of. */
  collection?: string;
  min?: number;
  max?: number;
  maxLength?: number;
  /** What a new record's form starts with (the create default). */
  initial: string | string[];
}

// Texts this long get a box of several lines.
const LONG_TEXT = 500;
const HEX_COLOUR = '^#[0-9A-Fa-f]{6}$';

// Whether a string field's pattern is the URL fields' (it takes a URL and refuses a word).
const isUrlPattern = (pattern: unknown): boolean => {
  if (typeof pattern !== 'string') return false;
  const re = new RegExp(pattern);
  return re.test('https://example.com') && !re.test('example');
};

function kindOf(prop: Schema, reference: { many?: boolean } | undefined): InputKind {
  if (reference) return reference.many ? 'references' : 'reference';
  const items = prop.items as Schema | undefined;
  if (prop.type === 'array' && Array.isArray(items?.enum)) return 'checks';
  if (Array.isArray(prop.enum)) return 'select';
  if (prop.type === 'boolean') return 'checkbox';
  if (prop.type === 'integer' || prop.type === 'number') return 'number';
  if (prop.pattern === HEX_COLOUR) return 'color';
  if (isUrlPattern(prop.pattern)) return 'url';
  if (typeof prop.maxLength === 'number' && prop.maxLength >= LONG_TEXT) return 'textarea';
  return 'text';
}

// A value of the JSON Schema as the form holds it.
function formValue(value: unknown): string | string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'boolean') return value ? 'on' : '';
  return value === undefined || value === null ? '' : String(value);
}

/** The inputs of a row's create or update form, in the row's field order. */
export function inputsOf(row: Resource, kind: 'create' | 'update'): Input[] {
  const schema = bodySchema(row, kind);
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, prop]) => {
    // A reference taken from another request field (a link's `domain`, a host name) is not an id to pick.
    const ref = row.references?.[name]?.from === undefined ? row.references?.[name] : undefined;
    const items = prop.items as Schema | undefined;
    const options = (prop.enum ?? items?.enum) as unknown[] | undefined;
    return {
      name,
      kind: kindOf(prop, ref),
      required: required.has(name),
      ...(options ? { options: options.map(String) } : {}),
      ...(ref ? { collection: ref.collection } : {}),
      ...(typeof prop.minimum === 'number' ? { min: prop.minimum } : {}),
      ...(typeof prop.maximum === 'number' ? { max: prop.maximum } : {}),
      ...(typeof prop.maxLength === 'number' ? { maxLength: prop.maxLength } : {}),
      initial: formValue(prop.default),
    };
  });
}

/** The values a form starts with: a new record's defaults, or a stored record's fields. */
export function valuesOf(inputs: readonly Input[], record?: StoredRecord): Form {
  return Object.fromEntries(inputs.map((i) => [i.name, record ? formValue(record[i.name]) : i.initial]));
}

// An id picked or typed: a number when it is one, else the text (the API's message then names the field).
const idValue = (s: string): number | string => (/^\d{1,15}$/.test(s) ? Number(s) : s);

/**
 * The API's create or update body of a posted form: what a client of the API would send for the
 * same record, so its validation, hooks and messages are the API's own. On create an empty optional
 * box is left out (the row's default applies); on update it is sent empty (it clears the field), but
 * an empty number or reference keeps the stored one. A box that holds no number is sent as text, and
 * the API says what is wrong with it.
 */
export function bodyOf(inputs: readonly Input[], form: Form, kind: 'create' | 'update'): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const i of inputs) {
    if (i.kind === 'checkbox') body[i.name] = field(form, i.name) === 'on';
    else if (i.kind === 'checks') body[i.name] = fields(form, i.name);
    else if (i.kind === 'references') body[i.name] = fields(form, i.name).map(idValue);
    else {
      const text = field(form, i.name);
      if (text === '' && (kind === 'create' ? !i.required : i.kind === 'number' || i.kind === 'reference')) continue;
      if (i.kind === 'number') body[i.name] = /^-?\d{1,15}(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
      else if (i.kind === 'reference') body[i.name] = idValue(text);
      else body[i.name] = text;
    }
  }
  return body;
}

/**
 * The messages of a refused save by input ('form': one for no input): Valibot's issues name their
 * fields; a row's own checks (a taken name, a taken slug) are put beside the field they name.
 */
export function errorsOf(err: ApiError, names: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [path, messages] of Object.entries(err.fields ?? {})) {
    const name = path.split('.')[0] ?? '';
    if (names.includes(name)) errors[name] ??= messages[0] ?? err.message;
  }
  if (Object.keys(errors).length > 0) return errors;
  const named = /^(?:Invalid (\w+)|Missing required parameter: (\w+))/.exec(err.message);
  const name = named?.[1] ?? named?.[2] ?? names.find((n) => new RegExp(`\\b${n}\\b`, 'i').test(err.message));
  return { [name && names.includes(name) ? name : 'form']: err.message };
}
