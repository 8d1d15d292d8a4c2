import type { Context } from 'hono';

/** The answer formats of the statistics endpoints: JSON (default) or CSV. */
export const STAT_FORMATS = ['json', 'csv'] as const;

/** The q-value of `type` in an Accept header (0 when absent); `*\/*` and `text/*` count for less than the type itself. */
function quality(accept: string, type: string): number {
  let best = -1;
  let specificity = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const [major, minor] = range.trim().split('/');
    const level = range.trim() === type ? 2 : major === type.split('/')[0] && minor === '*' ? 1 : range.trim() === '*/*' ? 0 : -1;
    if (level < specificity || level < 0) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
    specificity = level;
    best = q === undefined ? 1 : Math.min(1, Number(q) || 0);
  }
  return Math.max(best, 0);
}

/**
 * Whether a statistics request asks for CSV: `format=csv`, or, without `format`, an Accept header
 * that prefers text/csv to application/json (a tie, or `*\/*` alone, stays JSON).
 */
export function wantsCsv(c: Context, format: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  const accept = c.req.header('accept');
  if (!accept) return false;
  const csv = quality(accept, 'text/csv');
  return csv > 0 && csv > quality(accept, 'application/json') && /text\/csv/i.test(accept);
}

/** A file name safe in a Content-Disposition header and on every file system: letters, digits, `.`, `_` and `-`. */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 120) || 'download';
}

/** A CSV download (RFC 4180, UTF-8) named `name`. */
export function csvDownload(c: Context, csv: string, name: string): Response {
  return c.body(csv, 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${safeFileName(name)}"` });
}

/** A zip download named `name`. */
export function zipDownload(c: Context, zip: Uint8Array, name: string): Response {
  // A fresh ArrayBuffer of its own: Hono's body takes one, not a view into a pooled Buffer.
  return c.body(new Uint8Array(zip).buffer, 200, { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${safeFileName(name)}"` });
}
