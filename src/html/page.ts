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

const STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:560px;margin:12vh auto;padding:32px;background:#fff;border:1px solid #d0d7de;border-radius:12px}
h1{font-size:1.4rem;margin:0 0 12px}p{margin:8px 0}a{color:#0969da}.muted{color:#59636e;font-size:.9rem}
input,button{font:inherit;padding:8px 12px;border-radius:6px;border:1px solid #d0d7de}button{background:#1f883d;color:#fff;border-color:#1f883d;cursor:pointer}
.error{color:#cf222e}form{display:flex;gap:8px;margin-top:16px}form input{flex:1}img{max-width:100%}`;

/** A small self-contained HTML page (no CDN, inline CSS); `body` must already be escaped. */
export function htmlPage(title: string, body: string, extraHead = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style>${extraHead}</head><body>${body}</body></html>`;
}
