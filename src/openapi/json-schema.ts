import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { createSchema, updateSchema } from '../resources/define.ts';
import type { Resource } from '../resources/define.ts';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type Schema = Record<string, unknown>;

type AnySchema = v.GenericSchema | v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>;

// `check` and `transform` actions have no JSON Schema form: they are left out rather than failing
// the document, so a field converts to what its type and plain constraints say.
function convert(schema: AnySchema, typeMode: 'input' | 'output'): Schema {
  const out = toJsonSchema(schema, { target: 'draft-2020-12', typeMode, errorMode: 'ignore' }) as Schema;
  delete out.$schema;
  return out;
}

const isEmpty = (s: unknown) => typeof s === 'object' && s !== null && Object.keys(s).filter((k) => k !== 'default').length === 0;

// A field that narrows to an enum and then transforms it (`booleanField`: 0/1 → false/true) also
// takes the values it becomes: parsing each enum value tells which type that is.
function withOutputType(prop: Schema, field: AnySchema | undefined): Schema {
  if (!field || !Array.isArray(prop.enum)) return prop;
  const types = new Set(prop.enum.map((value) => {
    const parsed = v.safeParse(field, value);
    return parsed.success ? typeof parsed.output : typeof value;
  }));
  const [type] = types;
  if (types.size !== 1 || type === typeof prop.enum[0]) return prop;
  const { default: value, ...rest } = prop;
  return { anyOf: [{ type }, rest], ...(value === undefined ? {} : { default: value }) };
}

/**
 * The JSON Schema of what a client sends for `schema`: its input type. A field whose input is
 * `unknown` and narrowed after a transform (the analytics form fields: "1", 1 and true all mean 1)
 * is described by the values it ends up as.
 */
export function inputSchema(schema: AnySchema): Schema {
  const input = convert(schema, 'input');
  const props = input.properties as Record<string, Schema> | undefined;
  if (!props) return input;
  const output = convert(schema, 'output').properties as Record<string, Schema> | undefined;
  for (const [name, prop] of Object.entries(props)) {
    const narrowed = output?.[name];
    const entry = (schema as { entries?: Record<string, AnySchema> }).entries?.[name];
    if (isEmpty(prop) && narrowed && !isEmpty(narrowed)) props[name] = withOutputType({ ...narrowed, ...prop }, entry);
  }
  return input;
}

/** The JSON Schema of a response shape (no transforms there: input and output agree). */
export function shapeSchema(schema: AnySchema): Schema {
  return convert(schema, 'output');
}

/**
 * The request body of a row's create or update: converted from the row's derived Valibot schema,
 * with `required` taken from the row (a field may default to a value that its own rule then refuses,
 * such as an absent campaign name, so the converter alone would call it optional).
 */
export function bodySchema(row: Resource, kind: 'create' | 'update'): Schema {
  const schema = inputSchema(kind === 'create' ? createSchema(row) : updateSchema(row));
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = [...new Set([...((schema.required as string[] | undefined) ?? []), ...(row[kind]?.required ?? [])])];
  for (const name of required) delete props[name]?.default;
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  return schema;
}
