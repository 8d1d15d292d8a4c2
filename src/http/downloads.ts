import type { Context } from 'hono';

/** The answer formats of the statistics endpoints: JSON (default) or CSV. */
export const STAT_FORMATS = ['json', 'csv'] as const;

/**
 * The q-value an Accept header gives `type` (RFC 9110 12.5.1): the most specific range that matches
 * it decides (`text/csv` over `text/*` over `*\/*`); 0 when none does.
 */
function quality(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = { specificity: -1, q: 0 };
  for (const part of accept.toLowerCase().split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim());
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < best.specificity) continue;
    const q = params.map((p) => /^q\s*=\s*([\d.]+)$/.exec(p)?.[1]).find((x) => x !== undefined);
    best = { specificity, q: q === undefined ? 1 : Math.min(1, Number(q) || 0) };
  }
  return best.specificity < 0 ? 0 : best.q;
}

/**
 * Whether a statistics request asks for CSV: `format=csv`; or, without `format`, an Accept header
 * naming text/csv that rates it above application/json (a tie, or `*\/*` alone, stays JSON).
 */
export function wantsCsv(c: Context, format: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  const accept = c.req.header('accept') ?? '';
  return /text\/csv/i.test(accept) && quality(accept, 'text/csv') > quality(accept, 'application/json');
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
