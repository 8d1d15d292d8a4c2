import { countText } from '../html/count-text.ts';

/** How many records a page of the QR codes, bio pages and files lists shows. */
export const PAGE_SIZE = 25;

/** A list page's search and page number from its query (malformed: none, and the first page). */
export function listPage(query: Record<string, string | undefined>): { q: string; page: number } {
  const page = Number(query.page);
  return { q: (query.q ?? '').trim().slice(0, 200), page: Number.isSafeInteger(page) && page >= 1 && page <= 100_000 ? page : 1 };
}

/** A list's URL with its search and page (defaults left out). */
export function pageHref(path: string, q: string, page: number): string {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (page > 1) query.set('page', String(page));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The search box of a list (GET: works without the script; the script submits it as one types). */
export function ListSearch(props: { path: string; q: string; placeholder: string }) {
  return (
    <form class="toolbar" method="get" action={props.path} role="search">
      <label>
        Search
        <input type="search" name="q" value={props.q} data-live-search placeholder={props.placeholder} />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** Previous and next links of a list, and where the page is. */
export function Pages(props: { path: string; q: string; page: number; total: number; noun: string }) {
  const last = Math.max(1, Math.ceil(props.total / PAGE_SIZE));
  return (
    <nav class="pages" aria-label="Pages">
      {props.page > 1 && <a href={pageHref(props.path, props.q, props.page - 1)}>Previous</a>}
      <span>
        Page {props.page} of {countText(last)} ({countText(props.total)} {props.noun})
      </span>
      {props.page < last && <a href={pageHref(props.path, props.q, props.page + 1)}>Next</a>}
    </nav>
  );
}
