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

/**
 * Default and largest `limit` of link-management lists. The real product defaults to 15, and its
 * clients ask for 500 and 1,000 to fetch everything in few calls. A page is a walk of the owner's
 * (user_id, id) index on PostgreSQL whatever the limit (test/pg-list-plan.test.ts).
 */
export const DEFAULT_LIMIT = 15;
export const MAX_LIMIT = 1000;

// The real product reads `limit` and `page` leniently: what is not a positive integer is the default.
function positiveInt(raw: string | undefined, fallback: number): number {
  const text = raw?.trim() ?? '';
  return /^0*[1-9]\d{0,8}$/.test(text) ? Number(text) : fallback;
}

/** Reads `page` and `limit` from a query: missing, non-numeric or non-positive values fall back to the defaults, `limit` is capped at MAX_LIMIT. */
export function pageQuery(query: Record<string, string | undefined>): { page: number; limit: number } {
  return {
    page: positiveInt(query.page, 1),
    limit: Math.min(positiveInt(query.limit, DEFAULT_LIMIT), MAX_LIMIT),
  };
}
