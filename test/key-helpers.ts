import { PUBLIC_API } from '../src/app.ts';
import { isApiPath } from '../src/http/error-body.ts';
import { testApp } from './helpers.ts';
import type { Reply } from './helpers.ts';

/**
 * Every route a key reaches: `METHOD pattern` under /api, public ones, per-method middleware and
 * the 405 answers in front of a less literal pattern (GET /api/url/add) aside.
 */
export async function keyedRoutes(): Promise<{ method: string; path: string }[]> {
  const { app, call } = await testApp();
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL' || !isApiPath(r.path) || PUBLIC_API.has(r.path) || seen.has(`${r.method} ${r.path}`)) continue;
    seen.add(`${r.method} ${r.path}`);
    // A 405 route in front of a less literal pattern of the same method (PUT /api/url/bulk/update,
    // before PUT /api/url/:id/update) is no route of its own. A GET is asked (its ids name no record);
    // other methods are not sent, as they may write: such a route is known by the pattern it shadows.
    if (r.method === 'GET' ? (await call('GET', filled(r.path))).status === 405 : shadows(app.routes, r)) continue;
    out.push({ method: r.method, path: r.path });
  }
  return out;
}

/** Whether another route of the same method has a less literal pattern that `r`'s path matches (so `r` is a 405 in front of it). */
function shadows(all: readonly { method: string; path: string }[], r: { method: string; path: string }): boolean {
  return all.some((o) => o.method === r.method && o.path !== r.path && o.path.includes(':') && new RegExp(`^${o.path.replace(/:\w+/g, '[^/]+')}$`).test(r.path));
}

/** A route's pattern with a value in each parameter (`:id` → 1): the scope check answers before any record is looked for. */
export function filled(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name === 'type' ? 'links' : name === 'filename' ? 'notes.txt' : '1'));
}

/** Makes a scoped key through the API with `key` and returns it (fails the test when refused). */
export async function makeKey(call: (method: string, path: string, opts?: { key?: string | null; body?: unknown }) => Promise<Reply>, key: string, body: Record<string, unknown>): Promise<{ id: number; apikey: string }> {
  const r = await call('POST', '/api/keys', { key, body: { name: 'a key', ...body } });
  if (r.status !== 200) throw new Error(`POST /api/keys ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return { id: r.body.id, apikey: r.body.apikey };
}
