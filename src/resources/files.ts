import { ApiError } from '../errors.ts';
import { aliasKey } from '../links/alias.ts';
import { originsOf } from '../links/shape.ts';
import { clickTotals, subjectOf } from '../links/stats.ts';
import type { StoredRecord } from '../store/store.ts';
import { FILES_COLLECTION } from '../store/store.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { date, int, str } from './shapes.ts';

/** An uploaded file: its metadata (the bytes are kept beside it by the store) and its short link. */
export interface StoredFile extends StoredRecord {
  userId: number;
  /** The title the list shows (`name`, or the file name). */
  name: string;
  /** The file name it was uploaded as, and is downloaded as. */
  filename: string;
  /** The type it is served with, decided from its bytes and extension (content-type.ts). */
  type: string;
  size: number;
  alias: string;
  domainId: number | null;
  expiry: string | null;
  /** The scrypt hash of the password the download asks for (as links keep theirs); null or absent: none. */
  password?: string | null;
  date: string;
}

/** The error of an alias another link or file has. */
export const FILE_ALIAS_TAKEN = () => new ApiError(400, 'That alias is taken. Please choose another one.');

/** The short URL of a file: its domain's origin (or BASE_URL) and its alias. */
export const fileShortUrl = (file: Pick<StoredFile, 'alias' | 'domainId'>, origins: ReadonlyMap<number, string>, baseUrl: string) =>
  `${origins.get(file.domainId ?? -1) ?? baseUrl}/${file.alias}`;

async function fileEntries(files: readonly StoredFile[], ctx: HookContext): Promise<Record<string, unknown>[]> {
  const [origins, totals] = await Promise.all([originsOf(files, ctx), clickTotals(ctx, files.map((f) => subjectOf('file', f.id)))]);
  return files.map((f) => ({ id: f.id, name: f.name, downloads: totals.get(subjectOf('file', f.id))?.clicks ?? 0, shorturl: fileShortUrl(f, origins, ctx.config.baseUrl), date: f.date }));
}

/**
 * Uploaded files, as the real product's Files API: listed and deleted here; uploaded by
 * routes/link-api/files.ts (a raw or multipart body, not JSON) and downloaded at their short link.
 */
export const files = defineResource<Record<string, never>, StoredFile>({
  name: 'file',
  collection: FILES_COLLECTION,
  api: 'link',
  scope: 'files',
  owned: true,
  extension: true,
  fields: {},
  paths: { list: '/api/files', remove: '/api/files/:id/delete' },
  // As the real product's files list: `{error: 0, result, …, list: [...]}`, which its clients read (docs/compatibility.md).
  listKey: 'list',
  listShape: 'flat',
  shapes: { entry: { id: int, name: str, downloads: int, shorturl: str, date } },
  searchable: ['name', 'filename'],
  references: { domainId: { collection: 'domains', from: 'domain' } },
  indexes: { alias: (f) => aliasKey(f.domainId, f.alias) },
  unique: { alias: FILE_ALIAS_TAKEN },
  messages: { notFound: 'File does not exist.', updated: 'File has been successfully updated.', deleted: 'File has been successfully deleted.' },
  example: (n) => ({ name: `File ${n}` }),
  entry: async (f, ctx) => (await fileEntries([f], ctx))[0]!,
  entries: fileEntries,
  listQuery(query) {
    // As the real product: `name` filters the list (here: the text anywhere in the name, ignoring case).
    const name = query.name?.trim();
    return name ? { search: { text: name, fields: ['name'] } } : {};
  },
  async onDelete(tx, file, ctx) {
    await ctx.counters.dropSubject(tx, subjectOf('file', file.id));
  },
});
