import * as v from 'valibot';

/** The page sizes the reference allows. */
export const PER_PAGE = ['10', '25', '50', '100'] as const;

/**
 * The query fields every analytics list takes (search, sort, paging); `extra` adds list-specific
 * filters. As the real product reads them, a `search_by`, `sort_by`, `sort` or `per_page` that is
 * not one of its values is its default rather than a 422 (a client that checks its key with
 * `per_page=1` must get an answer).
 */
export function listQuery<E extends v.ObjectEntries>(searchBy: readonly [string, ...string[]], sortBy: readonly [string, ...string[]], extra: E) {
  const pick = <const T extends readonly [string, ...string[]]>(options: T) => v.optional(v.fallback(v.optional(v.picklist(options)), undefined));
  return v.object({
    search: v.optional(v.pipe(v.string(), v.maxLength(255, 'The search must not be greater than 255 characters.'))),
    search_by: pick(searchBy),
    sort_by: pick(sortBy),
    sort: pick(['desc', 'asc']),
    per_page: pick(PER_PAGE),
    page: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^-?\d{1,9}$/, 'The page must be an integer.'),
        v.transform(Number),
        v.minValue(1, 'The page must be at least 1.'),
      ),
    ),
    ...extra,
  });
}

/** The validated common part of a list query. */
export interface ListQuery {
  search?: string;
  search_by?: string;
  sort_by?: string;
  sort?: 'desc' | 'asc';
  per_page?: string;
  page?: number;
}

/** The query parameters a list's page links carry: every one the request sent, but `page`, which each link sets. */
export function linkQuery(query: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter(([k]) => k !== 'page'));
}

/** A request's query without empty values (Laravel treats `?search=` as not sent). */
export function sentQuery(query: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}

/** The analytics API's list envelope (Laravel's LengthAwarePaginator). */
export interface LaravelPage<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; last_page: number; path: string; per_page: number; to: number | null; total: number };
  status: 200;
}

/**
 * One page of `items` in the Laravel list shape. Links are absolute, keep the list's own query
 * parameters (`keep`, in request order) and set `page`; a page past the end is empty, not an error.
 */
export function laravelPage<T>(items: readonly T[], page: number, perPage: number, path: string, keep: Record<string, string>): LaravelPage<T> {
  const start = (page - 1) * perPage;
  return laravelPageOf(items.slice(start, start + perPage), items.length, page, perPage, path, keep);
}

/** The paginator around page `page` (its `data`) of a list of `total` entries. */
export function laravelPageOf<T>(data: T[], total: number, page: number, perPage: number, path: string, keep: Record<string, string>): LaravelPage<T> {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  const url = (n: number) => {
    const params = new URLSearchParams(keep);
    params.set('page', String(n));
    return `${path}?${params.toString()}`;
  };
  return {
    data,
    links: { first: url(1), last: url(lastPage), prev: page > 1 ? url(page - 1) : null, next: page < lastPage ? url(page + 1) : null },
    meta: {
      current_page: page,
      from: data.length > 0 ? start + 1 : null,
      last_page: lastPage,
      path,
      per_page: perPage,
      to: data.length > 0 ? start + data.length : null,
      total,
    },
    status: 200,
  };
}

/** Sorts rows by `key` in `sort` order; ties keep their order (Array#sort is stable). */
export function sortRows<T>(rows: T[], key: (row: T) => string | number, sort: 'asc' | 'desc'): T[] {
  const dir = sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -dir : x > y ? dir : 0;
  });
}
