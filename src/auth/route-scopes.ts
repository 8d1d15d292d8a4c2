import type { Resource } from '../resources/define.ts';
import { ALL_SCOPES } from './scopes.ts';
import type { ScopeAreaName } from './scopes.ts';

/** What a route of either API needs of a key, and how the audit log names what it does. */
export interface RouteRule {
  /** The one scope the route needs: `links:read`, `websites:write`, or `*` (admin routes, and key rotation). */
  scope: string;
  /** A write (audited): any method but GET and HEAD, except the wrapper calls that read by POST; and the GET that makes a sign-in link. */
  write: boolean;
  /** The area, or the collection of an admin row (`users`), as the audit log names it. */
  resource: string;
}

/**
 * Areas of the routes outside the rows' own path segments (the row of a segment gives its area
 * otherwise: `/api/url/get` is a links route because `/api/url/:id` is the links row's). Webhooks
 * and imports are named ahead of their routes, which then need nothing here.
 */
const EXTRA_SEGMENTS: Readonly<Record<string, ScopeAreaName | typeof ALL_SCOPES>> = {
  account: 'account',
  'v1/account': 'account',
  plans: 'account',
  plan: ALL_SCOPES,
  'v1/stats': 'stats',
  webhooks: 'webhooks',
  events: 'webhooks',
  import: 'links',
};

/** The vendor's PHP wrapper reads with POST (src/routes/link-api/wrapper-calls.ts). */
const READS_BY_POST = new Set(['/api/url/get', '/api/url/stats', '/api/user/get']);

/** A GET that changes something: the real product's sign-in link replaces the user's pending one (login-links.ts), so it is audited. */
const WRITES_BY_GET = new Set(['/api/user/login/:id']);

/** Routes that need `*` whatever their area: a rotation makes a new account key, which holds every scope. */
const WHOLE_KEY_ROUTES = new Set(['/api/account/rotate-key']);

/** `/api/url/:id` → `url`, `/api/v1/stats/:id` → `v1/stats`: what names a route's area. */
export function segmentOf(path: string): string | null {
  const m = /^\/api\/((?:v1\/)?[^/]+)/.exec(path);
  return m?.[1] ?? null;
}

/** Which scope, verb and resource every route of both APIs has, derived from the rows' paths. */
export class RouteScopes {
  private readonly areas = new Map<string, { area: ScopeAreaName | typeof ALL_SCOPES; resource: string }>();
  private readonly memo = new Map<string, RouteRule | null>();

  constructor(rows: readonly Resource[]) {
    for (const row of rows) {
      if (!row.scope) continue;
      for (const path of Object.values(row.paths)) {
        const segment = path === undefined ? null : segmentOf(path);
        if (segment === null) continue;
        const had = this.areas.get(segment);
        if (had && had.area !== row.scope) throw new Error(`route scopes: /api/${segment} belongs to two areas (${had.area}, ${row.scope})`);
        this.areas.set(segment, { area: row.scope, resource: row.scope === ALL_SCOPES ? row.collection : row.scope });
      }
    }
    for (const [segment, area] of Object.entries(EXTRA_SEGMENTS)) {
      if (!this.areas.has(segment)) this.areas.set(segment, { area, resource: area === ALL_SCOPES ? segment : area });
    }
  }

  /** The rule of a route (its Hono pattern, or a request's method and pattern), or null outside the areas (public routes, unknown paths). */
  of(method: string, path: string): RouteRule | null {
    // Keyed by read or not, never by the method itself: a route for every method sees any token a client sends.
    const reading = /^(GET|HEAD)$/i.test(method);
    const key = `${reading ? 'R' : 'W'} ${path}`;
    let rule = this.memo.get(key);
    if (rule === undefined) {
      rule = this.derive(reading, path);
      this.memo.set(key, rule);
    }
    return rule;
  }

  private derive(reading: boolean, path: string): RouteRule | null {
    const segment = segmentOf(path);
    const found = segment === null ? undefined : this.areas.get(segment);
    if (!found) return null;
    const write = reading ? WRITES_BY_GET.has(path) : !READS_BY_POST.has(path);
    const whole = found.area === ALL_SCOPES || WHOLE_KEY_ROUTES.has(path);
    return { scope: whole ? ALL_SCOPES : `${found.area}:${write ? 'write' : 'read'}`, write, resource: found.resource };
  }
}
