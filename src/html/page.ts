import { createHash } from 'node:crypto';
import { FAVICON_CSP, FAVICON_LINK } from './favicon.ts';

/** Escapes a value for HTML text and double-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A value safe inside an inline <script> as a JSON literal. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The Content-Security-Policy directives a page may need beyond `default-src 'none'`. */
export type CspDirective = 'script-src' | 'style-src' | 'img-src' | 'connect-src' | 'frame-src' | 'form-action';

/** Sources per directive: keywords ('self'), origins, schemes and 'sha256-...' hashes. */
export type Csp = Partial<Record<CspDirective, readonly string[]>>;

/** An HTML page with what its headers must say: the sources its CSP allows, how it sends referrers and who may script it. */
export interface Page {
  html: string;
  csp: Csp;
  /** Pages of secrets (password forms, statistics) send no Referer at all. */
  referrer?: 'no-referrer';
  /**
   * Who may hold a scripting handle on the page's window. Default: anyone of the origin (pages that
   * run third-party pixels need no more). 'same-origin': not pages of other COOP (pixel pages);
   * 'isolated': not even those (COOP and COEP), for pages no third-party script must read.
   */
  opener?: 'same-origin' | 'isolated';
}

/** The CSP source that allows exactly this inline `<script>` or `<style>` text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Both policies' sources merged, each once. */
export function mergeCsp(a: Csp, b: Csp): Csp {
  const out: Record<string, readonly string[]> = { ...a };
  for (const [directive, sources] of Object.entries(b)) out[directive] = [...new Set([...(out[directive] ?? []), ...sources])];
  return out as Csp;
}

/** The origin of an http(s) URL as a CSP source, or null for anything else (a CSP header must not carry the rest). */
export function originSource(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}

// One look for every small page (link pages, stats gates): a card with a margin on any screen, in
// the stats page's and the dashboard's palette (src/analytics/stats-page-style.ts), light or dark as
// the reader's system is. A page's own CSS that sets colours (a bio's theme) overrides them.
const STYLE = `*{box-sizing:border-box}:root{color-scheme:light dark;--bg:#f6f8fa;--card:#fff;--text:#1f2328;--muted:#59636e;--line:#d0d7de;--link:#0969da;--accent:#1f883d;--down:#cf222e}
@media(prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9198a1;--line:#3d444d;--link:#4493f8;--accent:#238636;--down:#f85149}}
body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--text);background:var(--bg)}
main{max-width:560px;margin:12vh auto;padding:32px;background:var(--card);border:1px solid var(--line);border-radius:12px;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:0 0 12px}p{margin:8px 0}a{color:var(--link)}.muted{color:var(--muted);font-size:.9rem}.center{text-align:center}
input,button,.btn{font:inherit;padding:8px 12px;border-radius:6px;border:1px solid var(--line)}button,.btn{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer;text-decoration:none;display:inline-block}
.error{color:var(--down)}form{display:flex;flex-wrap:wrap;gap:8px;margin-top:16px}form input{flex:1 1 12em;min-width:0}img{max-width:100%}ul{padding-left:1.2em}li{margin:6px 0}
@media(max-width:600px){main{margin:24px 16px;padding:20px}}`;
const STYLE_HASH = cspHash(STYLE);

/** What a page adds to the common one: head markup, more CSS, one inline script, sources its CSP must allow. */
export interface PageParts {
  head?: string;
  css?: string;
  script?: string;
  csp?: Csp;
  referrer?: 'no-referrer';
}

/**
 * A small self-contained HTML page (no CDN); `body` must already be escaped and carry no inline
 * `<script>`, `<style>` or `style=""`: the only inline code is the CSS and script given here,
 * which its CSP allows by hash.
 */
export function htmlPage(title: string, body: string, parts: PageParts = {}): Page {
  const css = parts.css ? STYLE + parts.css : STYLE;
  const script = parts.script === undefined ? '' : `<script>${parts.script}</script>`;
  const own: Csp = { 'style-src': [parts.css ? cspHash(css) : STYLE_HASH], ...(parts.script === undefined ? {} : { 'script-src': [cspHash(parts.script)] }) };
  return {
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${FAVICON_LINK}<style>${css}</style>${parts.head ?? ''}</head><body>${body}${script}</body></html>`,
    csp: mergeCsp(mergeCsp(own, FAVICON_CSP), parts.csp ?? {}),
    ...(parts.referrer ? { referrer: parts.referrer } : {}),
  };
}
