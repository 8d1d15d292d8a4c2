import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import type { PgConnections } from '../src/store/postgres/connections.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { silentLogger } from '../src/log.ts';
import { ConflictError, StoreUnavailableError } from '../src/store/store.ts';
import type { Tx } from '../src/store/store.ts';
import { withStoreDeadline } from '../src/store/deadline.ts';
import { systemClock } from '../src/clock.ts';
import { newEvent } from '../src/events/event-types.ts';
import { freshSchema } from './backend.ts';
import { recordQueries, withClient } from './pg-client.ts';

/**
 * Group commit on PostgreSQL (src/store/postgres/group-commit.ts): transactions that arrive while
 * another runs commit together, and each still succeeds or fails as it would alone. One runner, so
 * that everything arriving during a transaction forms the next group.
 */
const URL = process.env.TEST_DATABASE_URL;
if (!URL) console.log('pg-group-commit: PostgreSQL group commit tests skipped (TEST_DATABASE_URL is not set)');

const COLLECTIONS = storeSchema(RESOURCES);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const user = (n: number | string) => ({ username: `user${n}`, email: `user${n}@example.com`, keyHash: `hash${n}` });

async function open(extra: { applicationName?: string; listen?: boolean; statementTimeoutMs?: number } = {}, schema = freshSchema()): Promise<PostgresStore> {
  return PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 4, groupRunners: 1, listen: false, ...extra });
}

/** A promise the test releases, to hold a transaction open while others queue behind it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Starts a transaction that holds the one runner until released; the ones started meanwhile form a group. */
function holdRunner(store: PostgresStore): { release: () => void; done: Promise<unknown> } {
  const g = gate();
  const done = store.transaction(async (tx) => {
    await g.wait;
    return tx.insert('users', user('holder'));
  });
  return { release: g.open, done };
}

async function usernames(store: PostgresStore): Promise<string[]> {
  return (await store.find<{ id: number; username: string }>('users', { limit: 1000 })).items.map((u) => u.username).sort();
}

if (URL) describe('PostgreSQL group commit', () => {
  test('transactions that arrive together commit in one group; each resolves with its own result once committed, and others hear of it', async () => {
    const schema = freshSchema();
    const store = await open({}, schema);
    const other = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 2 });
    try {
      const before = other.version('users');
      const hold = holdRunner(store);
      await sleep(50);
      const queued = Array.from({ length: 30 }, (_, i) => store.transaction((tx) => tx.insert('users', user(i))));
      assert.equal(store.group.groups, 0);
      hold.release();
      const made = await Promise.all(queued);
      await hold.done;
      assert.equal(store.group.groups, 1, 'the 30 queued behind the holder ran as one group');
      assert.deepEqual(made.map((u) => u.username), Array.from({ length: 30 }, (_, i) => `user${i}`));
      assert.equal(new Set(made.map((u) => u.id)).size, 30);
      for (const u of made) assert.equal((await store.get('users', u.id))?.username, u.username);
      assert.equal(await store.count('users'), 31);
      // The group's one notification reaches the other process.
      for (const until = Date.now() + 2000; other.version('users') === before && Date.now() < until; ) await sleep(20);
      assert.ok(other.version('users') > before, 'the other store heard the group commit');
    } finally {
      await other.close();
      await store.close();
    }
  });

  test("a group's events are stored by its last statement, placed in the order of its transactions; one that fails leaves none", async () => {
    const store = await open();
    try {
      const owner = (await store.transaction((tx) => tx.insert('users', user('owner')))).id;
      const clock = systemClock;
      const hold = holdRunner(store);
      await sleep(50);
      const member = (n: number, fail = false) =>
        store.transaction(async (tx) => {
          await tx.appendEvents([newEvent(owner, 'test.event', { n, part: 1 }, clock), newEvent(owner, 'test.event', { n, part: 2 }, clock)]);
          if (fail) throw new Error(`member ${n} gives up`);
          return n;
        });
      const queued = Promise.allSettled([member(1), member(2, true), member(3)]);
      hold.release();
      const outcomes = await queued;
      await hold.done;
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.equal(store.group.groups, 1);
      const placed = await store.outbox.eventsAfter(null, 100);
      assert.deepEqual(placed.map((e) => [e.event.data.n, e.event.data.part]), [[1, 1], [1, 2], [3, 1], [3, 2]]);
      const cursors = placed.map((e) => BigInt(e.cursor));
      assert.ok(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!), cursors.join(' '));
      assert.ok(placed.every((e, i) => i === 0 || e.event.id > placed[i - 1]!.event.id));
      assert.equal(await store.outbox.endCursor(), placed.at(-1)!.cursor);
    } finally {
      await store.close();
    }
  });

  test('one that fails before writing fails alone (a taken key, its own error); the rest of its group commits', async () => {
    const store = await open();
    try {
      await store.transaction((tx) => tx.insert('users', user('taken')));
      const hold = holdRunner(store);
      await sleep(50);
      const good1 = store.transaction((tx) => tx.insert('users', user(1)));
      const taken = store.transaction((tx) => tx.insert('users', user('taken')));
      const refused = store.transaction(async (tx) => {
        await tx.get('users', 1);
        throw new Error('refused by a check');
      });
      const good2 = store.transaction((tx) => tx.insert('users', user(2)));
      hold.release();
      const [, g1, g2, t, r] = await Promise.allSettled([hold.done, good1, good2, taken, refused]);
      assert.deepEqual([g1.status, g2.status], ['fulfilled', 'fulfilled']);
      assert.ok(t.status === 'rejected' && t.reason instanceof ConflictError && t.reason.collection === 'users');
      assert.ok(r.status === 'rejected' && /refused by a check/.test(String(r.reason)));
      assert.equal(store.group.groups, 1);
      assert.deepEqual(await usernames(store), ['user1', 'user2', 'userholder', 'usertaken']);
    } finally {
      await store.close();
    }
  });

  for (const kind of ['fails after its write', 'aborts the transaction'] as const) {
    test(`one that ${kind} is rolled back with its group; the others run again alone and commit`, async () => {
      const store = await open();
      try {
        const runs = new Map<string, number>();
        const counted = (name: string, fn: (tx: Tx) => Promise<unknown>) => (tx: Tx) => {
          runs.set(name, (runs.get(name) ?? 0) + 1);
          return fn(tx);
        };
        const hold = holdRunner(store);
        await sleep(50);
        const first = store.transaction(counted('first', (tx) => tx.insert('users', user('first'))));
        const bad = store.transaction(
          counted('bad', async (tx) => {
            if (kind === 'aborts the transaction') {
              // A link owned by no user: the foreign key refuses it, which aborts the database transaction.
              return tx.insert('links', { userId: 999_999, alias: 'orphan', url: 'https://example.com/', domainId: null });
            }
            await tx.insert('users', user('bad'));
            throw new Error('failed after its insert');
          }),
        );
        const last = store.transaction(counted('last', (tx) => tx.insert('users', user('last'))));
        hold.release();
        const [, f, l, b] = await Promise.allSettled([hold.done, first, last, bad]);
        assert.deepEqual([f.status, l.status], ['fulfilled', 'fulfilled']);
        assert.equal(b.status, 'rejected');
        const reason = (b as PromiseRejectedResult).reason as { code?: string; message?: string };
        if (kind === 'aborts the transaction') assert.equal(reason.code, '23503', String(reason));
        else assert.equal(reason.message, 'failed after its insert');
        assert.equal(store.group.groups, 0, 'the group was rolled back, not committed');
        assert.deepEqual(await usernames(store), ['userfirst', 'userholder', 'userlast']);
        assert.equal(await store.count('links'), 0);
        // The group stopped at the bad one: the one before it ran twice (in the group, then alone), the one after it once.
        assert.deepEqual([runs.get('first'), runs.get('bad'), runs.get('last')], [2, 2, 1]);
      } finally {
        await store.close();
      }
    });
  }

  test('a member that waits out its statement timeout (a row locked elsewhere) fails alone; the rest of its group commits', async () => {
    const schema = freshSchema();
    const store = await open({ statementTimeoutMs: 300 }, schema);
    try {
      const locked = await store.transaction((tx) => tx.insert('users', user('locked')));
      const holder = new pg.Client({ connectionString: URL });
      await holder.connect();
      // Set once connected: options given beside a URL that has its own would be dropped (pool.ts).
      await holder.query(`SET search_path TO "${schema}"`);
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [locked.id]);
        const hold = holdRunner(store);
        await sleep(50);
        const a = store.transaction((tx) => tx.insert('users', user('a')));
        const waits = store.transaction(async (tx) => {
          await tx.getForUpdate('users', locked.id);
          return tx.update('users', locked.id, { email: 'changed@example.com' });
        });
        const d = store.transaction((tx) => tx.insert('users', user('d')));
        hold.release();
        const [, ra, rw, rd] = await Promise.allSettled([hold.done, a, waits, d]);
        assert.deepEqual([ra.status, rd.status], ['fulfilled', 'fulfilled']);
        assert.ok(rw.status === 'rejected' && rw.reason instanceof StoreUnavailableError, String(rw.status === 'rejected' ? rw.reason : 'fulfilled'));
      } finally {
        await holder.query('ROLLBACK').catch(() => {});
        await holder.end();
      }
      assert.deepEqual(await usernames(store), ['usera', 'userd', 'userholder', 'userlocked']);
      assert.equal((await store.get<{ id: number; email: string }>('users', locked.id))?.email, 'userlocked@example.com');
    } finally {
      await store.close();
    }
  });

  test("a member past its own deadline (DATABASE_TIMEOUT) after its writes fails alone: the others commit, none gets its 503", async () => {
    const store = await open();
    try {
      const hold = holdRunner(store);
      await sleep(50);
      const a = store.transaction((tx) => tx.insert('users', user('a')));
      const c = store.transaction((tx) => tx.insert('users', user('c')));
      // Last in its group: its work ends after its deadline, just before the group's COMMIT.
      const late = withStoreDeadline(300, () =>
        store.transaction(async (tx) => {
          const made = await tx.insert('users', user('late'));
          await sleep(500);
          return made;
        }),
      );
      hold.release();
      const [, ra, rc, rl] = await Promise.allSettled([hold.done, a, c, late]);
      assert.deepEqual([ra.status, rc.status], ['fulfilled', 'fulfilled'], String([ra, rc].map((r) => (r.status === 'rejected' ? r.reason : 'ok'))));
      assert.ok(rl.status === 'rejected' && rl.reason instanceof StoreUnavailableError && rl.reason.timedOut, String(rl.status === 'rejected' ? rl.reason : 'fulfilled'));
      assert.deepEqual(await usernames(store), ['usera', 'userc', 'userholder']);
    } finally {
      await store.close();
    }
  });

  test('a member whose deadline passes while it waits behind a slow one of its group fails alone, before writing; the group still commits as one', async () => {
    const name = `gc_deadline_${process.pid}`;
    const store = await open({ applicationName: name });
    const backends = () => withClient(async (c) => (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid', [name])).rows.map((r) => r.pid));
    try {
      const hold = holdRunner(store);
      await sleep(50);
      const slow = store.transaction(async (tx) => {
        await sleep(500);
        return tx.insert('users', user('slow'));
      });
      const late = withStoreDeadline(250, () => store.transaction((tx) => tx.insert('users', user('late'))));
      const d = store.transaction((tx) => tx.insert('users', user('d')));
      hold.release();
      await hold.done;
      const before = await backends();
      const [rs, rl, rd] = await Promise.allSettled([slow, late, d]);
      assert.deepEqual([rs.status, rd.status], ['fulfilled', 'fulfilled'], String([rs, rd].map((r) => (r.status === 'rejected' ? r.reason : 'ok'))));
      assert.ok(rl.status === 'rejected' && rl.reason instanceof StoreUnavailableError && rl.reason.timedOut, String(rl.status === 'rejected' ? rl.reason : 'fulfilled'));
      assert.equal(store.group.groups, 1, 'the group of slow, late and d committed as one, without late');
      assert.deepEqual(await usernames(store), ['userd', 'userholder', 'userslow']);
      const after = await backends();
      assert.deepEqual(before.filter((pid) => !after.includes(pid)), [], 'no connection was dropped for it');
    } finally {
      await store.close();
    }
  });

  test('a member that failed cannot slip a write into its group afterwards (an operation it asked for after failing)', async () => {
    const store = await open();
    try {
      const hold = holdRunner(store);
      await sleep(50);
      const failing = store.transaction(async (tx) => {
        // The failure is seen first; the insert is asked for only after the read, by then too late.
        await Promise.all([tx.get('users', 1).then(() => tx.insert('users', user('late'))), Promise.reject(new Error('check failed'))]);
      });
      const other = store.transaction((tx) => tx.insert('users', user('other')));
      hold.release();
      const [, f, o] = await Promise.allSettled([hold.done, failing, other]);
      assert.ok(f.status === 'rejected' && /check failed/.test(String(f.reason)));
      assert.equal(o.status, 'fulfilled');
      await sleep(50);
      assert.deepEqual(await usernames(store), ['userholder', 'userother']);
    } finally {
      await store.close();
    }
  });

  test('a connection lost in the middle of a group fails all of it with StoreUnavailableError, and the next transaction works', async () => {
    const name = `gc_lost_${process.pid}`;
    const store = await open({ applicationName: name });
    try {
      const hold = holdRunner(store);
      await sleep(50);
      const inside = gate();
      const reached = gate();
      const group = [
        store.transaction((tx) => tx.insert('users', user('a'))),
        store.transaction(async (tx) => {
          await tx.insert('users', user('b'));
          reached.open();
          await inside.wait;
          return tx.insert('users', user('c'));
        }),
        store.transaction((tx) => tx.insert('users', user('d'))),
      ];
      hold.release();
      await hold.done;
      await reached.wait;
      const killed = await withClient(async (c) => (await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name])).rowCount);
      assert.ok((killed ?? 0) >= 1);
      inside.open();
      const settled = await Promise.allSettled(group);
      for (const s of settled) assert.ok(s.status === 'rejected' && s.reason instanceof StoreUnavailableError, String(s.status === 'rejected' ? s.reason : 'fulfilled'));
      assert.deepEqual(await usernames(store), ['userholder']);
      const after = await store.transaction((tx) => tx.insert('users', user('after')));
      assert.equal((await store.get('users', after.id))?.username, 'userafter');
    } finally {
      await store.close();
    }
  });

  test("the change notification goes after the COMMIT in the same message (no NOTIFY inside a transaction holds the queue's lock through its flush), and still reaches another process", async () => {
    const schema = freshSchema();
    const store = await open({}, schema);
    const other = await open({ listen: true }, schema);
    const recorded = recordQueries();
    const texts = () => recorded.sent.map((q) => q.text);
    try {
      const before = other.version('users');
      await store.transaction((tx) => tx.insert('users', user('heard')));
      const commits = texts().filter((t) => /\bCOMMIT\b/.test(t));
      assert.equal(commits.length, 1, commits.join(' | '));
      assert.match(commits[0]!, /^COMMIT; SELECT pg_notify\(/);
      assert.equal(texts().filter((t) => t.includes('pg_notify')).length, 1, 'one notification, and only after the COMMIT');
      for (const until = Date.now() + 2000; other.version('users') === before && Date.now() < until; ) await sleep(20);
      assert.ok(other.version('users') > before, 'the other store heard it');
    } finally {
      recorded.restore();
      await other.close();
      await store.close();
    }
  });

  test('a COMMIT that rolls back (a statement of the transaction failed) is an error, never a success; a notification refused after a COMMIT leaves the transaction done, with a warning', async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
    const schema = freshSchema();
    const store = await PostgresStore.open({ url: URL!, schema, collections: COLLECTIONS, poolSize: 2, groupRunners: 1, listen: false, log });
    const db = (store as unknown as { db: PgConnections }).db;
    const names = async () => (await withClient((c) => c.query<{ n: string }>(`SELECT data ->> 'username' AS n FROM "${schema}".users ORDER BY 1`))).rows.map((r) => r.n);
    try {
      const failed = db.inTransaction(async (q) => {
        await q(`INSERT INTO users (data) VALUES ('{"username":"lost"}')`);
        await q('SELECT 1 / 0').catch(() => undefined);
        return 'done';
      });
      await assert.rejects(failed, /rolled back at its COMMIT/);
      assert.deepEqual(await names(), []);
      const refused = "DO $$ BEGIN RAISE EXCEPTION 'too many notifications in the NOTIFY queue' USING ERRCODE = '54000'; END $$";
      assert.equal(await db.inTransaction(async (q) => (await q(`INSERT INTO users (data) VALUES ('{"username":"kept"}')`), 'kept'), () => refused), 'kept');
      assert.deepEqual(await names(), ['kept']);
      assert.equal(warnings.filter((w) => /refused a change notification after a COMMIT/.test(w)).length, 1, warnings.join(' | '));
    } finally {
      await store.close();
    }
  });
});
