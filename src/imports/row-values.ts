import type { ImportField } from './formats.ts';

/** A link as an import file describes it, before the link API checks it. */
export interface ImportRow {
  url: string;
  alias?: string;
  title?: string;
  /** When the source created it, epoch ms. */
  created?: number;
  /** The source's click total. */
  clicks?: number;
  tags?: string[];
  /** The host name the source served it on (bit.ly, a branded domain). */
  domain?: string;
}

/** A row of a file: its number among the data rows (1-based) and what it holds, or why it cannot be a link. */
export interface SourceRow {
  n: number;
  row?: ImportRow;
  /** The URL and alias as written, for the report of a row refused before the link API saw it. */
  url?: string;
  alias?: string;
  problem?: string;
}

/** The largest click total taken: more than any real link, less than what a day's counter can add up. */
const MAX_CLICKS = 1e12;

/**
 * A date as exports write them, epoch ms, or null: ISO 8601 (`2024-05-01T10:00:00Z`, `…+0000`),
 * `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DD` (taken as UTC), or Unix time in seconds or milliseconds.
 */
export function parseSourceDate(raw: string): number | null {
  const s = raw.trim();
  if (/^\d{9,10}$/.test(s)) return Number(s) * 1000;
  if (/^\d{12,13}$/.test(s)) return Number(s);
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i.exec(s);
  if (!m) return null;
  const [, day, time = '00:00:00', zone = 'Z'] = m;
  const offset = /^[+-]/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(-2)}` : 'Z';
  const ms = Date.parse(`${day}T${time.length === 5 ? `${time}:00` : time.replace(/(\.\d{3})\d+$/, '$1')}${offset}`);
  // A date that does not exist (02-30) is refused, not rolled over into the next month.
  if (Number.isNaN(ms) || new Date(ms + (offset === 'Z' ? 0 : offsetMs(offset))).toISOString().slice(0, 10) !== day) return null;
  return ms;
}

function offsetMs(offset: string): number {
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
}

/** The alias a short URL or a list of them ends with (`https://bit.ly/abc`, `bit.ly/abc, bit.ly/x`): the first one's last path segment. */
export function backHalf(raw: string): string {
  const first = raw.split(/[,|\s]+/).find((part) => part !== '') ?? '';
  const path = first.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[?#].*$/, '');
  const at = path.indexOf('/');
  if (at < 0) return path;
  const segments = path.slice(at + 1).split('/').filter((p) => p !== '');
  return decodeSegment(segments.at(-1) ?? '');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The host name of a short URL (`bit.ly/abc` → bit.ly), lowercase, or undefined. */
export function hostOf(raw: string): string | undefined {
  const first = raw.split(/[,|\s]+/).find((part) => part !== '') ?? '';
  const host = first.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0]?.toLowerCase() ?? '';
  return host.includes('.') || host === 'localhost' ? host.replace(/:\d+$/, '') : undefined;
}

/**
 * A row of a file as a link, from the cells its format's columns named (trimmed, empty meaning
 * absent), or the reason it cannot be one. `now`: a creation date later than this is refused.
 */
export function importRowOf(n: number, cells: Partial<Record<ImportField, string>>, now: number, tagSeparator = /[|,]/): SourceRow {
  const get = (f: ImportField) => {
    const v = cells[f]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const url = get('url');
  // An alias column may hold short URLs (Bitly's custom bitlinks): their back-half is the alias.
  const rawAlias = get('alias');
  const alias = rawAlias !== undefined ? (rawAlias.includes('/') ? backHalf(rawAlias) : rawAlias) : get('shortUrl') !== undefined ? backHalf(get('shortUrl')!) : undefined;
  const refused = (problem: string): SourceRow => ({ n, url, alias: alias || undefined, problem });
  if (url === undefined) return refused('Missing required parameter: url');
  const row: ImportRow = { url };
  if (alias) row.alias = alias;
  const title = get('title');
  if (title !== undefined) row.title = title;
  const created = get('created');
  if (created !== undefined) {
    const ms = parseSourceDate(created);
    if (ms === null) return refused(`Invalid created date ${JSON.stringify(created)}: use ISO 8601 (2024-05-01T10:00:00Z), YYYY-MM-DD HH:MM:SS or Unix time.`);
    if (ms > now) return refused(`The created date ${JSON.stringify(created)} is in the future.`);
    row.created = ms;
  }
  const clicks = get('clicks');
  if (clicks !== undefined) {
    // Spreadsheets write thousands separators ("1,234").
    const digits = clicks.replace(/[,_\s']/g, '');
    if (!/^\d+$/.test(digits) || Number(digits) > MAX_CLICKS) return refused(`Invalid clicks ${JSON.stringify(clicks)}: a whole number from 0 is needed.`);
    if (Number(digits) > 0) row.clicks = Number(digits);
  }
  const tags = get('tags')?.split(tagSeparator).map((t) => t.trim()).filter((t) => t !== '');
  if (tags && tags.length > 0) row.tags = tags;
  const domain = get('domain') ?? (get('shortUrl') !== undefined ? hostOf(get('shortUrl')!) : undefined);
  if (domain !== undefined) row.domain = hostOf(domain.includes('/') ? domain : `${domain}/`) ?? domain.toLowerCase();
  return { n, row, url, alias: row.alias };
}
