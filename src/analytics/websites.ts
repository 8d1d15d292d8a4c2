import * as v from 'valibot';
import { hashPassword } from '../auth/passwords.ts';
import { ApiError } from '../errors.ts';
import { createSchema, defineResource, updateSchema } from '../resources/define.ts';
import type { HookContext, Resource } from '../resources/define.ts';
import type { StoreReads, StoredRecord } from '../store/store.ts';
import { normalizeDomain } from '../visits/domain.ts';
import { parseIpRanges } from '../visits/ip-range.ts';
import { booleanField, choiceField, linesField, textField } from './form-fields.ts';
import { addError, throwIfAny, validate } from './laravel-errors.ts';
import { websiteSubject } from './website-subject.ts';
import { isFirstOfDomain } from './website-ownership.ts';
import type { FieldErrors } from './laravel-errors.ts';
import { int, laravelTime as laravelTimeShape, str } from '../resources/shapes.ts';
import { websiteEventData } from '../events/event-data.ts';

const TAKEN = 'The domain has already been taken.';
const DOMAIN_TAKEN = () => new ApiError(422, TAKEN, { domain: [TAKEN] });

/** Request fields of websites (../shared/spec/api-reference.md, "Analytics API: websites"). */
export const websiteFields = {
  domain: v.pipe(
    textField('domain', 255),
    v.transform((s) => normalizeDomain(s) ?? ''),
    v.minLength(1, 'The domain must be a valid domain name.'),
  ),
  privacy: choiceField('privacy', [0, 1, 2]),
  password: v.pipe(textField('password', 128), v.minLength(1, 'The password must be at least 1 characters.')),
  email: choiceField('email', [0, 1]),
  exclude_bots: choiceField('exclude_bots', [0, 1]),
  exclude_params: linesField('exclude_params', 10000),
  exclude_ips: v.pipe(
    linesField('exclude_ips', 10000),
    v.check(
      (text) => parseIpRanges(text).invalid.length === 0,
      (issue) => `The exclude ips contains invalid IP addresses or ranges: ${parseIpRanges(String(issue.input)).invalid.join(', ')}.`,
    ),
  ),
  favorite: booleanField('favorite'),
};

/** A stored website; `password` is an scrypt hash or null. */
export type Website = StoredRecord & {
  userId: number;
  domain: string;
  privacy: 0 | 1 | 2;
  email: 0 | 1;
  password: string | null;
  exclude_bots: 0 | 1;
  exclude_params: string;
  exclude_ips: string;
  favorite: boolean;
  /** When it was last made a favourite; null when it is not one (absent on records stored before it was kept). */
  favorited_at?: string | null;
  /** Whether it receives its domain's events (one website of a domain does); absent on records stored before several users could track a domain, all of which did. */
  receives?: boolean;
  /** When its user last proved owning the domain; null when never, or when another website proved it since. */
  verified_at?: string | null;
  created_at: string;
  updated_at: string;
};

/** Laravel's ISO-8601 timestamp with microseconds: `2026-11-21T10:00:00.000000Z`. */
export function laravelTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** The public shape of a website: whether a password is set, never the hash. */
export function websiteEntry(w: Website): Record<string, unknown> {
  return {
    id: w.id,
    domain: w.domain,
    privacy: w.privacy,
    email: w.email,
    password: w.password !== null,
    exclude_bots: w.exclude_bots,
    exclude_params: w.exclude_params,
    exclude_ips: w.exclude_ips,
    favorite: w.favorite,
    // Records stored before favorited_at was kept: their last change is the best estimate.
    favorited_at: w.favorited_at !== undefined ? w.favorited_at : w.favorite ? w.updated_at : null,
    receives_events: receivesEvents(w),
    verified_at: w.verified_at ?? null,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

/** Whether a website receives its domain's events. */
export function receivesEvents(w: Pick<Website, 'receives'>): boolean {
  return w.receives !== false;
}

/** The key of a user's website of a domain: one per user and domain. */
export function ownDomainKey(userId: number, domain: string): string {
  return `${userId}\n${domain}`;
}

// Only the user's own websites: whether another user tracks the domain is never told.
async function domainTaken(reads: StoreReads, userId: number, domain: unknown): Promise<boolean> {
  return typeof domain === 'string' && (await reads.lookup('websites', 'ownDomain', ownDomainKey(userId, domain))) !== undefined;
}

// Laravel's ConvertEmptyStringsToNull: an empty form field counts as not sent, except for the
// lists, where an empty value clears them.
function withoutBlanks(raw: Record<string, unknown>): Record<string, unknown> {
  const keep = (k: string, value: unknown) => value !== '' || k === 'exclude_params' || k === 'exclude_ips';
  return Object.fromEntries(Object.entries(raw).filter(([k, value]) => value !== null && keep(k, value)));
}

/**
 * Validates a create (no `existing`) or update body, reporting every field's problem at once:
 * the schema, the password required for privacy 2, the domain's uniqueness, and (update) a
 * domain change, which is refused rather than silently ignored so a client learns it had no effect.
 */
export async function parseWebsite(row: Resource, rawIn: Record<string, unknown>, ctx: HookContext, existing?: Website): Promise<Record<string, unknown>> {
  const raw = withoutBlanks(rawIn);
  const { output, errors } = validate(existing ? updateSchema(row) : createSchema(row), raw);
  const privacy = output?.privacy ?? (errors.privacy ? undefined : (existing?.privacy ?? 0));
  if (privacy === 2 && raw.password === undefined && !existing?.password) addError(errors, 'password', 'The password field is required when privacy is 2.');
  if (existing && raw.domain !== undefined) checkDomainUnchanged(errors, raw.domain, existing);
  const domain = typeof raw.domain === 'string' && !errors.domain ? normalizeDomain(raw.domain) : null;
  if (!existing && (await domainTaken(ctx.store, ctx.user.id, domain))) addError(errors, 'domain', TAKEN);
  throwIfAny(errors);
  return output ?? {};
}

function checkDomainUnchanged(errors: FieldErrors, raw: unknown, existing: Website): void {
  const same = typeof raw === 'string' && normalizeDomain(raw) === existing.domain;
  if (!same) addError(errors, 'domain', 'The domain cannot be changed.');
}

/** Websites of the analytics API: a row of the same table, served by its own routes (src/routes/analytics/websites.ts). */
export const websites = defineResource<typeof websiteFields, Website>({
  name: 'website',
  collection: 'websites',
  api: 'analytics',
  scope: 'websites',
  owned: true,
  fields: websiteFields,
  events: { created: 'website.created', data: websiteEventData },
  create: { required: ['domain'], defaults: { privacy: 0, email: 0, exclude_bots: 1, exclude_params: '', exclude_ips: '', favorite: false } },
  update: { required: [], fields: ['privacy', 'password', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite'] },
  paths: { list: '/api/v1/websites', get: '/api/v1/websites/:id', create: '/api/v1/websites', update: '/api/v1/websites/:id', remove: '/api/v1/websites/:id' },
  listKey: 'data',
  shapes: {
    entry: {
      id: int,
      domain: str,
      privacy: v.picklist([0, 1, 2]),
      email: v.picklist([0, 1]),
      password: v.boolean(),
      exclude_bots: v.picklist([0, 1]),
      exclude_params: str,
      exclude_ips: str,
      favorite: v.boolean(),
      favorited_at: v.nullable(laravelTimeShape),
      receives_events: v.boolean(),
      verified_at: v.nullable(laravelTimeShape),
      created_at: laravelTimeShape,
      updated_at: laravelTimeShape,
    },
  },
  // `domain`: whether a domain has any website; `ownDomain`: one website per user and domain;
  // `receiving`: the one website that receives a domain's events (src/analytics/website-ownership.ts).
  indexes: {
    domain: (w) => w.domain,
    ownDomain: (w) => (typeof w.userId === 'number' ? ownDomainKey(w.userId, w.domain) : null),
    receiving: (w) => (receivesEvents(w) ? w.domain : null),
  },
  // A conflict on `receiving` is a race with another user's write of the domain: the write is run
  // again (transact's retryOn) and then sees it; this answer is for a race that never settles.
  unique: { ownDomain: () => DOMAIN_TAKEN(), receiving: () => new ApiError(503, 'Please try again.') },
  searchable: ['domain'],
  sortable: ['id', 'domain'],
  messages: { notFound: 'Resource not found.', updated: 'Website updated.', deleted: 'Website deleted.' },
  example: (n) => ({ domain: `site${n}.example.com`, privacy: n % 2, exclude_params: 'fbclid\nutm_source', exclude_ips: '10.0.0.0/8' }),
  entry: websiteEntry,
  listQuery(query) {
    // The query was validated: `favorite` is "true" or "false" here.
    return query.favorite === undefined ? {} : { conditions: [{ field: 'favorite', equals: query.favorite === 'true' }] };
  },
  async prepare(input, ctx, existing) {
    const now = laravelTime(ctx.clock.now());
    const fields: Record<string, unknown> = { ...input, updated_at: now };
    if (!existing) {
      fields.created_at = now;
      fields.password ??= null;
      fields.verified_at = null;
    }
    // The real product stamps the moment a website becomes a favourite, and clears it when it stops being one.
    if (input.favorite === true && !existing?.favorite) fields.favorited_at = now;
    else if (input.favorite === false || (!existing && input.favorite !== true)) fields.favorited_at = null;
    if (typeof input.password === 'string') fields.password = await hashPassword(input.password);
    return { fields };
  },
  async onDelete(tx, website, ctx) {
    await ctx.counters.dropSubject(tx, websiteSubject(website.id));
  },
  async check(fields, ctx, tx, existing) {
    if (existing) return;
    // Again inside the write: two requests of one user racing for one domain cannot both pass.
    if (await domainTaken(tx, ctx.user.id, fields.domain)) throw DOMAIN_TAKEN();
    // Decided inside the write, as what it reads may change until then: a domain's first website
    // receives its events; a later one only once its user proves owning the domain.
    fields.receives = await isFirstOfDomain(tx, String(fields.domain));
  },
});
