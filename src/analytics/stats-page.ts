import type { Csp } from '../html/page.ts';
import { cspHash } from '../html/page.ts';
import { RELOAD } from '../html/page-headers.ts';
import { escapeHtml, lineChart } from './chart.ts';
import type { StatRow } from './metrics.ts';

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
  tables: readonly { title: string; rows: readonly StatRow[] }[];
}

const CSS = `*{box-sizing:border-box}body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}
main{max-width:1040px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 4px}h2{font-size:15px;margin:0 0 8px}
.card{background:#fff;border:1px solid #e2e5ea;border-radius:8px;padding:16px;margin:0 0 16px}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}
.totals{display:flex;gap:32px}.totals b{display:block;font-size:26px}table{width:100%;border-collapse:collapse}td{padding:4px 0;border-bottom:1px solid #f0f1f4;word-break:break-all}
td.n{text-align:right;white-space:nowrap;padding-left:12px}form{display:flex;gap:8px;flex-wrap:wrap;align-items:end}label{display:flex;flex-direction:column;font-size:13px}
input,button{font:inherit;padding:6px 8px;border:1px solid #c8cdd6;border-radius:6px}button{background:#2f5bea;color:#fff;border-color:#2f5bea;cursor:pointer}
.note{background:#fff6db;border-color:#f0d98a}.err{color:#b42318}.chart{width:100%;height:auto}.chart text{font-size:11px;fill:#5b6577}.chart .grid{stroke:#eceef2}`;

/** What every stats page may load: its own stylesheet (inline, by hash) and forms posted to itself; nothing else. */
export const statsPageCsp: Csp = { 'style-src': [cspHash(CSS)], 'form-action': ["'self'"] };

/** A whole HTML document with the page's styles; `head` is extra head markup. */
export function documentHtml(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${CSS}</style>${head}</head><body><main>${body}</main></body></html>`;
}

function table(title: string, rows: readonly StatRow[]): string {
  const body = rows.length === 0 ? '<tr><td>No data</td></tr>' : rows.map((r) => `<tr><td>${escapeHtml(r.value)}</td><td class="n">${r.count}</td></tr>`).join('');
  return `<section class="card"><h2>${escapeHtml(title)}</h2><table>${body}</table></section>`;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The stats page of a website: totals, a chart per day, top lists and a date range form. */
export function statsPageHtml(view: StatsView): string {
  const domain = escapeHtml(view.domain);
  const chart = lineChart(
    view.days,
    [
      { name: 'pageviews', color: '#2f5bea', values: view.pageviews },
      { name: 'visitors', color: '#12a150', values: view.visitors },
    ],
    `Pageviews and visitors of ${view.domain} per day`,
  );
  const body = `<h1>${domain}</h1>
<section class="card"><form method="get" action="/stats/${domain}"><label>From<input type="date" name="from" value="${escapeHtml(view.from)}" required></label><label>To<input type="date" name="to" value="${escapeHtml(view.to)}" required></label><button type="submit">Show</button></form></section>
${view.notice ? `<section class="card note">${escapeHtml(view.notice)}</section>` : ''}
<section class="card"><div class="totals"><div><b>${sum(view.pageviews)}</b>pageviews</div><div><b>${sum(view.visitors)}</b>visitors</div></div>${chart}</section>
<div class="grid">${view.tables.map((t) => table(t.title, t.rows)).join('')}</div>`;
  return documentHtml(`Statistics of ${view.domain}`, body);
}

/** The sign-in form of a non-public stats page: the API key (owner only) or the page password; `reload` once when a cross-site visit held the cookie back. */
export function gateHtml(domain: string, kind: 'owner' | 'password', error?: string, reload = false): string {
  const d = escapeHtml(domain);
  const field =
    kind === 'owner'
      ? `<label>API key<input type="password" name="key" autocomplete="off" required></label>`
      : `<label>Password<input type="password" name="password" autocomplete="current-password" required></label>`;
  const intro = kind === 'owner' ? 'These statistics are private. The owner can sign in with the API key.' : 'These statistics are protected by a password.';
  const body = `<h1>${d}</h1><section class="card"><p>${intro}</p>${error ? `<p class="err">${escapeHtml(error)}</p>` : ''}<form method="post" action="/stats/${d}">${field}<button type="submit">Sign in</button></form></section>`;
  return documentHtml(`Statistics of ${domain}`, body, reload ? RELOAD : '');
}

/** A page with only a title and a sentence (not found, too many attempts). */
export function messageHtml(title: string, text: string): string {
  return documentHtml(title, `<h1>${escapeHtml(title)}</h1><section class="card"><p>${escapeHtml(text)}</p></section>`);
}
