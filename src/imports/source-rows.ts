import { csvRecords, guessDelimiter, ImportFileError } from './csv.ts';
import { columnName } from './formats.ts';
import type { ImportField, ImportFormat } from './formats.ts';
import { jsonItems } from './json-items.ts';
import { importRowOf } from './row-values.ts';
import type { SourceRow } from './row-values.ts';

/** The pieces of a text with its first piece read already, so the kind and the delimiter can be told from it. */
async function peeked(pieces: AsyncIterable<string>): Promise<{ head: string; all: AsyncIterable<string> }> {
  const it = pieces[Symbol.asyncIterator]();
  let head = '';
  const read: string[] = [];
  // Enough of the start to hold the header line (pieces may be small).
  while (!head.includes('\n') && head.length < 64 * 1024) {
    const next = await it.next();
    if (next.done) break;
    read.push(next.value);
    head += next.value;
  }
  async function* all(): AsyncGenerator<string> {
    yield* read;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { head, all: all() };
}

/** Which field each column of a header row holds (null: none kept), by the format's names; throws when no column is the url. */
function headerFields(format: ImportFormat, header: readonly string[]): (ImportField | null)[] {
  const byName = new Map<string, ImportField>();
  for (const [field, names] of Object.entries(format.columns) as [ImportField, readonly string[]][]) {
    // A name listed for two fields goes to the first; within a field, earlier names win (below).
    for (const name of names) if (!byName.has(name)) byName.set(name, field);
  }
  const fields = header.map((h) => byName.get(columnName(h)) ?? null);
  // Two columns for one field (a "link" and a "short url"): the one listed first for the field wins.
  for (const field of new Set(fields)) {
    if (field === null) continue;
    const names = format.columns[field]!;
    const at = fields.map((f, i) => (f === field ? i : -1)).filter((i) => i >= 0);
    if (at.length < 2) continue;
    const best = at.reduce((a, b) => (names.indexOf(columnName(header[b]!)) < names.indexOf(columnName(header[a]!)) ? b : a));
    for (const i of at) if (i !== best) fields[i] = null;
  }
  if (!fields.includes('url')) {
    const expected = (format.columns.url ?? []).map((n) => JSON.stringify(n)).join(', ');
    const found = header.slice(0, 12).map((h) => JSON.stringify(h)).join(', ');
    throw new ImportFileError(`This is not ${format.label}: no column holds the URL (expected one of ${expected}; the header has ${found}).`);
  }
  return fields;
}

/** The cells of a record by field. */
function cellsOf(fields: readonly (ImportField | null)[], cells: readonly string[]): Partial<Record<ImportField, string>> {
  const out: Partial<Record<ImportField, string>> = {};
  fields.forEach((f, i) => {
    if (f !== null && cells[i] !== undefined) out[f] = cells[i];
  });
  return out;
}

/** A JSON item as a record of column names: nested objects flattened (`domain.fullName` → domainfullname), lists joined by `|`. */
function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value === null || value === undefined) return out;
  if (Array.isArray(value)) {
    const parts = value.map((v) => (v && typeof v === 'object' ? String((v as { name?: unknown }).name ?? '') : String(v))).filter((v) => v !== '');
    out.set(prefix, parts.join('|'));
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, columnName(prefix + k), out);
  } else {
    out.set(prefix, String(value));
  }
  return out;
}

async function* csvRows(format: ImportFormat, head: string, pieces: AsyncIterable<string>, now: number): AsyncGenerator<SourceRow> {
  let fields: (ImportField | null)[] | null = null;
  let n = 0;
  for await (const record of csvRecords(pieces, guessDelimiter(head.split('\n')[0] ?? ''))) {
    if (fields === null) {
      const named = record.cells.some((c) => Object.values(format.columns).some((names) => names.includes(columnName(c))));
      // A table dumped without its header (YOURLS): the first record is already a row.
      if (!named && format.headerless) fields = [...format.headerless];
      else {
        fields = headerFields(format, record.cells);
        continue;
      }
    }
    yield importRowOf(++n, cellsOf(fields, record.cells), now, format.tagSeparator);
  }
  if (fields === null) throw new ImportFileError(`The file is empty: expected ${format.label}.`);
}

async function* jsonRows(format: ImportFormat, pieces: AsyncIterable<string>, now: number): AsyncGenerator<SourceRow> {
  for await (const item of jsonItems(pieces)) {
    if (!item.value || typeof item.value !== 'object' || Array.isArray(item.value)) {
      yield { n: item.n, problem: 'The item is not a JSON object.' };
      continue;
    }
    const flat = flatten(item.value);
    const cells: Partial<Record<ImportField, string>> = {};
    for (const [field, names] of Object.entries(format.columns) as [ImportField, readonly string[]][]) {
      const name = names.find((nm) => flat.has(nm));
      if (name !== undefined) cells[field] = flat.get(name);
    }
    yield importRowOf(item.n, cells, now, format.tagSeparator);
  }
}

/**
 * The rows of an import file, one at a time as its pieces arrive: each a link to create, or the
 * reason it cannot be one (a row's problem, reported for that row). A file that cannot be read at
 * all (not the format, no url column, broken CSV or JSON) throws ImportFileError, at its start
 * where the header tells, or where it breaks.
 */
export async function* sourceRows(format: ImportFormat, pieces: AsyncIterable<string>, now: number): AsyncGenerator<SourceRow> {
  const { head, all } = await peeked(pieces);
  const first = head.replace(/^\ufeff/, '').trimStart()[0];
  if (first === undefined) throw new ImportFileError(`The file is empty: expected ${format.label}.`);
  const json = first === '[' || first === '{';
  if (json && format.kind === 'csv') throw new ImportFileError(`The file is JSON: expected ${format.label}.`);
  if (!json && format.kind === 'json') throw new ImportFileError(`The file is not JSON: expected ${format.label}.`);
  yield* json ? jsonRows(format, all, now) : csvRows(format, head, all, now);
}
