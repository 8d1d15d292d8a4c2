/**
 * The operations the API reference (../shared/spec/api-reference.md) lists; every other
 * operation of the server is an extension and is marked `x-extension` in the document.
 */
const REFERENCE_OPERATIONS = new Set([
  'get /api/overlay',
  'get /api/qr',
  'get /api/splash',
  'get /api/campaigns',
  'get /api/channels',
  'get /api/channel/:id',
  'get /api/pixels',
  'get /api/domains',
  'get /api/qr/:id',
  'post /api/qr/add',
  'put /api/qr/:id/update',
  'delete /api/qr/:id/delete',
  'get /api/account',
  'put /api/account/update',
  'post /api/campaign/add',
  'post /api/campaign/:campaignid/assign/:linkid',
  'put /api/campaign/:id/update',
  'delete /api/campaign/:id/delete',
  'post /api/channel/add',
  'post /api/channel/:channelid/assign/:type/:itemid',
  'put /api/channel/:id/update',
  'delete /api/channel/:id/delete',
  'post /api/pixel/add',
  'put /api/pixel/:id/update',
  'delete /api/pixel/:id/delete',
  'post /api/domain/add',
  'put /api/domain/:id/update',
  'delete /api/domain/:id/delete',
  'get /api/v1/websites',
  'get /api/v1/websites/:id',
  'post /api/v1/websites',
  'put /api/v1/websites/:id',
  'patch /api/v1/websites/:id',
  'delete /api/v1/websites/:id',
]);

/** True when the reference lists this operation (method and Hono path). */
export function isReferenceOperation(method: string, path: string): boolean {
  return REFERENCE_OPERATIONS.has(`${method.toLowerCase()} ${path}`);
}
