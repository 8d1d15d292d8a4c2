import { FAVICON_LINK } from '../html/favicon.ts';
import { escapeHtml } from '../html/page.ts';
import { SCOPE_AREAS, verbsOf } from '../auth/scopes.ts';
import type { ScopeAreaName } from '../auth/scopes.ts';
import type { OpenApiDocument } from './document.ts';
import { breakable, curlExample, fieldRows, fieldTable, markdown, resolve, rulesText, typeText } from './docs-text.ts';
import type { Schema } from './json-schema.ts';

const STYLE = `*{box-sizing:border-box}body{margin:0;font:15px/1.55 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
.wrap{display:grid;grid-template-columns:280px minmax(0,1fr);grid-template-areas:"nav intro" "nav main";gap:0 24px;max-width:1280px;margin:0 auto;padding:24px}
.intro{grid-area:intro}main{grid-area:main;min-width:0}
nav{grid-area:nav;position:sticky;top:16px;align-self:start;max-height:calc(100vh - 32px);overflow:auto;overflow-wrap:break-word;font-size:13px}
nav h2{font-size:13px;margin:14px 0 4px;text-transform:uppercase;color:#59636e}nav ul{list-style:none;margin:0;padding:0}nav li{margin:2px 0}
nav a{color:#1f2328;text-decoration:none}nav a:hover{text-decoration:underline}
header,.start,section>article,.tag{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:18px 22px;margin-bottom:16px}
h1{margin:0 0 6px;font-size:1.6rem}h2{margin:28px 0 8px}h3{margin:0 0 6px;font-size:1.05rem;overflow-wrap:break-word}h4{margin:14px 0 6px;font-size:.95rem}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}code{background:#eff2f5;padding:1px 4px;border-radius:4px}p>code:not(.nw),li>code:not(.nw){overflow-wrap:anywhere}
pre{background:#0d1117;color:#e6edf3;padding:12px;border-radius:8px;overflow:auto}
.t{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:13px;margin:4px 0}th,td{border-bottom:1px solid #e4e7eb;padding:5px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th,.nw{white-space:nowrap}.start h2{margin-top:0}td>p,td>ul{margin:0}td>p+p,td>details{margin-top:4px}
th{background:#f6f8fa}.m{display:inline-block;min-width:64px;text-align:center;border-radius:5px;color:#fff;font:600 12px/22px ui-monospace,monospace;margin-right:8px}
.get{background:#0969da}.post{background:#1f883d}.put{background:#9a6700}.patch{background:#8250df}.delete{background:#cf222e}.options{background:#59636e}
.ext{display:inline-block;background:#fff8c5;border:1px solid #d4a72c;border-radius:10px;padding:0 8px;font-size:12px;margin-left:6px}
.req{color:#cf222e;font-size:11px}.muted{color:#59636e}details summary{cursor:pointer}
@media(max-width:900px){.wrap{grid-template-columns:minmax(0,1fr);grid-template-areas:"intro" "nav" "main";padding:12px}nav{position:static;max-height:none;background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:4px 16px 12px;margin-bottom:16px}header,.start,section>article,.tag{padding:14px}}`;

type Op = Record<string, unknown>;
interface Entry {
  path: string;
  method: string;
  op: Op;
}

const anchor = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-');

/** The operations of the document grouped by their first tag, in the order of the document's tags. */
function byTag(doc: OpenApiDocument): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>(((doc.tags ?? []) as { name: string }[]).map((t) => [t.name, []]));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = ((op.tags as string[] | undefined) ?? ['Other'])[0] as string;
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ path, method, op });
    }
  }
  return groups;
}

function parameterTable(doc: OpenApiDocument, op: Op): string {
  const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  if (params.length === 0) return '';
  const rows = params
    .map((p) => {
      const rules = [p.description ?? '', rulesText(p.schema ?? {})].filter(Boolean).join(' ');
      const req = p.required ? ' <span class="req">required</span>' : '';
      // A name is one word (Idempotency-Key): never broken at its hyphen.
      return `<tr><td><code class="nw">${escapeHtml(p.name)}</code>${req}</td><td>${p.in}</td><td>${escapeHtml(typeText(doc, p.schema))}</td><td>${markdown(rules)}</td></tr>`;
    })
    .join('');
  return `<h4>Parameters</h4><div class="t"><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function bodySection(doc: OpenApiDocument, op: Op): string {
  const body = op.requestBody as { required?: boolean; content: Record<string, { schema?: Schema }> } | undefined;
  if (!body) return '';
  const types = Object.keys(body.content);
  const schema = body.content[types[0] as string]?.schema;
  const name = resolve(doc, schema).name;
  const head = `<h4>Body</h4><p class="muted">${types.map((t) => `<code>${breakable(t)}</code>`).join(' or ')}${name ? ` · ${escapeHtml(name)}` : ''}${body.required ? '' : ' · may be empty'}</p>`;
  return head + fieldTable(fieldRows(doc, schema));
}

function responseSection(doc: OpenApiDocument, op: Op): string {
  const responses = (op.responses ?? {}) as Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: Schema }> }>;
  const rows = Object.entries(responses)
    .map(([status, r]) => {
      const types = Object.keys(r.content ?? {});
      const schema = Object.values(r.content ?? {})[0]?.schema;
      // Error bodies are described once, at the top of the page.
      const fields = schema && Number(status) < 400 ? fieldRows(doc, schema) : [];
      const what = types.length > 0 ? `${types.map((t) => `<code>${breakable(t)}</code>`).join(' or ')}${schema ? ` ${breakable(typeText(doc, schema))}` : ''}` : '<span class="muted">no body</span>';
      const headers = Object.keys(r.headers ?? {}).map((h) => `<code class="nw">${escapeHtml(h)}</code>`).join(' ');
      const detail = fields.length > 0 ? `<details><summary>fields</summary>${fieldTable(fields)}</details>` : '';
      return `<tr><td><strong>${status}</strong></td><td>${markdown(r.description)}${detail}</td><td>${what}</td><td>${headers}</td></tr>`;
    })
    .join('');
  return `<h4>Responses</h4><div class="t"><table><thead><tr><th>Status</th><th>Meaning</th><th>Body</th><th>Headers</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function operationHtml(doc: OpenApiDocument, e: Entry): string {
  const { op } = e;
  const id = anchor(String(op.operationId ?? `${e.method}-${e.path}`));
  const ext = op['x-extension'] ? '<span class="ext">extension</span>' : '';
  const auth = Array.isArray(op.security) && op.security.length === 0 ? '<span class="muted"> · no key</span>' : scopeNote(op);
  return `<article id="${id}"><h3><span class="m ${e.method}">${e.method.toUpperCase()}</span><code>${breakable(e.path)}</code>${ext}</h3>
<p><strong>${escapeHtml(String(op.summary ?? ''))}</strong>${auth}</p>${markdown(String(op.description ?? ''))}
${parameterTable(doc, op)}${bodySection(doc, op)}${responseSection(doc, op)}
<h4>Example</h4><pre>${escapeHtml(curlExample(doc, e.path, e.method, op))}</pre></article>`;
}

/** The scope a key needs for an operation (its security requirement's role), and whether only an admin may call it. */
function scopeNote(op: Op): string {
  const scope = ((op.security as { bearer?: string[] }[] | undefined)?.[0]?.bearer ?? [])[0];
  const admin = op['x-admin'] ? ' · admin only' : '';
  return scope ? `<span class="muted"> · scope <code class="nw">${escapeHtml(scope)}</code>${admin}</span>` : '';
}

/** The scopes of keys: each area with what it covers. */
function scopesSection(): string {
  const rows = (Object.keys(SCOPE_AREAS) as ScopeAreaName[])
    .map((area) => `<tr><td>${[...verbsOf(area).map((v) => `${area}:${v}`), ...(verbsOf(area).length > 1 ? [`${area}:*`] : [])].map((s) => `<code class="nw">${s}</code>`).join(' ')}</td><td>${markdown(SCOPE_AREAS[area].about)}</td></tr>`)
    .join('');
  return `<h4 id="scopes">Scopes of API keys</h4><p>The account key holds every scope. A key made with <code>POST /api/keys</code> holds the scopes it was given: <code>read</code> is GET, <code>write</code> every other method, <code>x:*</code> both, and <code>*</code> everything, admin routes included for an admin. Each operation below names the one scope it needs; without it the answer is 403.</p>
<div class="t"><table><thead><tr><th>Scopes</th><th>Covers</th></tr></thead><tbody><tr><td><code>*</code></td><td>Everything, the admin routes and key rotation included.</td></tr>${rows}</tbody></table></div>`;
}

/** The error bodies of both APIs, the schemas every error response of the page names. */
function errorBodies(doc: OpenApiDocument): string {
  const names = Object.keys((doc.components as { schemas: Record<string, unknown> }).schemas).filter((n) => n.endsWith('Error'));
  const tables = names.map((n) => `<h4>${escapeHtml(n)}</h4>${fieldTable(fieldRows(doc, { $ref: `#/components/schemas/${n}` }))}`).join('');
  return `<section id="errors"><h2>Error bodies</h2><div class="tag">${tables}</div></section>`;
}

/** How to authenticate and a first request, with this server's address. */
function gettingStarted(server: string): string {
  const base = server.replace(/\/$/, '');
  const first = `curl ${base}/api/account \\\n  -H 'Authorization: Bearer YOUR_API_KEY'`;
  const link = `curl -X POST ${base}/api/url/add \\\n  -H 'Authorization: Bearer YOUR_API_KEY' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"url":"https://example.com/a-long-page"}'`;
  return `<section class="start" id="start"><h2>Getting started</h2>
<p>Every request of both APIs sends an API key as a bearer token: <code>Authorization: Bearer YOUR_API_KEY</code>. On its first start the server creates an admin user and prints its key once (<code>Admin API key: sk_…</code>), or takes the one set in <code>ADMIN_API_KEY</code>; the admin creates users (<code>POST /api/user/add</code>), each with a key of their own.</p>
<h4>A first request: your account</h4><pre>${escapeHtml(first)}</pre>
<h4>Shorten a link</h4><pre>${escapeHtml(link)}</pre><p class="muted">The answer's <code>shorturl</code> redirects to the page. Errors answer a JSON body with a meaningful HTTP status (see <a href="#errors">Error bodies</a>).</p>${scopesSection()}</section>`;
}

/** The API reference page of a document: self-contained HTML (inline CSS, no script), grouped by tag. */
export function docsPageHtml(doc: OpenApiDocument): string {
  const info = doc.info as { title: string; version: string; description?: string };
  const tags = new Map(((doc.tags ?? []) as { name: string; description?: string }[]).map((t) => [t.name, t.description ?? '']));
  const groups = [...byTag(doc)].filter(([, ops]) => ops.length > 0);
  const nav = groups
    .map(([tag, ops]) => `<h2><a href="#tag-${anchor(tag)}">${escapeHtml(tag)}</a></h2><ul>${ops.map((e) => `<li><a href="#${anchor(String(e.op.operationId))}"><span class="muted">${e.method.toUpperCase()}</span> ${breakable(e.path)}</a></li>`).join('')}</ul>`)
    .join('') + `<h2><a href="#errors">Error bodies</a></h2>`;
  const sections = groups
    .map(([tag, ops]) => `<section id="tag-${anchor(tag)}"><h2>${escapeHtml(tag)}</h2><div class="tag">${markdown(tags.get(tag) ?? '')}</div>${ops.map((e) => operationHtml(doc, e)).join('\n')}</section>`)
    .join('\n');
  const server = (doc.servers as { url: string }[] | undefined)?.[0]?.url ?? '';
  // Title, introduction and a first request come first; on a phone the endpoint list follows them.
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(info.title)} — API reference</title>${FAVICON_LINK}<style>${STYLE}</style></head><body><div class="wrap"><div class="intro">
<header><h1>${escapeHtml(info.title)}</h1><p class="muted">Version ${escapeHtml(info.version)} · ${escapeHtml(server)} · <a href="/openapi.json">openapi.json</a></p>${markdown(info.description ?? '')}</header>
${gettingStarted(server)}</div><nav aria-label="Endpoints">${nav}</nav><main>
${sections}${errorBodies(doc)}</main></div></body></html>`;
}
