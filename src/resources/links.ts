import * as v from 'valibot';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { ApiError } from '../errors.ts';
import { aliasKey, generateAlias, isReservedAlias } from '../links/alias.ts';
import { shortAliasTaken } from '../links/alias-taken.ts';
import { linkFields } from '../links/fields.ts';
import { linkEntries, linkEntry, linkSingle, shortUrlOf } from '../links/shape.ts';
import { subjectOf } from '../links/stats.ts';
import type { Link } from '../links/shape.ts';
import { defineResource } from './define.ts';
import { domainHostname } from './domains.ts';
import type { Domain } from './domains.ts';
import { mainHostnames } from '../links/main-host.ts';
import { readsOf } from './define.ts';
import type { HookContext } from './define.ts';
import { parseDateTime } from './fields.ts';
import { date, int, linkStatsShape, str } from './shapes.ts';
import { linkEventData } from '../events/event-data.ts';
import type { Condition } from '../store/store.ts';

const NOT_YOUR_DOMAIN = 'Invalid domain: it is not one of your branded domains.';

/**
 * The id of the user's branded domain a link names (null: the main host), matched by host name
 * whatever the scheme, letter case or trailing slash, or as a bare host (docs/compatibility.md).
 */
export async function domainIdOf(ctx: HookContext, domain: string): Promise<number | null> {
  if (domain.trim() === '') return null;
  const hostname = domainHostname(domain);
  if (hostname === null) throw new ApiError(400, NOT_YOUR_DOMAIN);
  if (mainHostnames(ctx.config).has(hostname)) return null;
  const mine = await readsOf(ctx).lookup<Domain>('domains', 'hostname', hostname);
  if (mine?.userId !== ctx.user.id) throw new ApiError(400, NOT_YOUR_DOMAIN);
  return mine.id;
}

const ALIAS_TAKEN = 'That alias is taken. Please choose another one.';
// A made-up alias left to the store's own refusal (HookContext.clashRetried): looked up nowhere.
const unlooked = (): boolean => false;
const refuseTaken = (taken: boolean): void => {
  if (taken) throw new ApiError(400, ALIAS_TAKEN);
};

function typeFields(type: string): Record<string, unknown> {
  if (/^\d+$/.test(type)) return { type: 'splash', splashId: Number(type), overlayId: null };
  if (type.startsWith('overlay-')) return { type: 'overlay', overlayId: Number(type.slice(8)), splashId: null };
  return { type, splashId: null, overlayId: null };
}

/** What makes two links of a user "identical" for the create-or-return rule (passwords aside). */
const sameLinkKey = (l: Pick<Link, 'userId' | 'url' | 'domainId' | 'type' | 'splashId' | 'overlayId'>) => sameKeyOf(l.userId, l);

/** sameLinkKey of fields about to be stored for `userId` (without copying them into a record first: a bulk request makes a thousand). */
const sameKeyOf = (userId: number, l: Partial<Pick<Link, 'url' | 'domainId' | 'type' | 'splashId' | 'overlayId'>>) =>
  `${userId}\n${l.url}\n${l.domainId ?? 0}\n${l.type}\n${l.splashId ?? 0}\n${l.overlayId ?? 0}`;

function findDuplicate(ctx: HookContext, f: Record<string, unknown>, password: string | undefined): Promise<Link | undefined> {
  // Links without a password are indexed, so this costs the same at any size (the lookup's own promise, no other: a bulk create asks a thousand times);
  // a protected one must be compared by its salted hash, which no index can do (protected creates are rare).
  if (!password) return readsOf(ctx).lookup<Link>('links', 'same', sameKeyOf(ctx.user.id, f as Partial<Link>));
  return findProtected(ctx, f, password);
}

async function findProtected(ctx: HookContext, f: Record<string, unknown>, password: string): Promise<Link | undefined> {
  const fields = ['url', 'domainId', 'type', 'splashId', 'overlayId'] as const;
  // Only protected links can match (`present` also lets PostgreSQL's index of protected links' urls answer).
  const conditions: Condition[] = [...fields.map((field) => ({ field, equals: (f[field] ?? null) as string | number | null })), { field: 'password', present: true }];
  const same = await ctx.store.find<Link>('links', { owner: ctx.user.id, conditions, sort: { field: 'id', direction: 'asc' } });
  for (const l of same.items) {
    if (l.password && (await verifyPassword(password, l.password))) return l;
  }
  return undefined;
}


/**
 * What an update that leaves these out stores: the real product rebuilds a link from the update
 * request, so its targets, password, branded domain, expiry, pixels, deep link, parameters and
 * description go when not sent. The url, alias, type, status, meta fields, campaign and channels stay.
 */
const RESET_VALUES = {
  password: { password: null },
  domain: { domainId: null },
  expiry: { expiry: undefined },
  geotarget: { geotarget: undefined },
  devicetarget: { devicetarget: undefined },
  languagetarget: { languagetarget: undefined },
  parameters: { parameters: undefined },
  pixels: { pixels: [] },
  deeplink: { deeplink: undefined },
  description: { description: undefined },
} as const satisfies Partial<Record<keyof typeof linkFields, Partial<Link>>>;
const LINK_RESETS = Object.keys(RESET_VALUES) as (keyof typeof RESET_VALUES)[];
// The same, as [request field, [stored field, value]…], read once rather than per link.
const RESET_ENTRIES = LINK_RESETS.map((field) => [field, Object.entries(RESET_VALUES[field])] as const);

/** Resets, in the fields to store, every field of RESET_VALUES the request left out (a new link starts without them too). */
function resetOmitted(input: Record<string, unknown>, f: Record<string, unknown>, updating: boolean): void {
  for (const [field, values] of RESET_ENTRIES) {
    if (input[field] !== undefined) continue;
    // A new record simply lacks a removed field; an update must name it to replace the stored value.
    // Each record gets its own copy of an array (never one shared list); null and undefined are values.
    for (const [key, value] of values) if (updating || value !== undefined) f[key] = Array.isArray(value) ? [...value] : value;
  }
}

const target = (key: string) => v.record(str, str);
const linkDetailsShape = {
  id: int,
  alias: str,
  shorturl: str,
  longurl: str,
  title: str,
  description: str,
  location: target('location'),
  device: target('device'),
  language: target('language'),
  expiry: v.nullable(date),
  password: v.boolean(),
  type: v.picklist(['direct', 'frame', 'splash', 'overlay']),
  pixels: v.array(int),
  campaign: v.nullable(int),
  channel: v.array(int),
  status: v.picklist(['public', 'private']),
  date,
};

/** Short links: the reference's empty "Links" section, shaped as the real product's API. */
export const links = defineResource<typeof linkFields, Link>({
  name: 'link',
  collection: 'links',
  api: 'link',
  scope: 'links',
  owned: true,
  extension: true,
  fields: linkFields,
  events: { created: 'link.created', updated: 'link.updated', deleted: 'link.deleted', data: linkEventData },
  create: { required: ['url'] },
  update: { required: [], resets: LINK_RESETS },
  paths: { list: '/api/urls', get: '/api/url/:id', create: '/api/url/add', update: '/api/url/:id/update', remove: '/api/url/:id/delete' },
  listKey: 'urls',
  shapes: {
    entry: { id: int, alias: str, shorturl: str, longurl: str, title: str, description: str, clicks: int, uniqueclicks: int, domain: str, campaign: v.nullable(int), channel: v.array(int), date },
    single: { id: int, details: v.strictObject(linkDetailsShape), data: linkStatsShape },
    created: { id: int, shorturl: str },
    updated: { id: int, shorturl: str },
  },
  searchable: ['url', 'alias', 'title'],
  references: {
    pixels: { collection: 'pixels', many: true },
    channels: { collection: 'channels', many: true, from: 'channel' },
    campaign: { collection: 'campaigns' },
    domainId: { collection: 'domains', from: 'domain' },
    splashId: { collection: 'splash', from: 'type' },
    overlayId: { collection: 'overlays', from: 'type' },
  },
  indexes: { alias: (l) => aliasKey(l.domainId, l.alias), same: (l) => (l.password ? null : sameLinkKey(l)) },
  unique: { alias: () => new ApiError(400, ALIAS_TAKEN) },
  messages: { notFound: 'Link does not exist.', updated: 'Link has been successfully updated.', deleted: 'Link has been successfully deleted.' },
  example: (n) => ({ url: `https://example.com/page/${n}`, custom: `link-${n}`, description: `Example ${n}` }),
  entry: linkEntry,
  entries: linkEntries,
  single: linkSingle,
  // On the main host the short URL needs no read (a bulk create answers a thousand of them).
  created: (l, ctx) => (l.domainId === null ? { id: l.id, shorturl: `${ctx.config.baseUrl}/${l.alias}` } : shortUrlOf(l, ctx).then((shorturl) => ({ id: l.id, shorturl }))),
  updated: async (l, ctx) => ({ id: l.id, shorturl: await shortUrlOf(l, ctx) }),
  listQuery(query) {
    // As the real product: `click` orders by clicks, anything else (absent, `date`, a typo) by date.
    if (query.order === 'click') return { sort: { counter: 'clicks', subjectPrefix: subjectOf('link', 0).slice(0, -1), direction: 'desc' } };
    return {};
  },
  async prepare(input, ctx, existing) {
    const { custom, channel, domain, password, type, metatitle, expiry, ...rest } = input as Record<string, unknown> & Partial<Record<'custom' | 'domain' | 'password' | 'type' | 'metatitle' | 'expiry', string>> & { channel?: number };
    // `rest` is a fresh object already: the fields to store start as it.
    const f: Record<string, unknown> = rest;
    if (type !== undefined) Object.assign(f, typeFields(type));
    else if (!existing) Object.assign(f, typeFields('direct'));
    if (domain !== undefined) f.domainId = await domainIdOf(ctx, domain);
    if (metatitle !== undefined) Object.assign(f, { metatitle, title: metatitle });
    if (expiry !== undefined) {
      if (parseDateTime(expiry) <= ctx.clock.now()) throw new ApiError(400, 'The expiry date must be later than today.');
      f.expiry = expiry;
    }
    if (channel !== undefined) f.channels = [...new Set([...((existing?.channels as number[]) ?? []), channel])];
    resetOmitted(input, f, existing !== undefined);
    if (!existing) {
      f.channels ??= [];
      // As the real product: a new link is private unless the request says public.
      f.title ??= '';
      f.campaign ??= null;
      f.pixels ??= [];
      f.status ??= 'private';
      const dup = custom === undefined ? await findDuplicate(ctx, f, password) : undefined;
      if (dup) return { fields: f, existing: dup };
    }
    if (password !== undefined) f.password = password === '' ? null : await hashPassword(password);
    if (custom !== undefined) f.alias = custom;
    return { fields: f };
  },
  // Without a custom alias, an equal link is answered, not stored again (findDuplicate); a protected one by its password.
  duplicateKey: (input, f, ctx) => (input.custom === undefined ? `${sameKeyOf(ctx.user.id, f as Partial<Link>)}\n${(input.password as string | undefined) ?? ''}` : null),
  async onDelete(tx, link, ctx) {
    await ctx.counters.dropSubject(tx, subjectOf('link', link.id));
  },
  // No promise when the reads answer at once (the file store): a bulk create checks a thousand links.
  check(f, ctx, tx, existing) {
    const domainId = (f.domainId !== undefined ? f.domainId : (existing?.domainId ?? null)) as number | null;
    const alias = (f.alias as string | undefined) ?? existing?.alias;
    if (f.alias !== undefined && isReservedAlias(alias!)) throw new ApiError(400, 'That alias is reserved. Please choose another one.');
    const self = existing && { collection: 'links', id: existing.id };
    if (alias === undefined) {
      // A clash is the store's to refuse here, and the item is then checked again alone, looking.
      // No closure made unless it looks: a thousand per bulk create.
      const leftToStore = ctx.clashRetried && ctx.store.refusesShortAliasClashes;
      const made = generateAlias(ctx.random, leftToStore ? unlooked : (a) => shortAliasTaken(tx, ctx, domainId, a, self));
      if (made instanceof Promise) return made.then((a) => void (f.alias = a));
      f.alias = made;
      return;
    }
    const known = shortAliasTaken(tx, ctx, domainId, alias, self);
    if (known instanceof Promise) return known.then((yes) => refuseTaken(yes));
    refuseTaken(known);
  },
});
