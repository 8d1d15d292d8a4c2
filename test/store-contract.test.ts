import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { ConflictError } from '../src/store/store.ts';
import { setTurnSlice, Turns } from '../src/turns.ts';
import { recordQueries } from './pg-client.ts';
import type { CollectionSchema, Store, StoredRecord } from '../src/store/store.ts';

/**
 * One table of behaviours, run against every backend: the file store in memory and on disk, and
 * PostgreSQL when TEST_DATABASE_URL names a database (each run in a fresh schema, dropped after).
 * The users collection gets the unique indexes the PostgreSQL users table keeps (lowercase
 * username and email, key hash), so a unique index can be tried on both.
 */
const lower = (field: string) => (r: StoredRecord) => (typeof r[field] === 'string' ? (r[field] as string).toLowerCase() : null);
const SCHEMA: CollectionSchema[] = storeSchema(RESOURCES).map((c) =>
  c.name === 'users'
    ? { name: 'users', indexes: { username: { key: lower('username'), unique: true }, email: { key: lower('email'), unique: true }, keyHash: { key: (r) => (r.keyHash as string) ?? null, unique: true } } }
    : c,
);
const keyOf = (collection: string, index: string, record: StoredRecord) => SCHEMA.find((c) => c.name === collection)!.indexes![index]!.key(record)!;

const PG_URL = process.env.TEST_DATABASE_URL;
// The test runner prints a child's own lines as TAP comments: '# store contract: …'.
if (!PG_URL) console.log('store contract: PostgreSQL pass skipped (TEST_DATABASE_URL is not set)');

interface Backend {
  name: string;
  postgres: boolean;
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

/** A PostgreSQL schema name of its own for one run. */
export function freshSchema(): string {
  return `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

const BACKENDS: Backend[] = [
  {
    name: 'file store in memory',
    postgres: false,
    open: async () => {
      const store = await FileStore.open({ dir: ':memory:', collections: SCHEMA });
      return { store, dispose: () => store.close() };
    },
  },
  {
    name: 'file store on disk',
    postgres: false,
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'store-contract-'));
      const store = await FileStore.open({ dir, collections: SCHEMA });
      return { store, dispose: async () => (await store.close(), await rm(dir, { recursive: true, force: true })) };
    },
  },
  ...(PG_URL
    ? [
        {
          name: 'PostgreSQL',
          postgres: true,
          open: async () => {
            const schema = freshSchema();
            const store = await PostgresStore.open({ url: PG_URL, schema, collections: SCHEMA, poolSize: 4 });
            return { store, dispose: async () => (await store.close(), await dropSchema(PG_URL, schema)) };
          },
        },
      ]
    : []),
];

// Label maps have no prototype (labels come from visitors): compare values, not prototypes.
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const ids = (records: readonly StoredRecord[]) => records.map((r) => r.id);

function user(n: number, extra: Record<string, unknown> = {}) {
  return { username: `user${n}`, email: `user${n}@example.com`, keyHash: `hash${n}`, admin: false, ...extra };
}

for (const backend of BACKENDS) {
  describe(`store contract: ${backend.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => ({ store, dispose } = await backend.open()));
    after(async () => dispose());
    beforeEach(async () => store.replaceAll({}));

    /** Users 1 and 2, and links with the fields the sorts and conditions look at. */
    async function seedLinks(): Promise<void> {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('users', user(2));
        const links = [
          { userId: 1, alias: 'b-one', domainId: null, url: 'https://a.example/one', title: 'Banana', clicks: 10, channels: [1, 2], archived: false },
          { userId: 1, alias: 'a-two', domainId: null, url: 'https://a.example/two', title: 'apple', clicks: 9, channels: [2], archived: true },
          { userId: 2, alias: 'c-three', domainId: 4, url: 'https://b.example/100%_off\\now', title: 'Cherry', clicks: 10, channels: [], archived: false },
          { userId: 2, alias: 'd-four', domainId: null, url: 'https://b.example/four', clicks: 100, channels: [3], archived: false, note: null },
        ];
        for (const l of links) await tx.insert('links', l);
      });
    }

    test('insert, get, update, remove and put: ids continue after the largest put', async () => {
      const a = await store.transaction((tx) => tx.insert('users', user(1)));
      const b = await store.transaction((tx) => tx.insert('users', user(2)));
      assert.deepEqual([a.id, b.id], [1, 2]);
      assert.deepEqual(await store.get('users', 1), { id: 1, ...user(1) });
      assert.equal(await store.get('users', 99), undefined);
      const updated = await store.transaction((tx) => tx.update('users', 1, { admin: true, avatar: 'x' }));
      assert.deepEqual(updated, { id: 1, ...user(1), admin: true, avatar: 'x' });
      assert.deepEqual(await store.get('users', 1), updated);
      assert.equal(await store.transaction((tx) => tx.update('users', 99, { admin: true })), undefined);
      assert.equal(await store.transaction((tx) => tx.remove('users', 2)), true);
      assert.equal(await store.transaction((tx) => tx.remove('users', 2)), false);
      assert.equal(await store.get('users', 2), undefined);
      await store.transaction((tx) => tx.put('users', { id: 10, ...user(10) }));
      const next = await store.transaction((tx) => tx.insert('users', user(11)));
      assert.equal(next.id, 11);
      // A put under an existing id replaces the record; one below the next id does not move it back.
      await store.transaction((tx) => tx.put('users', { id: 1, ...user(1), admin: 'replaced' }));
      assert.deepEqual(await store.get('users', 1), { id: 1, ...user(1), admin: 'replaced' });
      assert.equal((await store.transaction((tx) => tx.insert('users', user(12)))).id, 12);
      assert.equal(await store.count('users'), 4);
    });

    test('an owned record keeps its owner as userId, and reads inside a transaction see its own writes', async () => {
      await store.transaction((tx) => tx.insert('users', user(1)));
      const seen = await store.transaction(async (tx) => {
        const link = await tx.insert('links', { userId: 1, alias: 'x', domainId: null, url: 'https://e.example/' });
        return { link, get: await tx.get('links', link.id), count: await tx.count('links', { owner: 1 }), found: await tx.find('links', {}), lookup: await tx.lookup('links', 'alias', '0:x') };
      });
      assert.deepEqual(seen.get, { id: 1, userId: 1, alias: 'x', domainId: null, url: 'https://e.example/' });
      assert.equal(seen.count, 1);
      assert.deepEqual(ids(seen.found.items), [1]);
      assert.deepEqual(seen.lookup, seen.get);
    });

    test('lookup by a unique and a plain index; a changed key moves; an unknown index is refused', async () => {
      await seedLinks();
      assert.equal((await store.lookup('users', 'email', 'user2@example.com'))?.id, 2);
      assert.equal(await store.lookup('users', 'email', 'nobody@example.com'), undefined);
      const link = (await store.get('links', 3))!;
      assert.equal((await store.lookup('links', 'alias', keyOf('links', 'alias', link)))?.id, 3);
      await store.transaction((tx) => tx.update('links', 3, { alias: 'renamed' }));
      assert.equal(await store.lookup('links', 'alias', keyOf('links', 'alias', link)), undefined);
      assert.equal((await store.lookup('links', 'alias', '4:renamed'))?.id, 3);
      // A plain index holding a key twice answers the latest record (here also the highest id).
      const same = { userId: 1, domainId: null, url: 'https://a.example/same', type: 'direct', splashId: null, overlayId: null, password: null };
      await store.transaction((tx) => tx.insert('links', { ...same, alias: 'same-1', title: 'A' }));
      await store.transaction((tx) => tx.insert('links', { ...same, alias: 'same-2', title: 'B' }));
      assert.equal((await store.lookup('links', 'same', keyOf('links', 'same', same as unknown as StoredRecord)))?.title, 'B');
      await assert.rejects(store.lookup('links', 'nope', 'x'), /unknown index links\.nope/);
      await assert.rejects(async () => store.get('nothing', 1), /unknown collection nothing/);
    });

    test('find: every condition kind, ids, owner, and count with the same filters', async () => {
      await seedLinks();
      const find = async (q: Parameters<Store['find']>[1]) => ids((await store.find('links', q)).items);
      assert.deepEqual(await find({ conditions: [{ field: 'title', equals: 'apple' }] }), [2]);
      assert.deepEqual(await find({ conditions: [{ field: 'clicks', equals: 10 }] }), [3, 1]);
      assert.deepEqual(await find({ conditions: [{ field: 'archived', equals: false }] }), [4, 3, 1]);
      assert.deepEqual(await find({ conditions: [{ field: 'domainId', equals: 4 }] }), [3]);
      // null matches a null field and an absent one.
      assert.deepEqual(await find({ conditions: [{ field: 'note', equals: null }] }), [4, 3, 2, 1]);
      assert.deepEqual(await find({ conditions: [{ field: 'title', equals: null }] }), [4]);
      assert.deepEqual(await find({ conditions: [{ field: 'clicks', equals: '10' }] }), []);
      assert.deepEqual(await find({ conditions: [{ field: 'title', equalsIgnoringCase: 'BANANA' }] }), [1]);
      assert.deepEqual(await find({ conditions: [{ field: 'clicks', equalsIgnoringCase: '10' }] }), []);
      assert.deepEqual(await find({ conditions: [{ field: 'channels', holds: 2 }] }), [2, 1]);
      assert.deepEqual(await find({ conditions: [{ field: 'clicks', holds: 10 }] }), []);
      assert.deepEqual(await find({ conditions: [{ field: 'channels', holds: 2 }, { field: 'archived', equals: true }] }), [2]);
      // Fields PostgreSQL indexes on their own (migration 015) answer as the others: a value of another type is another value.
      assert.deepEqual(await find({ conditions: [{ field: 'domainId', equals: '4' }] }), []);
      assert.deepEqual(await find({ conditions: [{ field: 'url', equals: 'https://a.example/two' }] }), [2]);
      assert.deepEqual(await find({ conditions: [{ field: 'channels', holds: 3 }, { field: 'domainId', equals: null }] }), [4]);
      // present: neither absent nor null.
      assert.deepEqual(await find({ conditions: [{ field: 'domainId', present: true }] }), [3]);
      assert.deepEqual(await find({ conditions: [{ field: 'title', present: true }] }), [3, 2, 1]);
      assert.deepEqual(await find({ conditions: [{ field: 'note', present: true }] }), []);
      assert.deepEqual(await find({ conditions: [{ field: 'archived', present: true }, { field: 'userId', present: true }] }), [4, 3, 2, 1]);
      assert.deepEqual(await find({ ids: [1, 4, 77] }), [4, 1]);
      assert.deepEqual(await find({ ids: [] }), []);
      assert.deepEqual(await find({ owner: 2 }), [4, 3]);
      assert.deepEqual(await find({ owner: 2, ids: [1, 3] }), [3]);
      assert.deepEqual(await find({ owner: 3 }), []);
      assert.equal(await store.count('links'), 4);
      assert.equal(await store.count('links', { owner: 1 }), 2);
      assert.equal(await store.count('links', { conditions: [{ field: 'clicks', equals: 10 }] }), 2);
      assert.equal(await store.count('links', { ids: [2, 3, 9] }), 2);
      assert.equal(await store.count('links', { search: { text: 'CHER', fields: ['title'] } }), 1);
    });

    test('search: case-insensitive substring over several fields, wildcards taken literally', async () => {
      await seedLinks();
      const search = async (text: string, fields: string[]) => ids((await store.find('links', { search: { text, fields } })).items);
      assert.deepEqual(await search('AN', ['title']), [1]);
      assert.deepEqual(await search('a.example', ['title', 'url']), [2, 1]);
      assert.deepEqual(await search('100%_', ['url']), [3]);
      assert.deepEqual(await search('%', ['title', 'url']), [3]);
      assert.deepEqual(await search('_', ['alias']), []);
      assert.deepEqual(await search('\\now', ['url']), [3]);
      assert.deepEqual(await search('10', ['clicks']), [4, 3, 1]);
      assert.deepEqual(await search('', ['title']), [4, 3, 2, 1]);
      assert.deepEqual(await search('undefined', ['title']), []);
      assert.deepEqual(await search('x', []), []);
    });

    test('sorts: numbers by value, text by code point, absent as empty, ties by id in the same direction', async () => {
      await seedLinks();
      const sorted = async (sort: NonNullable<Parameters<Store['find']>[1]>['sort']) => ids((await store.find('links', { sort })).items);
      assert.deepEqual(await sorted(undefined), [4, 3, 2, 1]);
      assert.deepEqual(await sorted({ field: 'id', direction: 'asc' }), [1, 2, 3, 4]);
      assert.deepEqual(await sorted({ field: 'clicks', direction: 'asc' }), [2, 1, 3, 4]);
      assert.deepEqual(await sorted({ field: 'clicks', direction: 'desc' }), [4, 3, 1, 2]);
      // Capitals sort before lower case; the link without a title first.
      assert.deepEqual(await sorted({ field: 'title', direction: 'asc' }), [4, 1, 3, 2]);
      assert.deepEqual(await sorted({ field: 'title', direction: 'desc' }), [2, 3, 1, 4]);
      assert.deepEqual(await sorted({ field: 'archived', direction: 'asc' }), [1, 3, 4, 2]);
      assert.deepEqual(await sorted({ field: 'missing', direction: 'desc' }), [4, 3, 2, 1]);
      assert.deepEqual(await sorted({ field: 'userId', direction: 'asc' }), [1, 2, 3, 4]);
    });

    test('sort by a counter total over all days, ties by id', async () => {
      await seedLinks();
      await store.addCounts(
        [
          { subject: 'link:2', day: '2024-01-01', owner: 1, counts: { clicks: 5 } },
          { subject: 'link:2', day: '2024-01-02', owner: 1, counts: { clicks: 4, country: { FR: 9 } } },
          { subject: 'link:3', day: '2024-01-01', owner: 2, counts: { clicks: 7 } },
          { subject: 'link:4', day: '2024-01-01', owner: 2, counts: { clicks: 9, visits: 50 } },
          { subject: 'qr:1', day: '2024-01-01', counts: { clicks: 100 } },
        ],
        100,
      );
      const sorted = async (direction: 'asc' | 'desc', limit?: number, offset?: number) =>
        store.find('links', { sort: { counter: 'clicks', subjectPrefix: 'link:', direction }, limit, offset });
      assert.deepEqual(ids((await sorted('desc')).items), [4, 2, 3, 1]);
      assert.deepEqual(ids((await sorted('asc')).items), [1, 3, 2, 4]);
      const page = await sorted('desc', 2, 1);
      assert.deepEqual([page.total, ids(page.items)], [4, [2, 3]]);
    });

    test('offset, limit and total', async () => {
      await seedLinks();
      const page = async (offset?: number, limit?: number) => {
        const found = await store.find('links', { offset, limit, sort: { field: 'id', direction: 'asc' } });
        return [found.total, ids(found.items)];
      };
      assert.deepEqual(await page(1, 2), [4, [2, 3]]);
      assert.deepEqual(await page(3, 10), [4, [4]]);
      assert.deepEqual(await page(10, 2), [4, []]);
      assert.deepEqual(await page(0, 0), [4, []]);
      assert.deepEqual(await page(undefined, 1), [4, [1]]);
      const filtered = await store.find('links', { owner: 1, limit: 1 });
      assert.deepEqual([filtered.total, ids(filtered.items)], [2, [2]]);
      assert.deepEqual(await store.find('links', { owner: 9 }), { total: 0, items: [] });
    });

    test('getMany and lookupMany answer what get and lookup would, in one read, outside and inside a transaction', async () => {
      await seedLinks();
      const same = { userId: 1, domainId: null, url: 'https://a.example/same', type: 'direct', splashId: null, overlayId: null, password: null };
      await store.transaction((tx) => tx.insert('links', { ...same, alias: 'same-1', title: 'A' }));
      await store.transaction((tx) => tx.insert('links', { ...same, alias: 'same-2', title: 'B' }));
      const got = await store.getMany('links', [2, 99, 4, 2, 1.5]);
      assert.deepEqual([...got.keys()].sort(), [2, 4]);
      assert.deepEqual(got.get(4), await store.get('links', 4));
      const sameKey = keyOf('links', 'same', same as unknown as StoredRecord);
      const found = await store.lookupMany('links', 'alias', ['0:b-one', '4:c-three', '0:nothing', '0:b-one']);
      assert.deepEqual([...found.keys()].sort(), ['0:b-one', '4:c-three']);
      assert.equal(found.get('4:c-three')?.id, 3);
      assert.equal((await store.lookupMany('links', 'same', [sameKey])).get(sameKey)?.title, 'B', 'a plain index: the latest, as lookup');
      assert.equal((await store.lookupMany('links', 'alias', [])).size, 0);
      await assert.rejects(store.lookupMany('links', 'nope', ['x']), /unknown index links\.nope/);
      await store.transaction(async (tx) => {
        await tx.insert('links', { userId: 2, alias: 'in-tx', domainId: null, url: 'https://a.example/tx' });
        assert.equal((await tx.lookupMany('links', 'alias', ['0:in-tx'])).get('0:in-tx')?.url, 'https://a.example/tx');
        assert.deepEqual([...(await tx.getMany('links', [1, 3])).keys()].sort(), [1, 3]);
      });
    });

    test('insertMany stores in order and answers a ConflictError for each record a unique index refused, keeping the others', async () => {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('users', user(2));
      });
      const odd = { avatar: 'NUL \u0000, \u0001, a lone \ud800 and "quotes" \\ backslashes', nested: { list: ['\u0000', 1.5, null] } };
      const results = await store.transaction((tx) => tx.insertMany('users', [user(3), user(4, { email: 'USER1@example.com' }), user(5), user(6, { username: 'USER5' }), user(7, odd)]));
      assert.equal(results.length, 5);
      const [a, b, c, d, e] = results;
      assert.deepEqual(plain(await store.get('users', (e as StoredRecord).id)), plain({ id: (e as StoredRecord).id, ...user(7, odd) }), 'text PostgreSQL cannot hold comes back as written');
      assert.ok(b instanceof ConflictError && b.collection === 'users' && b.index === 'email', 'a key another record holds');
      assert.ok(d instanceof ConflictError && d.index === 'username', 'a key an earlier record of the same call holds');
      const stored = [a, c, e] as StoredRecord[];
      assert.deepEqual(stored.map((r) => r.username), ['user3', 'user5', 'user7']);
      assert.ok(stored[0]!.id < stored[1]!.id && stored[1]!.id < stored[2]!.id, 'ids follow the order given');
      for (const r of stored) assert.deepEqual(await store.get('users', r.id), r);
      assert.equal(await store.count('users'), 5);
      // Inside a transaction that then fails, none of them stays.
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insertMany('users', [user(8), user(9)]);
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await store.lookup('users', 'email', 'user8@example.com'), undefined);
      assert.equal(await store.count('users'), 5);
    });

    test('a unique index refuses a second record (insert, update, put) with ConflictError and stores nothing', async () => {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('users', user(2));
      });
      const refused = async (fn: () => Promise<unknown>, index: string) =>
        assert.rejects(fn, (err: unknown) => err instanceof ConflictError && err.collection === 'users' && err.index === index);
      await refused(() => store.transaction((tx) => tx.insert('users', user(3, { email: 'USER1@example.com' }))), 'email');
      await refused(() => store.transaction((tx) => tx.insert('users', user(3, { username: 'User2' }))), 'username');
      await refused(() => store.transaction((tx) => tx.update('users', 2, { keyHash: 'hash1' })), 'keyHash');
      await refused(() => store.transaction((tx) => tx.put('users', { id: 7, ...user(7, { email: 'user2@example.com' }) })), 'email');
      // A refused write inside a bigger transaction: nothing of it is kept.
      await refused(
        () =>
          store.transaction(async (tx) => {
            await tx.insert('users', user(5));
            await tx.insert('users', user(6, { username: 'USER5' }));
          }),
        'username',
      );
      assert.equal(await store.count('users'), 2);
      assert.equal(await store.lookup('users', 'email', 'user5@example.com'), undefined);
      assert.equal((await store.get('users', 2))?.keyHash, 'hash2');
      // Caught inside the transaction, a conflict leaves the rest of it to commit.
      const id = await store.transaction(async (tx) => {
        await tx.insert('users', user(1)).catch((err: unknown) => assert.ok(err instanceof ConflictError));
        return (await tx.insert('users', user(8))).id;
      });
      assert.deepEqual(await store.get('users', id), { id, ...user(8) });
      // Keeping one's own key is no conflict.
      await store.transaction((tx) => tx.update('users', 1, { email: 'user1@example.com', admin: true }));
      assert.equal((await store.get('users', 1))?.admin, true);
    });

    test('updateMany: changes in order (one record\'s compose), index keys moved, missing ids undefined; a clash changes none of them', async () => {
      await store.transaction(async (tx) => {
        for (const n of [1, 2, 3]) await tx.insert('users', user(n, { n: 0 }));
      });
      const odd = 'NUL \u0000, a lone \ud800 and "quotes" \\';
      const out = await store.transaction((tx) =>
        tx.updateMany('users', [
          { id: 2, patch: { n: 1, email: 'two@example.com' } },
          { id: 99, patch: { n: 1 } },
          { id: 1, patch: { avatar: odd } },
          { id: 2, patch: { n: 2 } },
        ]),
      );
      assert.deepEqual(out.map((r) => r && [r.id, r.n, r.email]), [[2, 1, 'two@example.com'], undefined, [1, 0, 'user1@example.com'], [2, 2, 'two@example.com']]);
      assert.deepEqual(plain(await store.get('users', 2)), plain({ id: 2, ...user(2, { n: 2, email: 'two@example.com' }) }));
      assert.equal((await store.get('users', 1))?.avatar, odd, 'text PostgreSQL cannot hold comes back as written');
      assert.equal((await store.lookup('users', 'email', 'two@example.com'))?.id, 2, 'the index follows the new key');
      assert.equal(await store.lookup('users', 'email', 'user2@example.com'), undefined);
      assert.deepEqual(await store.transaction((tx) => tx.updateMany('users', [])), []);
      // A clash: the call fails as a whole, and the transaction that caught it goes on and commits.
      const after = await store.transaction(async (tx) => {
        await assert.rejects(
          tx.updateMany('users', [{ id: 3, patch: { n: 3 } }, { id: 1, patch: { email: 'USER3@example.com' } }]),
          (err: unknown) => err instanceof ConflictError && err.index === 'email',
        );
        return tx.update('users', 1, { n: 1 });
      });
      assert.equal(after?.n, 1);
      assert.equal((await store.get('users', 3))?.n, 0, 'the change before the clash is not kept');
      assert.equal((await store.get('users', 1))?.email, 'user1@example.com');
    });

    test('getManyForUpdate reads the records that exist; a concurrent read-then-write of them waits for the first to commit', async () => {
      await store.transaction(async (tx) => {
        for (const n of [1, 2]) await tx.insert('users', user(n, { n: 0 }));
      });
      assert.deepEqual([...(await store.transaction((tx) => tx.getManyForUpdate('users', [2, 77, 1, 2]))).keys()].sort(), [1, 2]);
      // Two transactions add one to both counters from what they read: neither increment is lost.
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      const increment = (wait: boolean) =>
        store.transaction(async (tx) => {
          const got = await tx.getManyForUpdate<StoredRecord & { n: number }>('users', [1, 2]);
          if (wait) await held;
          await tx.updateMany('users', [...got.values()].map((r) => ({ id: r.id, patch: { n: r.n + 1 } })));
        });
      const first = increment(true);
      await new Promise((r) => setTimeout(r, 50));
      const second = increment(false);
      await new Promise((r) => setTimeout(r, 100));
      release();
      await Promise.all([first, second]);
      assert.deepEqual([(await store.get('users', 1))?.n, (await store.get('users', 2))?.n], [2, 2]);
    });

    test('takeDue: the smallest key at most the bound, then the smallest id; null keys never; concurrent takers get different records', async () => {
      const due = (ms: number | null) => ({ userId: 1, state: 'queued', due: ms });
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        for (const ms of [300, 100, null, 100, 900]) await tx.insert('imports', due(ms));
      });
      const key = (ms: number) => keyOf('imports', 'due', { id: 0, due: ms });
      assert.equal(await store.transaction((tx) => tx.takeDue('imports', 'due', key(50))), undefined);
      assert.equal((await store.transaction((tx) => tx.takeDue('imports', 'due', key(100))))?.id, 2);
      assert.equal((await store.transaction((tx) => tx.takeDue('imports', 'due', key(1000))))?.id, 2);
      // What a taker does with it: the next take finds the next one.
      await store.transaction(async (tx) => tx.update('imports', (await tx.takeDue('imports', 'due', key(1000)))!.id, { due: null }));
      assert.equal((await store.transaction((tx) => tx.takeDue('imports', 'due', key(1000))))?.id, 4);
      // Two transactions at once: the second passes over the record the first holds (the file store runs them one after the other).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let first: StoredRecord | undefined;
      let taking!: () => void;
      const took = new Promise<void>((resolve) => (taking = resolve));
      const one = store.transaction(async (tx) => {
        first = await tx.takeDue('imports', 'due', key(1000));
        taking();
        await held;
      });
      await took;
      const two = backend.postgres ? store.transaction((tx) => tx.takeDue('imports', 'due', key(1000))) : null;
      const second = await two;
      release();
      await one;
      assert.equal(first?.id, 4);
      if (backend.postgres) assert.equal(second?.id, 1);
    });

    test('a transaction that throws stores nothing and rejects with its error', async () => {
      await store.transaction((tx) => tx.insert('users', user(1)));
      const boom = new Error('boom');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insert('users', user(2));
          await tx.update('users', 1, { admin: true });
          await tx.remove('users', 1);
          throw boom;
        }),
        (err) => err === boom,
      );
      assert.deepEqual(await store.get('users', 1), { id: 1, ...user(1) });
      assert.equal(await store.count('users'), 1);
      assert.equal(await store.lookup('users', 'username', 'user2'), undefined);
    });

    test('removeWhere removes what the filter covers and says how many', async () => {
      await seedLinks();
      const gone = await store.transaction((tx) => tx.removeWhere('links', { owner: 1, conditions: [{ field: 'archived', equals: true }] }));
      assert.equal(gone, 1);
      assert.deepEqual(ids((await store.find('links')).items), [4, 3, 1]);
      assert.equal(await store.transaction((tx) => tx.removeWhere('links', { owner: 2 })), 2);
      assert.equal(await store.transaction((tx) => tx.removeWhere('links', { owner: 2 })), 0);
      assert.deepEqual(ids((await store.find('links')).items), [1]);
    });

    test('a below condition matches number fields under the value, never text or absent ones', async () => {
      await seedLinks();
      await store.transaction((tx) => tx.insert('links', { userId: 1, alias: 'text-clicks', domainId: null, url: 'https://a.example/t', clicks: '5' }));
      assert.deepEqual(ids((await store.find('links', { conditions: [{ field: 'clicks', below: 10 }] })).items), [2]);
      assert.equal(await store.count('links', { conditions: [{ field: 'clicks', below: 100.5 }] }), 4);
      assert.equal(await store.count('links', { conditions: [{ field: 'nothing', below: 1e9 }] }), 0);
      assert.equal(await store.transaction((tx) => tx.removeWhere('links', { conditions: [{ field: 'clicks', below: 11 }] })), 3);
      assert.deepEqual(ids((await store.find('links')).items), [5, 4]);
    });

    test('version and revision change with every committed write', async () => {
      const users = store.version('users');
      const links = store.version('links');
      const revision = store.revision();
      await store.transaction((tx) => tx.insert('users', user(1)));
      assert.notEqual(store.version('users'), users);
      assert.equal(store.version('links'), links);
      assert.notEqual(store.revision(), revision);
      const stats = store.version('stats');
      await store.addCounts([{ subject: 'link:1', day: '2024-01-01', counts: { clicks: 1 } }], 10);
      assert.notEqual(store.version('stats'), stats);
    });

    test('addCounts sums across calls: totals, labels, and labels past maxLabels under (other)', async () => {
      await store.transaction((tx) => tx.insert('users', user(1)));
      await store.addCounts([{ subject: 'link:1', day: '2024-03-02', owner: 1, counts: { clicks: 2, country: { FR: 1, DE: 2 } } }], 3);
      await store.addCounts(
        [
          { subject: 'link:1', day: '2024-03-02', owner: 1, counts: { clicks: 3, uniqueClicks: 1, country: { FR: 1, US: 1, GB: 4 } } },
          { subject: 'link:1', day: '2024-03-02', owner: 1, counts: { clicks: 1, country: { IT: 1, DE: 1, '': 2 } } },
          { subject: 'link:1', day: '2024-03-01', owner: 1, counts: { clicks: 7, language: { '': 1 } } },
        ],
        3,
      );
      const days = plain(await store.countedDays('link:1'));
      assert.deepEqual(days, [
        { day: '2024-03-01', counts: { clicks: 7, language: { '': 1 } } },
        // FR, DE, US fill the three places; GB, IT, '' go to (other), which takes a fourth.
        { day: '2024-03-02', counts: { clicks: 6, uniqueClicks: 1, country: { FR: 2, DE: 3, US: 1, '(other)': 7 } } },
      ]);
      const totals = await store.countTotals(['link:1', 'link:2'], ['clicks', 'uniqueClicks', 'visits']);
      assert.deepEqual(plain([...totals]), [
        ['link:1', { clicks: 13, uniqueClicks: 1, visits: 0 }],
        ['link:2', { clicks: 0, uniqueClicks: 0, visits: 0 }],
      ]);
      // A visitor's label named like a prototype member is just a label.
      await store.addCounts([{ subject: 'link:9', day: '2024-03-02', counts: { page: JSON.parse('{"__proto__": 2, "constructor": 1}') as Record<string, number> } }], 10);
      const [day] = await store.countedDays('link:9');
      const page = day!.counts.page as Record<string, number>;
      assert.deepEqual([Object.hasOwn(page, '__proto__'), page['__proto__'], page.constructor], [true, 2, 1]);
    });

    test('a busy second\'s batch of counts is written in turns of the event loop, summed per day as one (PostgreSQL: in several statements)', async () => {
      await store.transaction((tx) => tx.insert('users', user(1)));
      // 1,000 subjects of five rows each, more than one statement's share on PostgreSQL, and a second delta of one day.
      const deltas = Array.from({ length: 1000 }, (_, i) => ({ subject: `link:${i}`, day: '2024-06-01', owner: 1, counts: { clicks: 2, country: { FR: 1, DE: 1 }, browser: { Firefox: 1, [`b${i}`]: 1 } } }));
      deltas.push({ subject: 'link:7', day: '2024-06-01', owner: 1, counts: { clicks: 1, country: { FR: 1 } } as never });
      const recorder = backend.postgres ? recordQueries() : null;
      // The turns the store's own loops give (Turns.next): waits on the database or the disk give others.
      setTurnSlice(0);
      let turns = 0;
      const next = Turns.prototype.next;
      Turns.prototype.next = function (this: Turns) {
        turns++;
        return next.call(this);
      };
      try {
        await store.addCounts(deltas, 100);
      } finally {
        Turns.prototype.next = next;
        setTurnSlice(4);
        recorder?.restore();
      }
      // A turn between every two deltas at least (a slice of 0 ms gives one at each check); in one piece, none.
      assert.ok(turns >= 1000, `${turns} turns given while 1,001 deltas were written`);
      const totals = await store.countTotals(['link:0', 'link:7', 'link:999'], ['clicks']);
      assert.deepEqual(plain([...totals]), [['link:0', { clicks: 2 }], ['link:7', { clicks: 3 }], ['link:999', { clicks: 2 }]]);
      assert.deepEqual(plain(await store.countedDays('link:7')), [{ day: '2024-06-01', counts: { clicks: 3, country: { FR: 2, DE: 1 }, browser: { Firefox: 1, b7: 1 } } }]);
      assert.deepEqual(plain(await store.countedDays('link:999')), [{ day: '2024-06-01', counts: { clicks: 2, country: { FR: 1, DE: 1 }, browser: { Firefox: 1, b999: 1 } } }]);
      if (recorder) {
        const upserts = recorder.sent.filter((q) => /^INSERT INTO stat_counts/.test(q.text.trimStart()));
        assert.ok(upserts.length >= 2, `${upserts.length} statements for 5,000 rows`);
        // The rows of a day go in one statement, where they are summed.
        const daysOf = upserts.map((q) => new Set((JSON.parse(q.values[0] as string) as { d: number }[]).map((r) => r.d)));
        const seen = new Set<number>();
        for (const days of daysOf) for (const d of days) assert.ok(!seen.has(d) && seen.add(d), `day ${d} in one statement only`);
        assert.equal(seen.size, 1000);
      }
    });

    test('countedDays between two days, inclusive; dropCounts forgets a subject; deltas of a deleted owner are dropped', async () => {
      await store.transaction(async (tx) => {
        await tx.insert('users', user(1));
        await tx.insert('users', user(2));
      });
      const deltas = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04'].map((day, i) => ({ subject: 'website:1', day, owner: 1, counts: { pageviews: i + 1 } }));
      await store.addCounts(deltas, 10);
      await store.addCounts([{ subject: 'website:2', day: '2024-01-02', owner: 2, counts: { pageviews: 9 } }], 10);
      const days = async (subject: string, from?: string, to?: string) => plain(await store.countedDays(subject, from, to)).map((d) => `${d.day}=${d.counts.pageviews}`);
      assert.deepEqual(await days('website:1', '2024-01-02', '2024-01-03'), ['2024-01-02=2', '2024-01-03=3']);
      assert.deepEqual(await days('website:1', '2024-01-03'), ['2024-01-03=3', '2024-01-04=4']);
      assert.deepEqual(await days('website:1', undefined, '2024-01-01'), ['2024-01-01=1']);
      assert.deepEqual(await days('website:1', '2024-01-05', '9999-99-99'), []);
      assert.deepEqual(await days('website:3'), []);
      await store.transaction((tx) => tx.dropCounts('website:1'));
      assert.deepEqual(await days('website:1'), []);
      assert.deepEqual(await days('website:2'), ['2024-01-02=9']);
      // The owner is gone by the time its counts are flushed: they are not written.
      await store.transaction((tx) => tx.remove('users', 2));
      await store.addCounts([{ subject: 'website:2', day: '2024-01-03', owner: 2, counts: { pageviews: 1 } }, { subject: 'website:5', day: '2024-01-03', owner: 1, counts: { pageviews: 5 } }], 10);
      assert.deepEqual(await days('website:2', '2024-01-03'), []);
      assert.deepEqual(await days('website:5'), ['2024-01-03=5']);
    });

    test('replaceAll and scan round-trip every collection, statistics days included; ids continue after the largest', async () => {
      await seedLinks();
      const data: Record<string, StoredRecord[]> = {
        users: [{ id: 3, ...user(3) }, { id: 7, ...user(7, { admin: true, planid: null }) }],
        links: [1, 2, 3, 4, 5].map((n) => ({ id: n * 2, userId: n % 2 ? 3 : 7, alias: `l${n}`, domainId: null, url: `https://e.example/${n}`, channels: [n], meta: { deep: [n, { x: 'y' }] } })),
        qrs: [{ id: 4, userId: 3, alias: 'q', name: 'QR', data: { text: 'hi' } }],
        pixels: [{ id: 1, userId: 3, type: 'gtag', tag: 'G-1' }],
        campaigns: [{ id: 2, userId: 7, name: 'C', slug: 'c' }],
        channels: [{ id: 9, userId: 7, name: 'Ch', starred: true }],
        bios: [{ id: 5, userId: 3, alias: 'Bio', name: 'B' }],
        domains: [{ id: 6, userId: 3, domain: 'https://short.example' }],
        overlays: [{ id: 1, userId: 7, type: 'message', name: 'O' }],
        splash: [{ id: 3, userId: 7, name: 'S', countdown: 3 }],
        websites: [{ id: 8, userId: 3, domain: 'site.example', name: 'W' }],
        stats: [
          { id: 4, subject: 'link:2', day: '2024-05-01', userId: 7, counts: { clicks: 3, country: { FR: 2, '': 1 } } },
          { id: 9, subject: 'website:8', day: '2024-05-02', userId: 3, counts: { pageviews: 5, visitors: 0 } },
        ],
      };
      await store.replaceAll(data);
      for (const [name, records] of Object.entries(data)) {
        const scanned: StoredRecord[] = [];
        let batches = 0;
        for await (const batch of store.scan(name, 2)) {
          batches++;
          scanned.push(...batch);
        }
        assert.deepEqual(plain(scanned), plain(records), name);
        assert.equal(batches, Math.ceil(records.length / 2), name);
      }
      // Nothing of before is left, and ids go on after the largest of each collection.
      assert.equal(await store.lookup('users', 'username', 'user1'), undefined);
      assert.equal((await store.transaction((tx) => tx.insert('links', { userId: 3, alias: 'n', domainId: null }))).id, 11);
      assert.equal((await store.transaction((tx) => tx.insert('users', user(8)))).id, 8);
      assert.deepEqual(plain(await store.countedDays('link:2')), [{ day: '2024-05-01', counts: { clicks: 3, country: { FR: 2, '': 1 } } }]);
      assert.deepEqual(plain((await store.get('stats', 9))!), data.stats![1]);
      assert.deepEqual(ids((await store.find('stats', { owner: 3 })).items), [9]);
      // Counts added to an imported day go on from its numbers.
      await store.addCounts([{ subject: 'link:2', day: '2024-05-01', owner: 7, counts: { clicks: 1, country: { FR: 1 } } }], 10);
      assert.deepEqual(plain((await store.get('stats', 4))!), { id: 4, subject: 'link:2', day: '2024-05-01', userId: 7, counts: { clicks: 4, country: { FR: 3, '': 1 } } });
      await store.replaceAll({});
      assert.equal(await store.count('links'), 0);
      assert.deepEqual(await store.countedDays('link:2'), []);
    });

    test('strings PostgreSQL text cannot hold (NUL, lone surrogates) come back as they were written', async () => {
      await store.transaction((tx) => tx.insert('users', user(1)));
      const title = 'a\u0000b\u0001c\ud800d\udfffe\ud83d\ude00';
      const link = await store.transaction((tx) => tx.insert('links', { userId: 1, alias: `x\u0000y`, domainId: null, title, [`k\u0000`]: 1 }));
      assert.deepEqual(await store.get('links', link.id), link);
      assert.equal((await store.lookup('links', 'alias', '0:x\u0000y'))?.id, link.id);
      assert.deepEqual(ids((await store.find('links', { search: { text: '\u0000B\u0001', fields: ['title'] } })).items), [link.id]);
      assert.deepEqual(ids((await store.find('links', { conditions: [{ field: 'title', equals: title }] })).items), [link.id]);
      await store.addCounts([{ subject: 'link:1', day: '2024-01-01', counts: { event: { 'n\u0000ul': 1, '\ud800': 2 } } }], 10);
      assert.deepEqual(plain(await store.countedDays('link:1')), plain([{ day: '2024-01-01', counts: { event: { 'n\u0000ul': 1, '\ud800': 2 } } }]));
    });

    test('the visitor ledger is kept and read back', async () => {
      const bits = new Uint8Array(4096);
      bits[0] = 1;
      bits[4095] = 255;
      await store.saveLedger({ day: '2024-01-02', salt: 'salt-1', bits });
      const loaded = await store.loadLedger();
      assert.deepEqual([loaded?.day, loaded?.salt, Array.from(loaded?.bits ?? [])], ['2024-01-02', 'salt-1', Array.from(bits)]);
      await store.saveLedger({ day: '2024-01-03', salt: 'salt-2', bits: null });
      assert.deepEqual(await store.loadLedger(), { day: '2024-01-03', salt: 'salt-2', bits: null });
    });

    if (backend.postgres) {
      test('deleting a user deletes its records and its counts (foreign keys, one statement)', async () => {
        await seedLinks();
        await store.transaction((tx) => tx.insert('websites', { userId: 1, domain: 'one.example' }));
        await store.addCounts(
          [
            { subject: 'link:1', day: '2024-01-01', owner: 1, counts: { clicks: 2 } },
            { subject: 'link:3', day: '2024-01-01', owner: 2, counts: { clicks: 3 } },
          ],
          10,
        );
        const before = store.version('links');
        assert.equal(await store.transaction((tx) => tx.remove('users', 1)), true);
        assert.notEqual(store.version('links'), before);
        assert.deepEqual(ids((await store.find('links')).items), [4, 3]);
        assert.equal(await store.count('websites'), 0);
        assert.deepEqual(await store.countedDays('link:1'), []);
        assert.deepEqual(plain(await store.countedDays('link:3')), [{ day: '2024-01-01', counts: { clicks: 3 } }]);
        assert.deepEqual(ids((await store.find('stats')).items).length, 1);
      });
    }
  });
}
