import type { Csp, Page } from '../html/page.ts';
import { cspHash, htmlPage } from '../html/page.ts';
import { FAVICON_CSP, FAVICON_LINK } from '../html/favicon.ts';
import { RELOAD } from '../html/page-headers.ts';
import { countText } from '../html/count-text.ts';
import { NARROW, WIDE, escapeHtml, lineChart } from './chart.ts';
import type { StatRow } from './metrics.ts';

/** What one table of the stats page counts, said in its header. */
export type TableUnit = 'Pageviews' | 'Visitors' | 'Events';

/** One table of the stats page: its title, what its first column names and what its numbers count. */
export interface StatsTable {
  title: string;
  /** The first column's header ("Page", "Country"). */
  label: string;
  unit: TableUnit;
  rows: readonly StatRow[];
}

/** Everything the stats page shows, already computed. */
export interface StatsView {
  domain: string;
  from: string;
  to: string;
  /** A note shown above the chart (e.g. the dates given were invalid). */
  notice?: string;
  days: readonly string[];
  pageviews: readonly number[];
  visitors: readonly number[];
  tables: readonly StatsTable[];
  /** Countries come from the bundled DB-IP database (GEOIP on), whose licence (CC BY 4.0) asks for a link on the pages that show them. */
  geoCredit?: boolean;
}

// The look of the link pages (html/page.ts), widened for a dashboard; the chart comes in two
// drawings, one for wide columns and one for phones, so its text is never scaled below ~11px.
const CSS = `*{box-sizing:border-box}body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f8fa;color:#1f2328}
main{max-width:1040px;margin:0 auto;padding:24px}h1{font-size:1.4rem;margin:0 0 12px;overflow-wrap:anywhere}h2{font-size:15px;margin:0 0 8px}a{color:#0969da}
.card{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:16px;margin:0 0 16px}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}.grid .card{margin:0}
.totals{display:flex;gap:32px}.totals b{display:block;font-size:26px}table{width:100%;border-collapse:collapse}th{font-size:12px;font-weight:600;color:#59636e;text-align:left;padding:0 0 4px;border-bottom:1px solid #d0d7de}
td{padding:4px 0;border-bottom:1px solid #eef1f4;overflow-wrap:anywhere}.n{text-align:right;white-space:nowrap;padding-left:12px}form{display:flex;gap:8px;flex-wrap:wrap;align-items:end}label{display:flex;flex-direction:column;font-size:13px}
input,button{font:inherit;padding:6px 8px;border:1px solid #d0d7de;border-radius:6px}button{background:#1f883d;color:#fff;border-color:#1f883d;cursor:pointer}
.note{background:#fff8c5;border-color:#d4a72c}.err{color:#cf222e}.chart{display:block;width:100%;height:auto}.chart text{fill:#59636e}.chart.wide text{font-size:14px}.chart.narrow text{font-size:13px}.chart .grid{stroke:#eceef2}
.chart.narrow{display:none}@media(max-width:700px){main{padding:12px}.chart.wide{display:none}.chart.narrow{display:block}.totals{gap:24px}}`;

/** What every stats page may load: its own stylesheet (inline, by hash), the icon, and forms posted to itself; nothing else. */
export const statsPageCsp: Csp = { 'style-src': [cspHash(CSS)], 'form-action': ["'self'"], ...FAVICON_CSP };

/** A whole HTML document with the page's styles; `head` is extra head markup. */
export function documentHtml(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${FAVICON_LINK}<style>${CSS}</style>${head}</head><body><main>${body}</main></body></html>`;
}

function table(t: StatsTable): string {
  const body = t.rows.length === 0 ? '<tr><td colspan="2">No data</td></tr>' : t.rows.map((r) => `<tr><td>${escapeHtml(r.value)}</td><td class="n">${countText(r.count)}</td></tr>`).join('');
  return `<section class="card"><h2>${escapeHtml(t.title)}</h2><table><thead><tr><th>${escapeHtml(t.label)}</th><th class="n">${t.unit}</th></tr></thead><tbody>${body}</tbody></table></section>`;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The stats page of a website: totals, a chart per day, top lists and a date range form. */
export function statsPageHtml(view: StatsView): string {
  const domain = escapeHtml(view.domain);
  const series = [
    { name: 'pageviews', color: '#0969da', values: view.pageviews },
    { name: 'visitors', color: '#1f883d', values: view.visitors },
  ];
  const title = `Pageviews and visitors of ${view.domain} per day`;
  const chart = lineChart(view.days, series, title, WIDE).replace('class="chart"', 'class="chart wide"') + lineChart(view.days, series, title, NARROW).replace('class="chart"', 'class="chart narrow"');
  const body = `<h1>${domain}</h1>
<section class="card"><form method="get" action="/stats/${domain}"><label>From<input type="date" name="from" value="${escapeHtml(view.from)}" required></label><label>To<input type="date" name="to" value="${escapeHtml(view.to)}" required></label><button type="submit">Show</button></form></section>
${view.notice ? `<section class="card note">${escapeHtml(view.notice)}</section>` : ''}
<section class="card"><div class="totals"><div><b>${countText(sum(view.pageviews))}</b>pageviews</div><div><b>${countText(sum(view.visitors))}</b>visitors</div></div>${chart}</section>
<div class="grid">${view.tables.map(table).join('')}</div>${view.geoCredit ? '\n<p><a href="https://db-ip.com">IP Geolocation by DB-IP</a></p>' : ''}`;
  return documentHtml(`Statistics of ${view.domain}`, body);
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
