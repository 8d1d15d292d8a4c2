import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { generateApiKey, hashApiKey } from '../auth/keys.ts';
import { hashPassword } from '../auth/passwords.ts';
import { formatDateTime } from '../clock.ts';
import { IDEMPOTENCY_COLLECTION } from '../idempotency/keys.ts';
import { ApiError } from '../errors.ts';
import type { Condition, StoreReads, Tx } from '../store/store.ts';
import { defineResource } from './define.ts';
import type { HookContext, Resource, UserRecord } from './define.ts';
import { dateTime } from './fields.ts';
import { planById, statusOfPlan } from './plans.ts';
import { date, int, str } from './shapes.ts';

/** The answer to a `planid` the server has no plan of. */
export const PLAN_MISSING = 'Plan does not exist.';

/** Request fields of users (admin create) and of the account update. */
export const userFields = {
  username: v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9_.-]{3,64}$/, 'Username must be 3 to 64 letters, digits, dots, dashes or underscores.')),
  email: v.pipe(v.string(), v.trim(), v.maxLength(255, 'Please enter a valid email.'), v.email('Please enter a valid email.')),
  password: v.pipe(v.string(), v.minLength(5, 'Password must be at least 5 characters.'), v.maxLength(256, 'Password must be at most 256 characters.')),
  planid: v.pipe(v.number(), v.integer(), v.check((id) => planById(id) !== undefined, PLAN_MISSING)),
  expiration: dateTime,
  admin: v.boolean(),
  keyexpires: dateTime,
};

/** The public shape of a user: never the password or the key. */
export function publicUser(u: UserRecord): Record<string, unknown> {
  return { id: u.id, email: u.email, username: u.username, avatar: u.avatar, status: u.status, planid: u.planid, expires: u.expires, registered: u.registered, admin: u.admin, disabled: disabledOf(u) };
}

/** A user's disabled state as the API shows it: null when enabled, else when and why (docs/compatibility.md). */
export function disabledOf(u: UserRecord): { date: string; reason: string | null } | null {
  return u.disabled ? { date: u.disabledAt ?? '', reason: u.disabledReason ?? null } : null;
}

/** The avatar URL the real product shows: a Gravatar of the email. */
export function avatarFor(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?s=200&d=identicon`;
}

/** What is needed to create a user. */
export interface NewUser {
  email: string;
  username: string;
  password: string;
  admin?: boolean;
  planid?: number | null;
  expiration?: string | null;
  keyexpires?: string | null;
  /** A chosen key (bootstrap, fixtures); generated when absent. */
  apikey?: string;
}

/** The stored fields of a new user and its plain key, shown once. */
export async function newUserFields(u: NewUser, now: number): Promise<{ fields: Omit<UserRecord, 'id'>; apikey: string }> {
  const apikey = u.apikey ?? generateApiKey();
  const fields = {
    email: u.email,
    username: u.username,
    password: await hashPassword(u.password),
    avatar: avatarFor(u.email),
    status: statusOfPlan(u.planid),
    planid: u.planid ?? null,
    expires: u.expiration ?? null,
    registered: formatDateTime(now),
    admin: u.admin ?? false,
    keyHash: hashApiKey(apikey),
    keyExpires: u.keyexpires ?? null,
  } satisfies Omit<UserRecord, 'id'>;
  return { fields, apikey };
}

/** Throws when another user already has this email or username (case-insensitive). */
export async function checkUserUnique(reads: StoreReads, fields: { email?: unknown; username?: unknown }, selfId?: number): Promise<void> {
  const other = async (index: string, value: unknown) => {
    const u = typeof value === 'string' ? await reads.lookup('users', index, value.toLowerCase()) : undefined;
    return u !== undefined && u.id !== selfId;
  };
  if (await other('email', fields.email)) throw EMAIL_TAKEN();
  if (await other('username', fields.username)) throw USERNAME_TAKEN();
}

const EMAIL_TAKEN = () => new ApiError(400, 'An account is already associated with this email.');
const USERNAME_TAKEN = () => new ApiError(400, 'That username is already taken.');

/** Removes a user's records from every owned collection of the table, and its idempotency keys. */
export async function removeOwnedBy(tx: Tx, ctx: HookContext, userId: number): Promise<void> {
  for (const row of ctx.resources) {
    if (row.owned) await tx.removeWhere(row.collection, { owner: userId });
  }
  await tx.removeWhere(IDEMPOTENCY_COLLECTION, { owner: userId });
}


/** A user as `publicUser` shows it (never the password or the key). */
export const userEntryShape = {
  id: int,
  email: str,
  username: str,
  avatar: str,
  status: v.picklist(['free', 'pro']),
  planid: v.nullable(int),
  expires: v.nullable(str),
  registered: date,
  admin: v.boolean(),
  disabled: v.nullable(v.strictObject({ date: str, reason: v.nullable(str) })),
};

/** The answer to an admin who tries to delete their own account. */
export const NOT_SELF_DELETE = 'You cannot delete your own account.';

/** Users: the admin endpoints of the real product, and the source of the account. */
export const users: Resource = defineResource<typeof userFields, UserRecord>({
  name: 'user',
  collection: 'users',
  api: 'admin',
  scope: '*',
  owned: false,
  fields: userFields,
  create: { required: ['username', 'email', 'password'] },
  update: { required: [], fields: ['email', 'password'] },
  paths: { list: '/api/users', get: '/api/user/:id', create: '/api/user/add', remove: '/api/user/:id/delete' },
  listKey: 'users',
  // As the real product: `data` is the users themselves (one page of them).
  listShape: 'plain',
  shapes: { entry: userEntryShape, created: { message: str, data: v.strictObject({ id: int, email: str, username: str, apikey: str }) } },
  searchable: ['email', 'username'],
  // One account per email and per username, whatever the letter case; one user per key.
  indexes: { email: (u) => u.email.toLowerCase(), username: (u) => u.username.toLowerCase(), keyHash: (u) => u.keyHash },
  unique: { email: EMAIL_TAKEN, username: USERNAME_TAKEN, keyHash: () => new ApiError(500, 'Please try again.') },
  messages: { notFound: 'User does not exist.', updated: 'Account has been successfully updated.', deleted: 'User has been successfully deleted.' },
  example: (n) => ({ username: `user${n}`, email: `user${n}@example.com`, password: `secret-${n}` }),
  entry: publicUser,
  listQuery(query) {
    const conditions: Condition[] = [];
    const email = query.email?.trim();
    if (email) conditions.push({ field: 'email', equalsIgnoringCase: email });
    const f = query.filter;
    if (f === 'admin') conditions.push({ field: 'admin', equals: true });
    else if (f === 'free' || f === 'pro') conditions.push({ field: 'status', equals: f });
    else if (f === 'disabled') conditions.push({ field: 'disabled', equals: true });
    else if (f) throw new ApiError(400, 'Invalid filter: must be admin, free, pro or disabled.');
    return { conditions };
  },
  async prepare(input, ctx) {
    const made = await newUserFields(input as unknown as NewUser, ctx.clock.now());
    return { fields: made.fields, extra: { apikey: made.apikey } };
  },
  async check(fields, _ctx, tx) {
    await checkUserUnique(tx, fields);
  },
  created(record, _ctx, extra) {
    // The key is shown here once, beside what the real product answers.
    return { message: 'User has been registered.', data: { id: record.id, email: record.email, username: record.username, apikey: extra.apikey } };
  },
  async onDelete(tx, record, ctx) {
    // The caller is an admin: deleting themselves would leave the server without one until a restart.
    if (record.id === ctx.user.id) throw new ApiError(400, NOT_SELF_DELETE);
    await removeOwnedBy(tx, ctx, record.id);
  },
});
