import * as v from 'valibot';
import { ApiError } from '../errors.ts';
import type { StoreReads, StoredRecord } from '../store/store.ts';
import { hostnameOf, refusingName } from '../links/main-host.ts';
import { moveLinksToMainHost } from '../links/move.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { checkPointsHere, checkTxtProof } from './domain-check.ts';
import { urlChecks } from './fields.ts';
import { int, str } from './shapes.ts';

/** A host name of two or more DNS labels, not an IP address, as the URL parser writes it (lowercase, punycode). */
function isHostName(host: string): boolean {
  const labels = host.split('.');
  return (
    host.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) &&
    !/^\d+$/.test(labels[labels.length - 1] ?? '')
  );
}

/** The origin of a branded domain (`https://example.com`, lowercase, port kept), or null when `raw` is not `http(s)://host` with nothing after it. */
export function domainOrigin(raw: string): string | null {
  if (!/^https?:\/\/[^/?#@\\]+\/?$/i.test(raw)) return null;
  try {
    const url = new URL(raw);
    return isHostName(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The host name a branded domain is known by, from however a client writes it: any scheme, letter
 * case, port or trailing slash, or a bare host (`go.example.com` names `https://go.example.com`).
 * Lowercase and punycode, as the URL parser writes it; null when `raw` names no host. The one rule
 * by which links find their domain (a host name belongs to one branded domain server-wide).
 */
export function domainHostname(raw: string): string | null {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  if (!/^https?:\/\/[^/?#@\\\s]+\/?$/i.test(withScheme)) return null;
  try {
    return new URL(withScheme).hostname.replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

/** An http(s) URL, stored as given like `httpUrl`, or the empty string ("none"); `name` names the field in its messages. */
export function urlOrEmpty(name: string) {
  const messages = { scheme: `${name} must start with http:// or https:// (or be empty).`, invalid: `${name} must be a valid http(s) URL or empty.` };
  return v.pipe(v.string(), v.trim(), ...urlChecks(messages, true));
}

const DOMAIN_RULE = 'Please enter a valid domain: http:// or https:// followed by a host name of two or more labels (such as go.example.com; not an IP address), with no path, query or credentials.';

/** Request fields of branded domains. */
export const domainFields = {
  domain: v.pipe(v.string(), v.trim(), v.maxLength(300, DOMAIN_RULE), v.check((s) => domainOrigin(s) !== null, DOMAIN_RULE), v.transform((s) => domainOrigin(s) ?? s)),
  redirectroot: urlOrEmpty('Root redirect'),
  redirect404: urlOrEmpty('404 redirect'),
};

/** A stored branded domain; `domain` is its origin. */
export type Domain = StoredRecord & { domain: string; redirectroot: string; redirect404: string; date: string };

const OWN_HOST = "That domain is this server's own host and cannot be added.";

/**
 * Throws when the domain names this server itself (BASE_URL, RESERVED_DOMAINS, or the Host the
 * request came by) or a subdomain of one of its configured names, falls under REFUSED_DOMAINS, or
 * is any user's branded domain, whatever the scheme or port: one name, one owner.
 */
async function checkDomainFree(origin: string, ctx: HookContext, reads: StoreReads): Promise<void> {
  const hostname = domainHostname(origin) ?? '';
  if (ctx.requestHost !== undefined && hostnameOf(ctx.requestHost) === hostname) throw new ApiError(400, OWN_HOST);
  const refused = refusingName(ctx.config, hostname);
  if (refused?.own) throw new ApiError(400, refused.name === hostname ? OWN_HOST : `That domain is under this server's own host ${refused.name} and cannot be added.`);
  if (refused) throw new ApiError(400, `Domains under ${refused.name} cannot be added on this server.`);
  // A scan, not an index: adds are rare, and an index of one record per name would lose a name that
  // older data holds twice (two ports) as soon as one of the two is deleted.
  // The candidates share the host's first letters (the origin holds the host after the scheme).
  const { items } = await reads.find<Domain>('domains', { search: { text: `//${hostname}`, fields: ['domain'] } });
  if (items.some((d) => domainHostname(d.domain) === hostname)) throw new ApiError(400, 'That domain is already in use.');
}

/** Branded domains: other host names serving a user's short links. */
export const domains = defineResource<typeof domainFields, Domain>({
  name: 'domain',
  collection: 'domains',
  api: 'link',
  scope: 'domains',
  owned: true,
  fields: domainFields,
  create: { required: ['domain'], defaults: { redirectroot: '', redirect404: '' } },
  // The domain itself cannot change: links on it would move.
  update: { required: [], fields: ['redirectroot', 'redirect404'] },
  paths: { list: '/api/domains', create: '/api/domain/add', update: '/api/domain/:id/update', remove: '/api/domain/:id/delete' },
  listKey: 'domains',
  shapes: { entry: { id: int, domain: str, redirectroot: str, redirect404: str } },
  searchable: ['domain'],
  // `host` (with the port) finds the domain a request came by; `hostname` keeps one name to one owner.
  indexes: { host: (d) => new URL(d.domain).host, hostname: (d) => domainHostname(d.domain) },
  unique: { hostname: () => new ApiError(400, 'That domain is already in use.') },
  messages: { notFound: 'Domain does not exist.', updated: 'Domain has been updated successfully.', deleted: 'Domain has been deleted successfully.' },
  example: (n) => ({ domain: `https://brand${n}.example.com`, redirectroot: `https://example.com/home-${n}`, redirect404: n % 2 ? '' : `https://example.com/missing-${n}` }),
  entry: (d) => ({ id: d.id, domain: d.domain, redirectroot: d.redirectroot, redirect404: d.redirect404 }),
  async prepare(input, ctx, existing) {
    if (existing) return { fields: input };
    const origin = String(input.domain);
    // Answer a taken domain before any DNS traffic; `check` repeats it inside the write.
    await checkDomainFree(origin, ctx, ctx.store);
    const host = new URL(origin).hostname;
    if (ctx.config.domainCheck === 'dns') await checkPointsHere(host, ctx.config.serverIp);
    if (ctx.config.domainCheck === 'txt') await checkTxtProof(host, ctx.user, ctx.proofs);
    return { fields: input };
  },
  async onDelete(tx, domain, ctx) {
    await moveLinksToMainHost(tx, ctx, domain.id);
  },
  async check(fields, ctx, tx) {
    if (typeof fields.domain === 'string') await checkDomainFree(fields.domain, ctx, tx);
  },
});
