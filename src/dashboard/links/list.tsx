import { countText } from '../../html/count-text.ts';
import type { Condition, ListQuery, Sort } from '../../store/store.ts';
import { ConfirmedField } from '../ask-first.tsx';
import { Csrf } from '../layout.tsx';
import type { Choice } from './options.ts';

/** Page sizes the list offers. */
export const PER_PAGE = [25, 50, 100] as const;
/** Orders the list offers: newest, oldest, most clicked. */
export const SORTS = { new: 'Newest first', old: 'Oldest first', clicks: 'Most clicks' } as const;

/** What the list is asked: a search, filters, an order, a page. Anything malformed falls back to the default. */
export interface ListParams {
  q: string;
  /** '' any, 'main' the main domain, or a branded domain's id. */
  domain: string;
  campaign: string;
  channel: string;
  sort: keyof typeof SORTS;
  per: number;
  page: number;
}

const ID = /^[1-9]\d{0,14}$/;

/** The list's parameters from the page's query. */
export function listParams(query: Record<string, string | undefined>): ListParams {
  const per = Number(query.per);
  const page = Number(query.page);
  const id = (s: string | undefined) => (s && ID.test(s) ? s : '');
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    domain: query.domain === 'main' ? 'main' : id(query.domain),
    campaign: id(query.campaign),
    channel: id(query.channel),
    sort: query.sort === 'old' || query.sort === 'clicks' ? query.sort : 'new',
    per: (PER_PAGE as readonly number[]).includes(per) ? per : 25,
    page: Number.isSafeInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
  };
}

/** How many matches past the page's start a searched or filtered list counts at most ("more than …" beyond). */
export const COUNT_AHEAD = 10_000;

/**
 * The store query of the list: the API's own list query of the user's links (`base`: owner, search,
 * the clicks order) with the filters added, one page of it. On PostgreSQL the owner's index
 * (user_id, id) serves the default order; filters are conditions on it, as the API's lists use.
 * A search or filter counts its matches up to COUNT_AHEAD past the page (a search every one of a
 * million links matches took a second to count); the owner's whole list is always counted (kept).
 */
export function listStoreQuery(base: ListQuery, p: ListParams): ListQuery {
  const conditions: Condition[] = [...(base.conditions ?? [])];
  if (p.domain !== '') conditions.push({ field: 'domainId', equals: p.domain === 'main' ? null : Number(p.domain) });
  if (p.campaign !== '') conditions.push({ field: 'campaign', equals: Number(p.campaign) });
  if (p.channel !== '') conditions.push({ field: 'channels', holds: Number(p.channel) });
  const sort: Sort | undefined = p.sort === 'old' ? { field: 'id', direction: 'asc' } : base.sort;
  const offset = (p.page - 1) * p.per;
  return { ...base, conditions, ...(sort ? { sort } : {}), offset, limit: p.per, countUpTo: offset + COUNT_AHEAD };
}

/** The list's URL with these parameters (defaults left out). */
export function listHref(p: ListParams, change: Partial<ListParams> = {}): string {
  const all = { ...p, ...change };
  const q = new URLSearchParams();
  if (all.q) q.set('q', all.q);
  for (const k of ['domain', 'campaign', 'channel'] as const) if (all[k]) q.set(k, all[k]);
  if (all.sort !== 'new') q.set('sort', all.sort);
  if (all.per !== 25) q.set('per', String(all.per));
  if (all.page !== 1) q.set('page', String(all.page));
  const text = q.toString();
  return text ? `/app/links?${text}` : '/app/links';
}

/** A link as the list shows it (the API's list entry). */
export interface ListedLink {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  description: string;
  clicks: number;
  date: string;
}

const Select = (props: { name: string; label: string; value: string; choices: readonly Choice[]; any: string }) => (
  <label>
    {props.label}
    <select name={props.name}>
      <option value="">{props.any}</option>
      {props.choices.map((c) => (
        <option value={c.value} selected={c.value === props.value}>
          {c.label}
        </option>
      ))}
    </select>
  </label>
);

/** The search and filter form (GET: works without the script; the script submits it as one types). */
export function ListFilters(props: { p: ListParams; domains: Choice[]; campaigns: Choice[]; channels: Choice[] }) {
  const { p } = props;
  return (
    <form class="toolbar" method="get" action="/app/links" role="search">
      <label>
        Search
        <input type="search" name="q" value={p.q} data-live-search placeholder="URL, alias or title" />
      </label>
      <Select name="domain" label="Domain" value={p.domain} choices={[{ value: 'main', label: 'The main domain' }, ...props.domains]} any="Any" />
      <Select name="campaign" label="Campaign" value={p.campaign} choices={props.campaigns} any="Any" />
      <Select name="channel" label="Channel" value={p.channel} choices={props.channels} any="Any" />
      <label>
        Order
        <select name="sort">
          {Object.entries(SORTS).map(([value, label]) => (
            <option value={value} selected={p.sort === value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Per page
        <select name="per">
          {PER_PAGE.map((n) => (
            <option value={String(n)} selected={p.per === n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** The table of links inside the form of the actions on several (delete, move to a campaign). */
export function LinkTable(props: { p: ListParams; items: ListedLink[]; total: number; more?: boolean; csrf: string; campaigns: Choice[]; canWrite: boolean }) {
  const { p, items, total, more } = props;
  const last = Math.max(1, Math.ceil(total / p.per));
  // A capped count (COUNT_AHEAD): more pages than counted are there.
  const all = more ? `more than ${countText(total)}` : countText(total);
  if (items.length === 0) {
    return <p>{p.q || p.domain || p.campaign || p.channel ? 'No link matches.' : 'You have no links yet.'}</p>;
  }
  return (
    <form class="stack" method="post" action="/app/links/bulk">
      <Csrf token={props.csrf} />
      <ConfirmedField />
      <input type="hidden" name="back" value={listHref(p)} />
      {props.canWrite && (
        <div class="toolbar">
          <button type="submit" name="action" value="delete" class="danger" data-confirm="Delete the selected links and their statistics?">
            Delete selected
          </button>
          <label>
            Campaign
            <select name="campaign">
              {props.campaigns.map((c) => (
                <option value={c.value}>{c.label}</option>
              ))}
            </select>
          </label>
          <button type="submit" name="action" value="move" class="secondary" disabled={props.campaigns.length === 0}>
            Move selected to the campaign
          </button>
        </div>
      )}
      <div class="scroll">
        <table class="links">
          <caption class="sr">Your links, {all} in all</caption>
          <thead>
            <tr>
              <th scope="col" class="pick">
                <label>
                  <input type="checkbox" data-select-all hidden />
                  <span class="sr">Select every link of the page</span>
                </label>
              </th>
              <th scope="col">Short URL and destination</th>
              <th scope="col" class="n">
                Clicks
              </th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((l) => (
              <tr>
                <td class="pick">
                  <input type="checkbox" name="ids" value={String(l.id)} id={`pick-${l.id}`} aria-label={`Select ${l.alias}`} />
                </td>
                <td>
                  <a class="short" href={`/app/links/${l.id}`}>
                    {l.shorturl}
                  </a>{' '}
                  <button type="button" class="secondary" data-copy={l.shorturl} hidden>
                    Copy
                  </button>
                  <br />
                  <span class="muted">{l.longurl}</span>
                  {l.description && (
                    <>
                      <br />
                      <span class="muted">{l.description}</span>
                    </>
                  )}
                </td>
                <td class="n">{countText(l.clicks)}</td>
                <td>{l.date.slice(0, 10)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pages" aria-label="Pages">
        {p.page > 1 && <a href={listHref(p, { page: p.page - 1 })}>Previous</a>}
        <span>
          Page {p.page} of {countText(last)}
          {more ? '+' : ''} ({all} links)
        </span>
        {(p.page < last || more) && <a href={listHref(p, { page: p.page + 1 })}>Next</a>}
      </nav>
    </form>
  );
}
