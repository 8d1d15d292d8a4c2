import { ApiError } from '../errors.ts';

/** The link-management API's page of a list, without the array key. */
export interface Page<T> {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number | null;
  maxpage: number;
  items: T[];
}

/** The page fields of page `page` of `limit` entries out of `total`. */
export function pageMeta(total: number, page: number, limit: number): Omit<Page<never>, 'items'> {
  const maxpage = Math.ceil(total / limit);
  return { result: total, perpage: limit, currentpage: page, nextpage: page < maxpage ? page + 1 : null, maxpage };
}

/** Slices `items` into page `page` of `limit` entries; a page past the end is empty, not an error. */
export function paginate<T>(items: readonly T[], page: number, limit: number): Page<T> {
  const maxpage = Math.ceil(items.length / limit);
  const start = (page - 1) * limit;
  return {
    result: items.length,
    perpage: limit,
    currentpage: page,
    nextpage: page < maxpage ? page + 1 : null,
    maxpage,
    items: items.slice(start, start + limit),
  };
}

/** Default and largest `limit` of link-management lists (the real product defaults to 15). */
export const DEFAULT_LIMIT = 15;
export const MAX_LIMIT = 100;

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ApiError(400, `Invalid ${name}: must be a positive integer.`);
  return Number(raw);
}

/** Reads `page` and `limit` from a query; non-numeric or non-positive values are a 400, `limit` is capped. */
export function pageQuery(query: Record<string, string | undefined>): { page: number; limit: number } {
  return {
    page: positiveInt('page', query.page, 1),
    limit: Math.min(positiveInt('limit', query.limit, DEFAULT_LIMIT), MAX_LIMIT),
  };
}
