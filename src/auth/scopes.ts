/**
 * Scopes of API keys: what a key may do, per area of the APIs and per verb. `links:read` reads
 * short links, `links:write` changes them, `links:*` does both, and `*` is everything, the admin
 * routes included. Which scope each route needs is derived from the resource table
 * (route-scopes.ts); this module only names the scopes and compares them.
 */

/** What a scope allows of an area: reading (GET), writing (every other method), or both. */
export type ScopeVerb = 'read' | 'write';

/** An area of the APIs: its words in the docs, and whether it has writes at all. */
export interface ScopeArea {
  about: string;
  readOnly?: true;
}

/** Every area a scope names, in the order the docs list them. */
export const SCOPE_AREAS = {
  links: { about: 'Short links (`/api/url…`, `/api/urls`), their statistics, and the wrapper calls that read them.' },
  qr: { about: 'QR codes (`/api/qr…`).' },
  campaigns: { about: 'Campaigns and the links in them (`/api/campaign…`).' },
  channels: { about: 'Channels and their items (`/api/channel…`).' },
  bios: { about: 'Bio pages (`/api/bio…`).' },
  domains: { about: 'Branded domains (`/api/domain…`).' },
  overlays: { about: 'CTA overlays (`/api/overlay…`).' },
  splash: { about: 'Custom splash pages (`/api/splash…`).' },
  pixels: { about: 'Tracking pixels (`/api/pixel…`).' },
  files: { about: 'Uploaded files (`/api/files…`).' },
  websites: { about: 'Tracked websites of the analytics API (`/api/v1/websites…`).' },
  stats: { about: 'Website statistics of the analytics API (`/api/v1/stats/:id`).', readOnly: true },
  webhooks: { about: 'Webhooks, their deliveries, test events and redeliveries (`/api/webhooks…`), and the event stream (`/api/events/stream`).' },
  keys: { about: 'The API keys of the account (`/api/keys…`).' },
  audit: { about: 'The audit log of the account (`/api/audit`).', readOnly: true },
  account: { about: 'The account (`/api/account`, `/api/v1/account`, `/api/plans`); rotating the account key needs `*`.' },
} as const satisfies Record<string, ScopeArea>;

/** The name of an area. */
export type ScopeAreaName = keyof typeof SCOPE_AREAS;

/** The scope of everything: every area, every verb, and the admin routes (for an admin's key). */
export const ALL_SCOPES = '*';

/** The verbs of an area's scopes: `read` and `write` (and `*`, both), or `read` only. */
export function verbsOf(area: ScopeAreaName): readonly ScopeVerb[] {
  return (SCOPE_AREAS[area] as ScopeArea).readOnly ? ['read'] : ['read', 'write'];
}

/** Every scope a key may hold, `*` first, then each area's `read`, `write` and `*`. */
export const SCOPES: readonly string[] = [
  ALL_SCOPES,
  ...(Object.keys(SCOPE_AREAS) as ScopeAreaName[]).flatMap((area) => {
    const verbs = verbsOf(area);
    return [...verbs.map((verb) => `${area}:${verb}`), ...(verbs.length > 1 ? [`${area}:*`] : [])];
  }),
];

const KNOWN = new Set(SCOPES);

/** Whether `scope` is one of SCOPES. */
export function isScope(scope: string): boolean {
  return KNOWN.has(scope);
}

/**
 * Whether the scopes `held` cover `needed` (a scope a route needs, or a whole scope a new key asks
 * for): `*` covers everything; `links:*` covers `links:read`, `links:write` and `links:*`; any other
 * scope covers only itself.
 */
export function covers(held: readonly string[], needed: string): boolean {
  for (const scope of held) {
    if (scope === ALL_SCOPES || scope === needed) return true;
    if (needed !== ALL_SCOPES && scope.endsWith(':*') && needed.startsWith(scope.slice(0, -1))) return true;
  }
  return false;
}

/** The scopes of a new key in their stored form: each once, in the order of SCOPES (unknown ones are the schema's to refuse). */
export function normalScopes(scopes: readonly string[]): string[] {
  const given = new Set(scopes);
  return SCOPES.filter((s) => given.has(s));
}
