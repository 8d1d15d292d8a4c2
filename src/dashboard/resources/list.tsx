import { countText } from '../../html/count-text.ts';
import { columnsOf } from './screen.ts';
import type { ResourceScreen } from './screen.ts';
import { labelOf } from './form.tsx';

/** Records per page of a resource list. */
export const PER_PAGE = 25;

/** What a resource list is asked: a search and a page; anything malformed falls back to the default. */
export interface ListAsk {
  q: string;
  page: number;
}

/** The list's parameters from the page's query. */
export function listAsk(query: Record<string, string | undefined>): ListAsk {
  const page = Number(query.page);
  return { q: (query.q ?? '').trim().slice(0, 200), page: Number.isSafeInteger(page) && page >= 1 && page <= 100_000 ? page : 1 };
}

/** The list's URL for a search and page (defaults left out). */
export function listUrl(screen: ResourceScreen, ask: ListAsk): string {
  const q = new URLSearchParams();
  if (ask.q) q.set('q', ask.q);
  if (ask.page !== 1) q.set('page', String(ask.page));
  const text = q.toString();
  return `/app/${screen.path}${text ? `?${text}` : ''}`;
}

/** One value of an API entry as a cell shows it: yes/no, a link for a URL, lists joined, nothing for none. */
export function Value(props: { value: unknown }) {
  const { value } = props;
  if (typeof value === 'boolean') return <>{value ? 'Yes' : 'No'}</>;
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (Array.isArray(value)) return <>{value.map(String).join(', ')}</>;
  const text = String(value);
  // Only http(s) URLs become links (the API's URL fields take no other scheme).
  if (/^https?:\/\//i.test(text)) return <a href={text} class="short">{text}</a>;
  return <>{text}</>;
}

/** A resource's list: the search (when the row is searchable), a table of the API's list entries, pages. */
export function ResourceList(props: { screen: ResourceScreen; ask: ListAsk; total: number; entries: Record<string, unknown>[]; titles: string[] }) {
  const { screen, ask, total, entries } = props;
  const columns = columnsOf(screen);
  const last = Math.max(1, Math.ceil(total / PER_PAGE));
  return (
    <>
      {screen.row.searchable && (
        <form class="toolbar" method="get" action={`/app/${screen.path}`} role="search">
          <label>
            Search
            <input type="search" name="q" value={ask.q} data-live-search />
          </label>
          <button type="submit">Search</button>
        </form>
      )}
      {entries.length === 0 ? (
        <p>{ask.q ? `No ${screen.one} matches.` : `You have no ${screen.title.toLowerCase()} yet.`}</p>
      ) : (
        <div class="scroll">
          <table class="links">
            <caption class="sr">
              Your {screen.title.toLowerCase()}, {countText(total)} in all
            </caption>
            <thead>
              <tr>
                <th scope="col">{labelOf(screen, 'name')}</th>
                {columns.map((k) => (
                  <th scope="col">{labelOf(screen, k)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {entries.map((e, n) => (
                <tr>
                  <td>
                    <a href={`/app/${screen.path}/${String(e.id)}`}>{props.titles[n]}</a>
                  </td>
                  {columns.map((k) => (
                    <td>
                      <Value value={e[k]} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pages" aria-label="Pages">
        {ask.page > 1 && <a href={listUrl(screen, { ...ask, page: ask.page - 1 })}>Previous</a>}
        <span>
          Page {ask.page} of {countText(last)} ({countText(total)} in all)
        </span>
        {ask.page < last && <a href={listUrl(screen, { ...ask, page: ask.page + 1 })}>Next</a>}
      </nav>
    </>
  );
}
