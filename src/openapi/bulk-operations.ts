import { links } from '../resources/links.ts';
import { int, str } from '../resources/shapes.ts';
import { BULK_MAX_ITEMS, BULK_PATHS } from '../routes/link-api/bulk.ts';
import { NOT_STORED } from '../routes/create-many.ts';
import type { Components } from './components.ts';
import { linkSuccessSchema, ref } from './components.ts';
import { bodySchema } from './json-schema.ts';
import type { Schema } from './json-schema.ts';
import { titleOf, updateExample } from './link-operations.ts';
import type { OpSpec } from './operation.ts';

const list = (items: Schema, description: string): Schema => ({ type: 'array', minItems: 1, maxItems: BULK_MAX_ITEMS, items, description });
const atomic: Schema = { type: 'boolean', default: false, description: `When true, nothing is stored if any item fails: the answer is a 400 naming the failed items, the valid ones answering "${NOT_STORED}"` };

/** `{<key>: [items], atomic}`, or the bare array of items. */
function envelope(key: string, items: Schema, description: string): Schema {
  return { anyOf: [{ type: 'object', required: [key], properties: { [key]: list(items, description), atomic } }, list(items, `${description} (a bare array: not atomic).`)] };
}

/** `{error: 0, succeeded, failed, results}`: each item's answer in order, its single request's or `{error: 1, message}`. */
function resultsSchema(item: Schema): Schema {
  const properties = {
    error: { const: 0 },
    succeeded: { type: 'integer', description: 'Items that succeeded.' },
    failed: { type: 'integer', description: 'Items that failed.' },
    results: { type: 'array', items: { anyOf: [item, ref('LinkError')] }, description: 'One answer per item, in the order sent.' },
  };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

const ATOMIC_NOTE = 'Every item runs the steps of its single request, one transaction for all of them; an answer says per item what it came to.';

/** The bulk operations of the link API (an extension): create, update and delete up to BULK_MAX_ITEMS links per request. */
export function bulkOperations(c: Components): OpSpec[] {
  const { tag } = titleOf(links);
  const base = { tag, dialect: 'link' as const, findsRecord: false };
  const created = ref('LinkCreated');
  const updated = ref('LinkUpdated');
  c.schema('LinkCreated', () => linkSuccessSchema(links.shapes!.created!));
  c.schema('LinkUpdated', () => linkSuccessSchema(links.shapes!.updated!));
  const create = c.body('LinkCreate', () => bodySchema(links, 'create')).schema;
  const update = c.schema('LinkBulkUpdateItem', () => {
    const single = bodySchema(links, 'update');
    const id: Schema = { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[1-9][0-9]*$' }], description: 'The link to update.' };
    return { ...single, properties: { id, ...((single.properties as Record<string, Schema> | undefined) ?? {}) }, required: ['id', ...((single.required as string[] | undefined) ?? [])] };
  });
  const deleted = c.schema('LinkBulkDeleted', () => linkSuccessSchema({ id: int, message: str }));
  const failedAtomic = c.schema('BulkAtomicFailure', () => ({
    type: 'object',
    properties: {
      error: { const: 1 },
      message: { type: 'string' },
      failed: { type: 'array', items: { type: 'integer' }, description: 'Positions (from 0) of the items that failed.' },
      results: { type: 'array', items: ref('LinkError'), description: `Each item's error; the valid ones: "${NOT_STORED}"` },
    },
    required: ['error', 'message', 'failed', 'results'],
    additionalProperties: false,
  }));
  const atomicFailure = { '400': { description: 'Invalid input (the envelope), or, with `atomic`, an item failed: nothing was stored.', schema: { anyOf: [ref('LinkError'), failedAtomic] } } };
  return [
    {
      ...base,
      operationId: 'bulkCreateLinks',
      method: 'post',
      path: BULK_PATHS.create,
      summary: `Create up to ${BULK_MAX_ITEMS} short links`,
      description:
        `${ATOMIC_NOTE} Each item is the body of \`POST /api/url/add\` and answers what it would: \`{error: 0, id, shorturl}\` (an equal link already stored, or earlier in the batch, is answered again) or \`{error: 1, message}\` with its message. ` +
        `Duplicates inside a batch come out as sequential creates would (a second custom alias is taken). Without \`atomic\`, valid items are stored even when others fail. The body may be up to BULK_BODY_LIMIT; the request counts once against RATE_LIMIT.`,
      body: { schema: envelope('urls', create, 'The links, each a `POST /api/url/add` body'), required: true, example: { urls: [links.example(1), { url: 'https://example.com/page/2' }], atomic: false } },
      responses: { '200': { description: 'Each item\'s answer, in order.', schema: resultsSchema(created) }, ...atomicFailure },
    },
    {
      ...base,
      operationId: 'bulkUpdateLinks',
      method: 'post',
      path: BULK_PATHS.update,
      summary: `Update up to ${BULK_MAX_ITEMS} short links`,
      description: `${ATOMIC_NOTE} Each item is \`id\` and the body of \`PUT /api/url/{id}/update\`, with its rules (fields it resets when left out included), in order: a later item sees what an earlier one changed. Another user's id answers as a missing one.`,
      body: { schema: envelope('urls', update, 'The updates, each an `id` with a `PUT /api/url/{id}/update` body'), required: true, example: { urls: [{ id: 1, ...updateExample(links, 2) }] } },
      responses: { '200': { description: 'Each item\'s answer, in order.', schema: resultsSchema(updated) }, ...atomicFailure },
    },
    {
      ...base,
      operationId: 'bulkDeleteLinks',
      method: 'post',
      path: BULK_PATHS.remove,
      summary: `Delete up to ${BULK_MAX_ITEMS} short links`,
      description: `${ATOMIC_NOTE} Each id is deleted as \`DELETE /api/url/{id}/delete\` would; another user's id answers as a missing one.`,
      body: { schema: envelope('ids', { anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'The ids of the links to delete'), required: true, example: { ids: [1, 2] } },
      responses: { '200': { description: 'Each item\'s answer, in order.', schema: resultsSchema(deleted) }, ...atomicFailure },
    },
  ];
}
