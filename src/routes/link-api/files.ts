import { Hono } from 'hono';
import * as v from 'valibot';
import { hashPassword } from '../../auth/passwords.ts';
import { formatDateTime } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { ALLOWED_EXTENSIONS, fileTypeOf } from '../../files/content-type.ts';
import { cleanFilename, readUpload } from '../../files/upload-body.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { parseWith } from '../../http/validate.ts';
import { generateAlias, isReservedAlias } from '../../links/alias.ts';
import { shortAliasTaken } from '../../links/alias-taken.ts';
import { linkFields } from '../../links/fields.ts';
import { originsOf } from '../../links/shape.ts';
import type { Services } from '../../resources/define.ts';
import { parseDateTime } from '../../resources/fields.ts';
import { FILE_ALIAS_TAKEN, fileShortUrl, files } from '../../resources/files.ts';
import type { StoredFile } from '../../resources/files.ts';
import { domainIdOf } from '../../resources/links.ts';
import { FILES_COLLECTION } from '../../store/store.ts';
import { hookContext, transact } from '../crud.ts';
import type { HookContext } from '../../resources/define.ts';

/** The upload route (its body is a file, so app.ts bounds it by FILE_MAX_BYTES instead of BODY_LIMIT). */
export const UPLOAD_PATH = '/api/files/upload/:filename';

/** The optional fields of an upload, as the real product takes them (query string or form fields). */
export const uploadFields = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(255, 'Name must be at most 255 characters.'))),
  custom: v.optional(linkFields.custom),
  domain: v.optional(linkFields.domain),
  password: v.optional(linkFields.password),
  expiry: v.optional(linkFields.expiry),
});

/** `POST /api/files/upload/:filename`: stores a file of an allowed type and answers its id and short URL. */
export function fileRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(UPLOAD_PATH, async (c) => {
    const ctx = hookContext(s, c);
    const filename = cleanFilename(c.req.param('filename') ?? '');
    const { bytes, fields } = await readUpload(c, s.config.fileMaxBytes);
    const file = await storeUpload(s, ctx, filename, bytes, fields);
    return c.json({ error: 0, id: file.id, shorturl: fileShortUrl(file, await originsOf([file], ctx), s.config.baseUrl) });
  });
  return routes;
}

/**
 * Stores an uploaded file of the user of `ctx`, as POST /api/files/upload takes it (the dashboard's
 * upload too): the optional fields checked, the type decided from the name and the bytes (415 when
 * not accepted), the alias made up or checked, the record and its bytes written in one transaction.
 */
export async function storeUpload(s: Services, ctx: HookContext, filename: string, bytes: Uint8Array, fields: Record<string, string>): Promise<StoredFile> {
  const input = parseWith(uploadFields, fields);
  const kind = fileTypeOf(filename, bytes);
  if ('refused' in kind) {
    throw new ApiError(415, kind.refused === 'extension' ? `This type of file is not accepted. Allowed extensions: ${ALLOWED_EXTENSIONS.join(', ')}.` : "The file's content is not what its extension says.");
  }
  if (input.expiry !== undefined && parseDateTime(input.expiry) <= s.clock.now()) throw new ApiError(400, 'The expiry date must be later than today.');
  if (input.custom !== undefined && isReservedAlias(input.custom)) throw new ApiError(400, 'That alias is reserved. Please choose another one.');
  const domainId = input.domain === undefined ? null : await domainIdOf(ctx, input.domain);
  // Kept as links keep theirs: its scrypt hash only; the download asks for it (redirect/password-gate.ts).
  const password = input.password ? await hashPassword(input.password) : null;
  return transact(s, files, async (tx) => {
    const taken = (a: string) => shortAliasTaken(tx, ctx, domainId, a);
    let alias = input.custom;
    if (alias === undefined) alias = await generateAlias(s.random, taken);
    else if (await taken(alias)) throw FILE_ALIAS_TAKEN();
    const record = {
      userId: ctx.user.id,
      date: formatDateTime(s.clock.now()),
      name: input.name || filename,
      filename,
      type: kind.type,
      size: bytes.byteLength,
      alias,
      domainId,
      expiry: input.expiry ?? null,
      password,
    } satisfies Partial<StoredFile>;
    const stored = await tx.insert(FILES_COLLECTION, record);
    await tx.putFileContent(stored.id, bytes);
    return stored as StoredFile;
  });
}
