import { afterEach, beforeEach } from 'node:test';
import { GROUP_LOADING_TEST } from './runner/groups.ts';
import { createApp } from '../src/app.ts';
import type { AppParts } from '../src/app.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { KeyUses } from '../src/auth/key-uses.ts';
import { AuditLog } from '../src/audit/audit-log.ts';
import { generateApiKey } from '../src/auth/keys.ts';
import { ensureAdmin } from '../src/bootstrap.ts';
import { fixtureUser } from '../src/fixtures/prepare.ts';
import { fixedClock } from '../src/clock.ts';
import type { Clock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { seededRandom } from '../src/random.ts';
import { OwnershipProofs } from '../src/ownership/proofs.ts';
import { DailyCounters } from '../src/stats/daily-counters.ts';
import { silentLogger } from '../src/log.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import type { Store, StoredRecord } from '../src/store/store.ts';
import { openTestStore, releaseTestStore } from './backend.ts';

/** The admin key every in-process test app starts with. */
export const ADMIN_KEY = 'sk_test_admin_key_0000000000000000000000000';

/** A response, read once: status, parsed body (or text), headers. */
export interface Reply {
  status: number;
  body: any; // eslint-style escape: test bodies are inspected field by field with assertions
  text: string;
  headers: Headers;
}

/** Options of one test request. */
export interface Call {
  key?: string | null;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

const noTxtRecords = async (name: string): Promise<string[][]> => {
  throw Object.assign(new Error(`queryTxt ENODATA ${name}`), { code: 'ENODATA' });
};

// The apps a top-level test made on stores of their own are given back when that test ends
// (dispose): on PostgreSQL their schemas are emptied and reused rather than a fresh one migrated
// per app (0.3–1 s of the database's CPU each, most of the PostgreSQL pass). An app made outside
// any test (shared by a file's tests) or on a store given to it stays to the file's end.
// A group of files sharing a process (test/runner/groups.ts) loads them inside a test of its own:
// what their top levels make then is a file's, kept to the end, not that test's.
let depth = 0;
const madeInTest: Array<() => Promise<void>> = [];
beforeEach((t) => {
  if (t.name !== GROUP_LOADING_TEST) depth++;
});
afterEach(async (t) => {
  if (t.name === GROUP_LOADING_TEST || --depth > 0) return;
  for (const dispose of madeInTest.splice(0)) await dispose();
});

/** A fresh in-memory app with an admin, a fixed clock and a seeded random source. */
export async function testApp(overrides: Partial<Config> = {}, parts: Partial<AppParts> = {}) {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: ':memory:', BASE_URL: 'http://sho.rt' }), ...overrides };
  const store = parts.store ?? (await openTestStore(parts.resources));
  const clock = fixedClock('2026-11-21T10:00:00Z');
  await addAdmin(store, clock);
  const random = parts.random ?? seededRandom(1);
  // Made here, so a test can wait for a flush (on PostgreSQL one takes real time).
  const counters = parts.counters ?? new DailyCounters(store, { clock: parts.clock ?? clock, random });
  // Made here too, so a test can store the audit log's buffered entries and the keys' noted uses when it wants.
  const audit = parts.audit ?? new AuditLog(store, { clock: parts.clock ?? clock, retentionDays: config.auditRetentionDays });
  const keyUses = parts.keyUses ?? new KeyUses(store, parts.clock ?? clock);
  // No test asks the real DNS or web: a proof of ownership finds nothing unless a test publishes it.
  const proofs = parts.proofs ?? new OwnershipProofs(store, { resolveTxt: noTxtRecords, fetch: async () => new Response('not found', { status: 404 }) });
  // Not started: a test delivers webhooks when it says so (webhooks.drain()), or starts it.
  const webhooks = parts.webhooks ?? new WebhookDispatcher({ store, config, clock: parts.clock ?? clock, log: silentLogger });
  const app = createApp({ store, config, clock, random, ...parts, counters, proofs, audit, keyUses, webhooks });

  async function call(method: string, path: string, opts: Call = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ADMIN_KEY : opts.key;
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.request(path, { method, headers, body });
    // An event stream never ends: its first piece stands for its body, and the stream is closed.
    const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? await firstPiece(res) : await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  /**
   * Creates a user (password 'secret-pw') as the admin API would, but through the store: the
   * API's own user creation is users.test.ts's subject, and its scrypt per user (~60 ms of CPU,
   * hundreds of users in a run) was a large share of the suite. The password is hashed once per process.
   */
  async function makeUser(n: number | string = Math.random().toString(36).slice(2, 8)): Promise<{ id: number; key: string }> {
    const key = generateApiKey();
    const { id: _none, ...fields } = await fixtureUser({ id: 0, username: `user_${n}`, email: `user_${n}@example.com`, apikey: key, password: await secretHash() }, (parts.clock ?? clock).now());
    const user = await store.transaction((tx) => tx.insert('users', fields));
    return { id: user.id, key };
  }

  /** Ends this app and gives its store back (releaseTestStore): for a test that makes many apps and is done with this one. */
  let disposed = false;
  async function dispose(): Promise<void> {
    if (disposed) return;
    disposed = true;
    counters.discard();
    audit.discard();
    keyUses.discard();
    await webhooks.stop();
    await releaseTestStore(store);
  }

  if (depth > 0 && !parts.store) madeInTest.push(dispose);
  return { app, store, config, clock, counters, audit, keyUses, webhooks, call, makeUser, dispose };
}

let admin: Omit<StoredRecord, 'id'> | undefined;

/**
 * The admin of a test app, as a server's first start makes it: ensureAdmin for the process's first
 * app, a copy of that record for the next ones. Each ensureAdmin hashed a random password (scrypt,
 * ~40 ms of CPU), over a thousand times a run, and proved nothing the first one had not.
 */
async function addAdmin(store: Store, clock: Clock): Promise<void> {
  if (admin === undefined) {
    const before = await store.count('users');
    await ensureAdmin(store, clock, ADMIN_KEY);
    if (before === 0) {
      const { id: _made, ...record } = (await allOf(store, 'users'))[0]!;
      admin = record;
    }
    return;
  }
  // As ensureAdmin: only into a store without users.
  if ((await store.count('users')) === 0) await store.transaction((tx) => tx.insert('users', { ...admin }));
}

let secret: Promise<string> | undefined;
/** The scrypt hash of 'secret-pw', made once per test process. */
const secretHash = () => (secret ??= hashPassword('secret-pw'));

/** The first piece of a response's body as text, then the body cancelled. */
async function firstPiece(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
}

/** Resolves once `check` holds, trying every 20 ms for up to `ms` (a timer-driven flush on a busy machine); false if it never did. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every record of a collection, in id order. */
export async function allOf<T extends StoredRecord = StoredRecord>(store: Store, collection: string): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of store.scan<T>(collection)) out.push(...batch);
  return out;
}

/** The records of a collection that `userId` owns, in id order. */
export async function ownedBy<T extends StoredRecord = StoredRecord>(store: Store, collection: string, userId: number): Promise<T[]> {
  return (await store.find<T>(collection, { owner: userId, sort: { field: 'id', direction: 'asc' } })).items;
}

/** Everything a collection holds, as JSON, to prove that a rejected request stored nothing. */
export async function snapshotOf(store: Store, collection: string): Promise<string> {
  return JSON.stringify(await allOf(store, collection));
}

export { openTestStore } from './backend.ts';
