import { Hono } from 'hono';
import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { pageMeta, pageQuery } from '../../http/pagination.ts';
import { pathId } from '../../http/validate.ts';
import { ImportFileError } from '../../imports/csv.ts';
import { FORMAT_NAMES, importFormat } from '../../imports/formats.ts';
import { IMPORTS } from '../../imports/job-rows.ts';
import type { ImportJob } from '../../imports/job-rows.ts';
import { createImportJob, OPEN_JOBS_RETRY_AFTER, reportRows, TooManyImportsError } from '../../imports/jobs.ts';
import type { ImportRunner } from '../../imports/runner.ts';
import type { Services } from '../../resources/define.ts';

/** The import routes (the POST's body is a file, so app.ts bounds it by IMPORT_MAX_BYTES instead of BODY_LIMIT). */
export const IMPORT_PATH = '/api/import';
export const IMPORT_JOB_PATH = '/api/import/:id';

const NOT_FOUND = 'Import not found.';
// Types no import reads. Others are taken as text whatever they say: curl sends a file as a form
// (--data-binary), and browsers label a .csv application/vnd.ms-excel or octet-stream.
const NOT_TEXT = /^\s*(image|audio|video|font)\/|^\s*application\/(pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|xml)\b|^\s*text\/(xml|html)\b/i;
const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no', '']);

/** `dry_run` as sent (query string or form field): a boolean word, absent meaning no. */
function dryRunOf(raw: string | undefined): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new ApiError(400, 'Invalid dry_run: must be true or false.');
}

/**
 * The file and fields of an import request: the raw body is the file (any content type but
 * multipart; decoded as UTF-8 as it streams in), or a multipart/form-data body with the file in
 * `file`. Fields come from the query string and, in a form, its text fields (which win).
 */
async function readImport(c: Context<AppEnv>, maxBytes: number): Promise<{ text: string; fields: Record<string, string> }> {
  const fields: Record<string, string> = { ...c.req.query() };
  let text = '';
  if (/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw new ApiError(400, 'The request body is not valid multipart/form-data.');
    }
    for (const [k, value] of Object.entries(form)) if (typeof value === 'string' && k !== 'file') fields[k] = value;
    if (Array.isArray(form.file)) throw new ApiError(400, 'Send one file per import.');
    if (!(form.file instanceof File)) throw new ApiError(400, 'Missing required parameter: file');
    if (form.file.size > maxBytes) throw tooLarge(maxBytes);
    text = await form.file.text();
  } else if (NOT_TEXT.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(415, `The file must be CSV or JSON: ${c.req.header('content-type')?.split(';')[0]} is not read by any import.`);
  } else if (c.req.raw.bodyUsed) {
    // Read already, whole (an Idempotency-Key hashes the body first): Hono kept it.
    text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
  } else if (c.req.raw.body) {
    const decoder = new TextDecoder();
    let bytes = 0;
    for await (const chunk of c.req.raw.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      text += decoder.decode(chunk, { stream: true });
    }
    text += decoder.decode();
  }
  if (text.trim() === '') throw new ApiError(400, 'The file is empty.');
  return { text, fields };
}

/** The 413 of an import file larger than IMPORT_MAX_BYTES. */
export const tooLarge = (max: number) => new ApiError(413, `The file is larger than the limit of ${max} bytes (IMPORT_MAX_BYTES); import it with the command line's import-links instead.`);

/** A job as the API shows it, with one page of its report. */
async function jobBody(s: Services, job: ImportJob, query: Record<string, string | undefined>) {
  const { page, limit } = pageQuery(query);
  const rows = await reportRows(s, job, (page - 1) * limit, limit);
  return {
    id: job.id,
    format: job.format,
    dry_run: job.dryRun,
    state: job.state,
    progress: { done: job.done, total: job.total },
    created: job.created,
    skipped: job.skipped,
    refused: job.refused,
    message: job.message,
    date: job.date,
    started: job.started,
    finished: job.finished,
    report: { ...pageMeta(job.done, page, limit), rows },
  };
}

/** `POST /api/import` (queues an import job of the user's file) and `GET /api/import/:id` (its state, progress and report). */
export function importRoutes(s: Services, runner: ImportRunner): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(IMPORT_PATH, async (c) => {
    const { text, fields } = await readImport(c, s.config.importMaxBytes);
    const name = fields.format?.trim();
    if (!name) throw new ApiError(400, 'Missing required parameter: format');
    const format = importFormat(name);
    if (!format) throw new ApiError(400, `Invalid format: must be one of ${FORMAT_NAMES.join(', ')}.`);
    const dryRun = dryRunOf(fields.dry_run);
    let job: ImportJob;
    try {
      job = await createImportJob(s, c.get('user'), { format, dryRun, text });
    } catch (err) {
      if (err instanceof ImportFileError) throw new ApiError(400, err.message);
      if (err instanceof TooManyImportsError) {
        c.header('Retry-After', String(OPEN_JOBS_RETRY_AFTER));
        throw new ApiError(429, err.message);
      }
      throw err;
    }
    runner.kick();
    const status = `${s.config.baseUrl}${IMPORT_PATH}/${job.id}`;
    c.header('Location', status);
    return c.json({ error: 0, id: job.id, state: job.state, dry_run: job.dryRun, total: job.total, status }, 202);
  });
  routes.get(IMPORT_JOB_PATH, async (c) => {
    const id = pathId(c.req.param('id'));
    const job = id === null ? undefined : await s.store.get<ImportJob>(IMPORTS, id);
    // Another user's job answers exactly like a missing one.
    if (!job || job.userId !== c.get('user').id) throw new ApiError(404, NOT_FOUND);
    return c.json({ error: 0, data: await jobBody(s, job, c.req.query()) });
  });
  return routes;
}
