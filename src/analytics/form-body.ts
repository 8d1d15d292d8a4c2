import type { Context } from 'hono';
import { ApiError } from '../errors.ts';
import { jsonObjectBody } from '../http/validate.ts';

/**
 * The fields of a write to the analytics API: form fields (`application/x-www-form-urlencoded`,
 * as the reference sends them, or `multipart/form-data`) or a JSON object. An empty body has no
 * fields; any other type is a 415, a JSON body that is not an object a 400.
 */
export async function readFormOrJson(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    const form = await c.req.parseBody().catch(() => {
      throw new ApiError(400, 'The request body is not valid form data.');
    });
    // An uploaded file is no field value of this API: keep it as an object so validation names the field.
    return Object.fromEntries(Object.entries(form).map(([k, value]) => [k, typeof value === 'string' ? value : { file: true }]));
  }
  return jsonObjectBody(await c.req.text(), type, 'Unsupported Media Type: send form fields (application/x-www-form-urlencoded) or JSON.');
}
