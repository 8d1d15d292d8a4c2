/** One entry of a Laravel paginator's `links`: a page number, `...`, or the previous/next arrows. */
export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/** Laravel's LengthAwarePaginator as `toArray()` gives it (flat, no `meta`), plus the API's `status`: the stats API's answer. */
export interface FlatPage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
  status: 200;
}

// Laravel's default: three pages each side of the current one.
const ON_EACH_SIDE = 3;

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * The page numbers Laravel's UrlWindow shows, with null for each `...`: every page when there are
 * few, else the start, a window around the current page and the end.
 */
export function pageWindow(current: number, last: number): (number | null)[] {
  if (last < ON_EACH_SIDE * 2 + 8) return range(1, last);
  const window = ON_EACH_SIDE + 4;
  if (current <= window) return [...range(1, window + ON_EACH_SIDE), null, last - 1, last];
  if (current > last - window) return [1, 2, null, ...range(last - (window + (ON_EACH_SIDE - 1)), last)];
  return [1, 2, null, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), null, last - 1, last];
}

/**
 * Page `page` of `items` as Laravel's flat paginator. Page URLs are absolute and carry `keep`
 * (every query parameter the request sent, in its order) with `page` set; a page past the end is
 * empty, not an error.
 */
export function flatPage<T>(items: readonly T[], page: number, perPage: number, path: string, keep: Record<string, string>): FlatPage<T> {
  const total = items.length;
  const last = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  const data = items.slice(start, start + perPage);
  const url = (n: number) => {
    const params = new URLSearchParams(keep);
    params.set('page', String(n));
    return `${path}?${params.toString()}`;
  };
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < last ? url(page + 1) : null;
  const numbered = pageWindow(page, last).map((n): PageLink => (n === null ? { url: null, label: '...', active: false } : { url: url(n), label: String(n), active: n === page }));
  return {
    current_page: page,
    data,
    first_page_url: url(1),
    from: data.length > 0 ? start + 1 : null,
    last_page: last,
    last_page_url: url(last),
    links: [{ url: prev, label: '&laquo; Previous', active: false }, ...numbered, { url: next, label: 'Next &raquo;', active: false }],
    next_page_url: next,
    path,
    per_page: perPage,
    prev_page_url: prev,
    to: data.length > 0 ? start + data.length : null,
    total,
    status: 200,
  };
}
