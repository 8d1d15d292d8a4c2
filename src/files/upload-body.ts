import type { Context } from 'hono';
import { ApiError } from '../errors.ts';

/** What an upload request carries: the file's bytes and the optional fields (query string, then form fields). */
export interface UploadBody {
  bytes: Uint8Array;
  fields: Record<string, string>;
}

/** Room for the multipart framing and form fields around the file, beside FILE_MAX_BYTES. */
export const MULTIPART_ALLOWANCE = 64 * 1024;

/** The 413 of a file larger than FILE_MAX_BYTES. */
export const tooLarge = (max: number) => new ApiError(413, `The file is larger than the limit of ${max} bytes.`);

/**
 * Reads an upload as the real product takes it: the raw body is the file (any content type but
 * multipart), or a multipart/form-data body with the file in its `file` field. Optional fields come
 * from the query string and, in a multipart body, from its text fields (which win). Empty values
 * mean absent. The size was bounded before the body was read (app.ts); the file itself is checked here.
 */
export async function readUpload(c: Context, maxBytes: number): Promise<UploadBody> {
  const fields: Record<string, string> = {};
  for (const [k, value] of Object.entries(c.req.query())) if (value !== '') fields[k] = value;
  let bytes: Uint8Array;
  if (/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw new ApiError(400, 'The request body is not valid multipart/form-data.');
    }
    for (const [k, value] of Object.entries(form)) if (typeof value === 'string' && value !== '' && k !== 'file') fields[k] = value;
    const file = form.file;
    if (Array.isArray(file)) throw new ApiError(400, 'Send one file per upload.');
    if (!(file instanceof File)) throw new ApiError(400, 'Missing required parameter: file');
    if (file.size > maxBytes) throw tooLarge(maxBytes);
    bytes = new Uint8Array(await file.arrayBuffer());
  } else {
    bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  }
  if (bytes.byteLength === 0) throw new ApiError(400, 'The file is empty.');
  return { bytes, fields };
}

// Path separators, controls, and characters Windows refuses in a file name.
const UNSAFE = /[\u0000-\u001f\u007f/\\:*?"<>|]/g;

/** The file name from the path, made safe to keep and to offer for download: no directories, no controls, at most 200 characters. */
export function cleanFilename(raw: string): string {
  const name = raw.replace(UNSAFE, '_').replace(/^[.\s]+/, '').trim();
  if (name === '') throw new ApiError(400, 'Invalid file name.');
  if ([...name].length > 200) throw new ApiError(400, 'The file name must be at most 200 characters.');
  return name;
}
