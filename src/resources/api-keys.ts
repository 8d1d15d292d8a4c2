import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { API_KEYS } from '../auth/api-key-record.ts';
import type { ApiKeyRecord } from '../auth/api-key-record.ts';
import { ipEntryRange, keyExpired, rangesWithin } from '../auth/key-checks.ts';
import { SCOPED_KEY_TRUST_MS } from '../auth/key-index.ts';
import { generateApiKey, hashApiKey } from '../auth/keys.ts';
import { SCOPES, covers, normalScopes } from '../auth/scopes.ts';
import { ApiError } from '../errors.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { dateTime } from './fields.ts';
import { date, int, str } from './shapes.ts';

/** Entries of a key's address allow-list at most. */
export const MAX_KEY_ADDRESSES = 50;

/** Request fields of a new API key. */
export const apiKeyFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Key name cannot be empty.'), v.maxLength(100, 'Key name must be at most 100 characters.')),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, `Invalid scopes: each must be one of ${SCOPES.join(', ')}.`), 'Invalid scopes: must be a list of scopes, such as ["links:read"].'),
    v.minLength(1, 'Invalid scopes: a key needs at least one scope.'),
    v.maxLength(SCOPES.length, `Invalid scopes: at most ${SCOPES.length}.`),
  ),
  // Format only: whether it is still to come is the create's check, so a stored key that expired is still a valid record (imports).
  expires: dateTime,
  ips: v.pipe(
    v.array(
      v.pipe(v.string(), v.trim(), v.check((s) => ipEntryRange(s) !== null, 'Invalid ips: each must be an IP address or a CIDR range such as 203.0.113.0/24 or 2001:db8::/32.')),
      'Invalid ips: must be a list of IP addresses or CIDR ranges.',
    ),
    v.maxLength(MAX_KEY_ADDRESSES, `Invalid ips: at most ${MAX_KEY_ADDRESSES} addresses or ranges.`),
  ),
};

/** The public shape of a key: never its hash; `hint` tells keys apart. */
function keyEntry(k: ApiKeyRecord, ctx: HookContext): Record<string, unknown> {
  return { id: k.id, name: k.name, scopes: k.scopes, expires: k.expires, ips: k.ips, hint: `sk_…${k.hint}`, date: k.date, last_used: ctx.keyUses.lastUsed(k) };
}

const entryShape = {
  id: int,
  name: str,
  scopes: v.array(v.picklist(SCOPES)),
  expires: v.nullable(date),
  ips: v.array(str),
  hint: str,
  date,
  last_used: v.nullable(date),
};

/**
 * What the key making a new one (none: the account key) lets it have: a key can give only the
 * scopes it holds, expire no later than itself, and reach no address it cannot; otherwise a
 * narrow key with `keys:write` could make itself a wider one.
 */
function checkWithin(maker: ApiKeyRecord, scopes: readonly string[], expires: string | null, ips: readonly string[]): void {
  const beyond = scopes.find((s) => !covers(maker.scopes, s));
  if (beyond) throw new ApiError(403, `This API key cannot give the scope ${beyond}: it does not hold it.`);
  if (maker.expires && (expires === null || expires > maker.expires)) throw new ApiError(403, `This API key expires ${maker.expires}: a key it makes must expire no later.`);
  if (maker.ips.length > 0 && (ips.length === 0 || !rangesWithin(ips, maker.ips))) {
    throw new ApiError(403, 'This API key may only be used from some addresses: a key it makes must be limited to addresses within them.');
  }
}

/** Scoped API keys: many per user, each with its scopes, expiry and address allow-list; the key is shown once, at creation. */
export const apiKeys = defineResource<typeof apiKeyFields, ApiKeyRecord>({
  name: 'key',
  collection: API_KEYS,
  api: 'link',
  owned: true,
  extension: true,
  scope: 'keys',
  wholeStoreOnly: true,
  fields: apiKeyFields,
  create: { required: ['name', 'scopes'] },
  paths: { list: '/api/keys', get: '/api/keys/:id', create: '/api/keys', remove: '/api/keys/:id' },
  listKey: 'keys',
  shapes: { entry: entryShape, created: { id: int, apikey: str, data: v.strictObject(entryShape) } },
  searchable: ['name'],
  // One key per hash, across the keys of every user (a clash of two random 256-bit keys does not happen).
  indexes: { keyHash: (k) => k.keyHash },
  unique: { keyHash: () => new ApiError(500, 'Please try again.') },
  messages: { notFound: 'API key does not exist.', updated: 'API key has been updated.', deleted: 'API key has been revoked.' },
  example: (n) => ({ name: `Deploy key ${n}`, scopes: ['links:read', 'qr:*'] }),
  entry: keyEntry,
  prepare(input, ctx) {
    const scopes = normalScopes(input.scopes as string[]);
    const expires = (input.expires as string | undefined) ?? null;
    if (expires !== null && keyExpired(expires, ctx.clock.now())) throw new ApiError(400, 'The expiry date must be later than now.');
    const ips = [...new Set((input.ips as string[] | undefined) ?? [])];
    if (ctx.apiKey) checkWithin(ctx.apiKey, scopes, expires, ips);
    const apikey = generateApiKey();
    return { fields: { name: input.name, scopes, expires, ips, keyHash: hashApiKey(apikey), hint: apikey.slice(-4), lastUsed: null }, extra: { apikey } };
  },
  // A scoped key revokes only keys within its own scopes: a narrow key with keys:write must not end wider ones.
  onDelete(_tx, record, ctx) {
    const beyond = ctx.apiKey && record.scopes.find((scope) => !covers(ctx.apiKey!.scopes, scope));
    if (beyond) throw new ApiError(403, `This API key cannot revoke a key with the scope ${beyond}: it does not hold it.`);
  },
  // Answered only once no process sharing the store can still trust the key (key-index.ts): refused everywhere from the answer on.
  deleted: (_record, ctx) => (ctx.store.shared ? sleep(SCOPED_KEY_TRUST_MS) : undefined),
  created(record, ctx, extra) {
    // The key is shown here once; only its hash is kept.
    return { id: record.id, apikey: extra.apikey, data: keyEntry(record, ctx) };
  },
});
