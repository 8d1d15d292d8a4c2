import type { Csp, Page } from '../html/page.ts';
import { cspHash, htmlPage } from '../html/page.ts';
import { FAVICON_CSP, FAVICON_LINK } from '../html/favicon.ts';
import { RELOAD } from '../html/page-headers.ts';
import { escapeHtml } from './chart.ts';
import type { StatRow } from './metrics.ts';
import { REALTIME_SCRIPT, realtimeText } from './realtime-script.ts';
import { realtimeHref } from './stats-links.ts';
import type { PageQuery } from './stats-links.ts';
import { eventsCard, panelCard, rangeCard, totalsCard } from './stats-page-parts.ts';
import { STATS_CSS } from './stats-page-style.ts';
import type { EventsPanel, PanelSpec, PanelTab } from './stats-panels.ts';
import type { DayRange, StatsRange } from './stats-range.ts';
import type { Headline, Series } from './stats-series.ts';

/** Everything the stats page shows, already computed. */
export interface StatsView {
  domain: string;
  /** The page's own query parameters, kept by its links. */
  query: PageQuery;
  range: StatsRange;
  previous: DayRange;
  headline: Headline;
  previousHeadline: Headline;
  series: Series;
  panels: readonly { spec: PanelSpec; tab: PanelTab; rows: readonly StatRow[] }[];
  events: EventsPanel;
  /** Visitors of the last 5 minutes, as of the page load. */
  realtime: number;
  /** Sent back by the page's script when it reads the realtime visitors of a page that needed signing in. */
  realtimeToken?: string;
  /** STATS_HOURLY_DAYS, for the note on a day whose hours are gone. */
  hourlyDays: number;
  /** Countries come from the bundled DB-IP database (GEOIP on), whose licence (CC BY 4.0) asks for a link on the pages that show them. */
  geoCredit?: boolean;
}

/**
 * What every stats page may load: its own stylesheet and script (inline, by hash), the icon, forms
 * posted to itself, and its realtime line read from its own origin; nothing else.
 */
export const statsPageCsp: Csp = { 'style-src': [cspHash(STATS_CSS)], 'script-src': [cspHash(REALTIME_SCRIPT)], 'connect-src': ["'self'"], 'form-action': ["'self'"], ...FAVICON_CSP };

/** A whole HTML document with the page's styles; `head` is extra head markup, `script` the page's script (allowed by hash). */
export function documentHtml(title: string, body: string, head = '', script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${FAVICON_LINK}<style>${STATS_CSS}</style>${head}</head><body><main>${body}</main>${script === '' ? '' : `<script>${script}</script>`}</body></html>`;
}

/** The stats page of a website: realtime visitors, the range presets, headline figures with their changes, a chart, and the panels. */
export function statsPageHtml(view: StatsView): string {
  const { domain, query, range } = view;
  const token = view.realtimeToken === undefined ? '' : ` data-token="${escapeHtml(view.realtimeToken)}"`;
  const live = `<p class="live" id="realtime" data-src="${escapeHtml(realtimeHref(domain))}"${token} aria-live="polite"><span class="dot" aria-hidden="true"></span><span data-text>${realtimeText(view.realtime)}</span></p>`;
  const panels = view.panels.map((p) => panelCard(domain, query, range, p.spec, p.tab, p.rows)).join('');
  const body = `<h1>${escapeHtml(domain)}</h1>${live}
${rangeCard(domain, query, range)}
${range.notice ? `<section class="card note" role="status">${escapeHtml(range.notice)}</section>` : ''}
${totalsCard(domain, view.headline, view.previousHeadline, view.previous, view.series, view.hourlyDays)}
<div class="grid">${panels}${eventsCard(domain, query, range, view.events)}</div>${view.geoCredit ? '\n<p><a href="https://db-ip.com">IP Geolocation by DB-IP</a></p>' : ''}`;
  return documentHtml(`Statistics of ${domain}`, body, '', REALTIME_SCRIPT);
}

/** The sign-in form of a non-public stats page (the look of the link pages): the API key (owner only) or the page password; `reload` once when a cross-site visit held the cookie back. */
export function gatePage(domain: string, kind: 'owner' | 'password', error?: string, reload = false): Page {
  const d = escapeHtml(domain);
  const field =
    kind === 'owner'
      ? `<input type="password" name="key" aria-label="API key" placeholder="API key" autocomplete="off" required>`
      : `<input type="password" name="password" aria-label="Password" placeholder="Password" autocomplete="current-password" required>`;
  const intro = kind === 'owner' ? 'These statistics are private. The owner can sign in with the API key.' : 'These statistics are protected by a password.';
  const body = `<main><h1>Statistics of ${d}</h1><p>${intro}</p>${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<form method="post" action="/stats/${d}">${field}<button type="submit">Sign in</button></form></main>`;
  return htmlPage(`Statistics of ${domain}`, body, { csp: { 'form-action': ["'self'"] }, referrer: 'no-referrer', ...(reload ? { head: RELOAD } : {}) });
}

/** A page with only a title and a sentence (not found, too many attempts), in the look of the link pages. */
export function messagePage(title: string, text: string): Page {
  return htmlPage(title, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>`, { referrer: 'no-referrer' });
}
