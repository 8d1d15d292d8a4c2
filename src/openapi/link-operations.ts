import * as v from 'valibot';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../http/pagination.ts';
import type { ListShape, Resource } from '../resources/define.ts';
import type { Components } from './components.ts';
import { flatListSchema, linkListSchema, linkSuccessSchema, plainListSchema, ref } from './components.ts';
import { bodySchema, shapeSchema } from './json-schema.ts';
import type { Schema } from './json-schema.ts';
import type { OpSpec, Param } from './operation.ts';
import type { RowShapes } from '../resources/shapes.ts';

/** Tag (plural title) and singular noun of each row in the docs; others fall back to the collection and name. */
const TITLES: Readonly<Record<string, readonly [string, string]>> = {
  user: ['Users (admin)', 'user'],
  link: ['Links', 'short link'],
  qr: ['QR codes', 'QR code'],
  pixel: ['Pixels', 'tracking pixel'],
  campaign: ['Campaigns', 'campaign'],
  channel: ['Channels', 'channel'],
  bio: ['Bio pages', 'bio page'],
  domain: ['Branded domains', 'branded domain'],
  overlay: ['CTA overlays', 'CTA overlay'],
  splash: ['Splash pages', 'splash page'],
  file: ['Files', 'file'],
  website: ['Websites', 'website'],
  key: ['API keys', 'API key'],
  audit: ['Audit log', 'audit entry'],
  webhook: ['Webhooks', 'webhook'],
};

/** The docs tag and singular noun of a row. */
export function titleOf(row: Resource): { tag: string; noun: string } {
  const [tag, noun] = TITLES[row.name] ?? [row.collection.charAt(0).toUpperCase() + row.collection.slice(1), row.name];
  return { tag, noun };
}

/** `qr` → `Qr`: the prefix of a row's schema and operation names. */
export const pascal = (name: string) => name.replace(/(^|[-_ ])(\w)/g, (_m, _s, ch: string) => ch.toUpperCase());

// "QR codes" → "QR codes", "Users (admin)" → "users": the tag as the object of a sentence.
const listNoun = (tag: string) => tag.replace(/ \(.*\)$/, '').split(' ').map((w) => (w === w.toUpperCase() ? w : w.toLowerCase())).join(' ');

// Where a list's entries are, by its shape.
const LIST_PLACES: Readonly<Record<ListShape, (key: string) => string>> = {
  paged: (key) => `Newest first, under \`data.${key}\`.`,
  plain: () => 'One page of them, as a plain array under `data`.',
  flat: (key) => `Newest first, under \`${key}\`, beside the page fields and \`error\` (the number 0): no \`data\`, as the real product answers this list.`,
};

/** The query parameters every link-management list takes. */
export const PAGE_PARAMS: readonly Param[] = [
  { name: 'limit', description: `Results per page (default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} count as ${MAX_LIMIT}; a value that is not a positive integer is the default).`, schema: { type: 'integer', minimum: 1, default: DEFAULT_LIMIT }, lenient: true },
  { name: 'page', description: 'Page requested; a page past the end is empty; a value that is not a positive integer is page 1.', schema: { type: 'integer', minimum: 1, default: 1 }, lenient: true },
];

// List filters that live in a row's `filter` hook, which the table does not describe.
const LIST_FILTERS: Readonly<Record<string, readonly Param[]>> = {
  link: [
    { name: 'order', description: 'Newest first (`date`) or most clicked first (`click`); any other value means `date`.', schema: { type: 'string', enum: ['date', 'click'], default: 'date' }, lenient: true },
    {
      name: 'short',
      description: 'A full short URL (`BASE_URL/<alias>` or a branded domain\'s): answers the single-link response for it instead of a list.',
      schema: { type: 'string' },
      lenient: true,
    },
  ],
  file: [{ name: 'name', description: 'Only files whose name contains this text (case-insensitive).', schema: { type: 'string' }, lenient: true }],
  user: [
    { name: 'email', description: 'Only the user with this email (case-insensitive).', schema: { type: 'string' } },
    { name: 'filter', description: 'Only admins, users of one plan status, or disabled users.', schema: { type: 'string', enum: ['admin', 'free', 'pro', 'disabled'] } },
  ],
};

/** The shapes of a row; throws when the row has routes without shapes, or a response hook whose shape is missing. */
export function shapesOf(row: Resource): RowShapes {
  const shapes = row.shapes;
  if (!shapes) throw new Error(`openapi: row "${row.name}" has routes but no response shapes (its \`shapes\` in the resource table)`);
  for (const hook of ['single', 'created', 'updated'] as const) {
    if (row[hook] && !shapes[hook]) throw new Error(`openapi: row "${row.name}" has a ${hook}() hook but no "${hook}" in its \`shapes\``);
  }
  return shapes;
}

/** The row's example, narrowed to the fields its update takes. */
export function updateExample(row: Resource, n: number): Record<string, unknown> {
  const fields = new Set<string>(row.update?.fields ?? Object.keys(row.fields));
  return Object.fromEntries(Object.entries(row.example(n)).filter(([k]) => fields.has(k)));
}

/** What an update does with the fields its body leaves out. */
function updateNote(row: Resource): string {
  const resets = row.update?.resets ?? [];
  if (resets.length === 0) return 'Fields left out keep their values.';
  const list = resets.map((f) => `\`${f}\``).join(', ');
  return `As the real product, which rebuilds the record from the request: ${list} left out are reset (removed, or their default); the other fields left out keep their values.`;
}

/** The entry schema of a row, registered as `<Name>Entry`. */
export function entryRef(row: Resource, c: Components): Schema {
  return c.schema(`${pascal(row.name)}Entry`, () => shapeSchema(v.strictObject(shapesOf(row).entry)));
}

/** The operations of a link-management (or admin) row: list, get, create, update, delete at the row's paths. */
export function linkRowOperations(row: Resource, c: Components): OpSpec[] {
  const shapes = shapesOf(row);
  const { tag, noun } = titleOf(row);
  const name = pascal(row.name);
  const entry = entryRef(row, c);
  const base = { tag, dialect: 'link' as const, admin: row.api === 'admin' };
  const notFound = { description: row.messages.notFound, schema: ref('LinkError') };
  const { list, get, create, update, remove } = row.paths;
  const ops: OpSpec[] = [];
  const refs = Object.keys(row.references ?? {}).filter((k) => k in row.fields);
  const refNote = refs.length > 0 ? ` Ids in ${refs.map((k) => `\`${k}\``).join(', ')} must name records of your own.` : '';

  if (list) {
    const search: Param[] = row.searchable ? [{ name: 'q', description: `Only records whose ${row.searchable.join(', ')} contain this text (case-insensitive).`, schema: { type: 'string' }, lenient: true }] : [];
    const listed = c.schema(`${name}List`, () => (row.listShape === 'plain' ? plainListSchema(entry) : row.listShape === 'flat' ? flatListSchema(row.listKey, entry) : linkListSchema(row.listKey, entry)));
    const single = LIST_FILTERS[row.name]?.some((p) => p.name === 'short') && get ? ref(`${name}Single`) : null;
    ops.push({
      ...base,
      operationId: `list${name}`,
      method: 'get',
      path: list,
      summary: `List ${listNoun(tag)}`,
      description: LIST_PLACES[row.listShape ?? 'paged'](row.listKey),
      query: [...PAGE_PARAMS, ...search, ...(LIST_FILTERS[row.name] ?? [])],
      responses: {
        '200': { description: single ? 'A page of the list, or with `short` the single-link response.' : 'A page of the list.', schema: single ? { anyOf: [listed, single] } : listed },
        ...(single
          ? {
              '400': { description: 'Invalid short url. Please try again. (`short` is not an http(s) URL with an alias)', schema: ref('LinkError') },
              '403': { description: 'You do not have the permission to access this short url. (`short` names a link of another user)', schema: ref('LinkError') },
              '404': { description: 'Invalid short url. Please try again. (`short` names no link)', schema: ref('LinkError') },
            }
          : {}),
      },
    });
  }
  if (get) {
    const schema = c.schema(`${name}Single`, () => linkSuccessSchema(shapes.single ?? { data: v.strictObject(shapes.entry) }));
    ops.push({ ...base, operationId: `get${name}`, method: 'get', path: get, summary: `Get a ${noun}`, responses: { '200': { description: `The ${noun}.`, schema }, '404': notFound } });
  }
  if (create && row.create) {
    const body = { ...c.body(`${name}Create`, () => bodySchema(row, 'create')), example: row.example(1) };
    const schema = c.schema(`${name}Created`, () => linkSuccessSchema(shapes.created ?? { id: v.pipe(v.number(), v.integer()) }));
    ops.push({ ...base, operationId: `create${name}`, method: 'post', path: create, summary: `Create a ${noun}`, description: refNote.trim() || undefined, body, responses: { '200': { description: `The ${noun} was created.`, schema } } });
  }
  if (update && row.update) {
    const body = { ...c.body(`${name}Update`, () => bodySchema(row, 'update')), example: updateExample(row, 2) };
    const schema = shapes.updated ? c.schema(`${name}Updated`, () => linkSuccessSchema(shapes.updated!)) : ref('Message');
    const description = shapes.updated ? `The ${noun} was updated.` : `"${row.messages.updated}"`;
    ops.push({ ...base, operationId: `update${name}`, method: 'put', path: update, summary: `Update a ${noun}`, description: `${updateNote(row)}${refNote}`, body, responses: { '200': { description, schema }, '404': notFound } });
  }
  if (remove) {
    ops.push({ ...base, operationId: `delete${name}`, method: 'delete', path: remove, summary: `Delete a ${noun}`, responses: { '200': { description: `"${row.messages.deleted}"`, schema: ref('Message') }, '404': notFound } });
  }
  return ops;
}
