import { escapeHtml } from '../html/page.ts';
import type { OpenApiDocument } from './document.ts';
import type { Schema } from './json-schema.ts';

/** Escaped text with line-break opportunities after `/` and `.` (paths, media types, `a.b` field names), so a narrow column breaks there and never inside a word. */
export function breakable(text: string): string {
  return escapeHtml(text).replace(/([/.])(?=\S)/g, '$1<wbr>');
}

/** The small Markdown the document's descriptions use: paragraphs, `- ` lists, `code`, **bold**. */
export function markdown(text: string): string {
  const inline = (s: string) =>
    escapeHtml(s)
      // A short code is one word, kept on one line; a long one (a URL) may break, or it would widen a phone's page.
      .replace(/`([^`]+)`/g, (_m, code: string) => (/\s/.test(code) || code.length > 32 ? `<code>${code}</code>` : `<code class="nw">${code}</code>`))
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  if (text.trim() === '') return '';
  return text
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split('\n');
      if (lines.every((l) => l.startsWith('- '))) return `<ul>${lines.map((l) => `<li>${inline(l.slice(2))}</li>`).join('')}</ul>`;
      return `<p>${inline(block)}</p>`;
    })
    .join('');
}

/** The component a `$ref` points to, with its name. */
export function resolve(doc: OpenApiDocument, schema: Schema | undefined): { name?: string; schema: Schema } {
  const target = typeof schema?.$ref === 'string' ? schema.$ref : undefined;
  if (!target) return { schema: schema ?? {} };
  const name = target.split('/').pop() as string;
  const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
  return { name, schema: schemas[name] ?? {} };
}

/** A one-line type of a schema: `integer`, `string (email)`, `one of: a, b`, `array of QrEntry`, `string or null`. */
export function typeText(doc: OpenApiDocument, raw: Schema | undefined): string {
  const { name, schema } = resolve(doc, raw);
  if (name && schema.type === 'object') return name;
  if ('const' in schema) return `always ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map((s) => typeText(doc, s)).join(' or ');
  if (schema.type === 'array') return `array of ${typeText(doc, schema.items as Schema)}`;
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    return `map of ${typeText(doc, schema.additionalProperties as Schema)}`;
  }
  if (typeof schema.type === 'string') return schema.format ? `${schema.type} (${String(schema.format)})` : schema.type;
  return 'any';
}

const RULES: readonly [string, string][] = [
  ['minLength', 'at least {} characters'],
  ['maxLength', 'at most {} characters'],
  ['minimum', '≥ {}'],
  ['maximum', '≤ {}'],
  ['minItems', 'at least {} items'],
  ['maxItems', 'at most {} items'],
  ['pattern', 'matches {}'],
];

/** The constraints and default of a schema in words. */
export function rulesText(raw: Schema): string {
  const parts = RULES.filter(([k]) => k in raw).map(([k, words]) => words.replace('{}', String(raw[k])));
  if ('default' in raw) parts.push(`default ${JSON.stringify(raw.default)}`);
  if (typeof raw.description === 'string') parts.push(raw.description);
  return parts.join('; ');
}

/** One row of a field table. */
export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  rules: string;
}

/** The fields of an object schema as rows, nested objects flattened to `a.b` (a few levels deep). */
export function fieldRows(doc: OpenApiDocument, raw: Schema | undefined, prefix = '', depth = 0): FieldRow[] {
  const { schema } = resolve(doc, raw);
  const props = schema.properties as Record<string, Schema> | undefined;
  if (!props || depth > 3) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).flatMap(([key, prop]) => {
    const name = `${prefix}${key}`;
    const row = { name, type: typeText(doc, prop), required: required.has(key), rules: rulesText(resolve(doc, prop).schema) };
    const inner = resolve(doc, prop).schema;
    const items = inner.type === 'array' ? (inner.items as Schema) : inner;
    return [row, ...fieldRows(doc, items, `${name}${inner.type === 'array' ? '[]' : ''}.`, depth + 1)];
  });
}

/** An HTML table of fields. */
export function fieldTable(rows: readonly FieldRow[]): string {
  if (rows.length === 0) return '';
  const body = rows
    .map((r) => `<tr><td><code>${breakable(r.name)}</code>${r.required ? ' <span class="req">required</span>' : ''}</td><td>${escapeHtml(r.type)}</td><td>${escapeHtml(r.rules)}</td></tr>`)
    .join('');
  return `<div class="t"><table><thead><tr><th>Field</th><th>Type</th><th>Rules</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command for an operation, with example values for path parameters, required query parameters and the body. */
export function curlExample(doc: OpenApiDocument, path: string, method: string, op: Record<string, unknown>): string {
  const base = ((doc.servers as { url: string }[] | undefined)?.[0]?.url ?? '').replace(/\/$/, '');
  const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean; example?: unknown; schema?: Schema }[];
  let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => (/id$/i.test(name) ? '1' : name === 'type' ? 'links' : `my-${name}`));
  const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.example ?? ''))}`);
  if (query.length > 0) url += `?${query.join('&')}`;
  const lines = [`curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} ${quote(base + url)}`];
  if (Array.isArray(op.security) && op.security.length > 0) lines.push(`-H ${quote('Authorization: Bearer YOUR_API_KEY')}`);
  const content = (op.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)?.content ?? {};
  const [type, media] = Object.entries(content)[0] ?? [];
  if (type && media?.example !== undefined) {
    if (type === 'application/x-www-form-urlencoded') {
      for (const [k, value] of Object.entries(media.example as Record<string, unknown>)) lines.push(`--data-urlencode ${quote(`${k}=${String(value)}`)}`);
    } else {
      lines.push(`-H ${quote(`Content-Type: ${type}`)}`, `-d ${quote(JSON.stringify(media.example))}`);
    }
  }
  return lines.join(' \\\n  ');
}
