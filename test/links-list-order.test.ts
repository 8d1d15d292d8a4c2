import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Sort, Store, StoredRecord } from '../src/store/store.ts';
import { openTestStore, releaseTestStore, TEST_BACKEND } from './backend.ts';

/**
 * The links list's search and clicks order, as GET /api/urls and /app/links ask the store: a search
 * is a case-insensitive substring of one of the fields (never of two fields joined), and the clicks
 * order is the all-time `clicks` total of each link's statistics, ties by id, whatever happened to
 * those statistics since (days added, removed by retention, rewritten by an import; links deleted,
 * moved to another owner). PostgreSQL keeps that total in a table of its own (migration 014): after
 * every step the order must be the one the statistics themselves give (countTotals).
 */
const SEARCHED = ['url', 'alias', 'title'];
const CLICKS = (direction: 'asc' | 'desc'): Sort => ({ counter: 'clicks', subjectPrefix: 'link:', direction });
const ids = (items: readonly StoredRecord[]) => items.map((r) => r.id);

describe(`links list: search and clicks order (${TEST_BACKEND})`, () => {
  let store: Store;
  let alice = 0;
  let bob = 0;
  const linkIds: number[] = [];

  before(async () => {
    store = await openTestStore();
    await store.transaction(async (tx) => {
      alice = (await tx.insert('users', { username: 'alice', email: 'alice@example.com', keyHash: 'ka', admin: false })).id;
      bob = (await tx.insert('users', { username: 'bob', email: 'bob@example.com', keyHash: 'kb', admin: false })).id;
      const rows = [
        { url: 'https://shop.example/Summer-SALE', alias: 'sale', title: 'Summer' },
        { url: 'https://blog.example/one', alias: 'b-one', title: 'First post' },
        { url: 'https://blog.example/100%_off\\now', alias: 'pct', title: '' },
        { url: 'https://docs.example/api', alias: 'api', title: 'API docs' },
        { url: 'https://docs.example/x', alias: 'x', title: 'Salt' },
        { url: 'https://a.example/', alias: 'aa' },
      ];
      for (const r of rows) linkIds.push((await tx.insert('links', { ...r, userId: alice, domainId: null, channels: [] })).id);
      linkIds.push((await tx.insert('links', { url: 'https://bob.example/sale', alias: 'bob-sale', title: '', userId: bob, domainId: null, channels: [] })).id);
      linkIds.push((await tx.insert('links', { url: 'https://bob.example/nl', alias: 'nl', title: 'Line one\nLine two', userId: bob, domainId: null, channels: [] })).id);
    });
  });
  after(() => releaseTestStore(store));

  const search = async (text: string, fields = SEARCHED, owner = alice) =>
    ids((await store.find('links', { owner, search: { text, fields }, sort: { field: 'id', direction: 'asc' } })).items);

  test('a search is a case-insensitive substring of one field, wildcards and backslashes as themselves', async () => {
    const [sale, one, pct, api, salt, aa] = linkIds;
    assert.deepEqual(await search('SALE'), [sale]);
    assert.deepEqual(await search('sal'), [sale, salt]);
    assert.deepEqual(await search('Example'), [sale, one, pct, api, salt, aa]);
    assert.deepEqual(await search('100%_'), [pct]);
    assert.deepEqual(await search('%'), [pct]);
    assert.deepEqual(await search('_'), [pct]);
    assert.deepEqual(await search('\\now'), [pct]);
    assert.deepEqual(await search('api docs'), [api]);
    assert.deepEqual(await search('a'), [sale, one, pct, api, salt, aa]);
    assert.deepEqual(await search('zz'), []);
    // Text that runs from the end of one field into the next matches neither field.
    assert.deepEqual(await search('sale\nsale'), []);
    assert.deepEqual(await search('/api\napi'), []);
    assert.deepEqual(await search('apiapi'), []);
    // A line break inside one field is found like any other text.
    assert.deepEqual(await search('E\nl', SEARCHED, bob), [linkIds[7]]);
    assert.deepEqual(await search('one', SEARCHED, bob), [linkIds[7]]);
    assert.deepEqual(await search('nl\nline', SEARCHED, bob), []);
    assert.deepEqual(await search('SALE', ['title', 'alias', 'url']), [sale]);
    // Fields the index does not hold, or fewer than it holds, are searched as they are.
    assert.deepEqual(await search('post', ['title']), [one]);
    assert.deepEqual(await search('post', ['url', 'alias']), []);
    assert.deepEqual(await search('docs', ['alias', 'description']), []);
    // Only the owner's links; the total counts the matches.
    assert.deepEqual(await search('sale', SEARCHED, bob), [linkIds[6]]);
    const page = await store.find('links', { owner: alice, search: { text: 'example', fields: SEARCHED }, offset: 1, limit: 2 });
    assert.deepEqual([page.total, ids(page.items)], [6, [salt, api]]);
  });

  test('a capped count: a search or filter counts up to countUpTo, a whole owner exactly', async () => {
    const query = { owner: alice, search: { text: 'example', fields: SEARCHED }, limit: 2 };
    const capped = await store.find('links', { ...query, countUpTo: 3 });
    assert.deepEqual([capped.total, capped.more, capped.items.length], [3, true, 2]);
    assert.deepEqual(await store.find('links', { ...query, countUpTo: 6 }).then((f) => [f.total, f.more]), [6, undefined]);
    assert.deepEqual(await store.find('links', query).then((f) => [f.total, f.more]), [6, undefined]);
    const filtered = await store.find('links', { owner: alice, conditions: [{ field: 'domainId', equals: null }], limit: 1, countUpTo: 0 });
    assert.deepEqual([filtered.total, filtered.more, filtered.items.length], [0, true, 1]);
    // The owner's whole list: its kept total, never capped.
    assert.deepEqual(await store.find('links', { owner: alice, limit: 1, countUpTo: 2 }).then((f) => [f.total, f.more]), [6, undefined]);
  });

  /** The order the statistics give: totals from countTotals, ties by id, in `direction`. */
  async function expected(owner: number, direction: 'asc' | 'desc'): Promise<number[]> {
    const mine = (await store.find('links', { owner })).items.map((r) => r.id);
    const totals = await store.countTotals(mine.map((id) => `link:${id}`), ['clicks']);
    const clicks = (id: number) => totals.get(`link:${id}`)!.clicks!;
    const sign = direction === 'asc' ? 1 : -1;
    return mine.sort((a, b) => sign * (clicks(a) - clicks(b) || a - b));
  }

  /** Every page of 2 and the whole list, both directions, for both owners, against `expected`. */
  async function assertClicksOrder(step: string): Promise<void> {
    for (const owner of [alice, bob]) {
      for (const direction of ['desc', 'asc'] as const) {
        const want = await expected(owner, direction);
        const all = await store.find('links', { owner, sort: CLICKS(direction) });
        assert.deepEqual(ids(all.items), want, `${step}: ${direction}, owner ${owner}`);
        const paged: number[] = [];
        for (let offset = 0; offset < want.length; offset += 2) {
          const page = await store.find('links', { owner, sort: CLICKS(direction), offset, limit: 2 });
          assert.equal(page.total, want.length, step);
          paged.push(...ids(page.items));
        }
        assert.deepEqual(paged, want, `${step}: pages of 2, ${direction}`);
      }
    }
  }

  test('the clicks order follows the statistics through every change to them, ties by id', async () => {
    const [sale, one, pct, api, salt] = linkIds as [number, number, number, number, number];
    await assertClicksOrder('no clicks yet: by id');
    await store.addCounts(
      [
        { subject: `link:${sale}`, day: '2024-01-01', owner: alice, counts: { clicks: 5, country: { FR: 5 } } },
        { subject: `link:${sale}`, day: '2024-01-02', owner: alice, counts: { clicks: 4 } },
        { subject: `link:${one}`, day: '2024-01-02', owner: alice, counts: { clicks: 9 } },
        { subject: `link:${pct}`, day: '2024-01-03', owner: alice, counts: { clicks: 9, visits: 40 } },
        { subject: `link:${api}`, day: '2024-01-01', owner: alice, counts: { visits: 70 } },
        { subject: `qr:${api}`, day: '2024-01-01', counts: { clicks: 100 } },
      ],
      100,
    );
    await assertClicksOrder('first counts: three links tied at 9');
    // The same (subject, day) again: the stored counts grow.
    await store.addCounts([{ subject: `link:${api}`, day: '2024-01-01', owner: alice, counts: { clicks: 3 } }, { subject: `link:${sale}`, day: '2024-01-02', owner: alice, counts: { clicks: 2 } }], 100);
    await assertClicksOrder('counts added to stored days');
    // A count taken back (a visitor another process saw first).
    await store.addCounts([{ subject: `link:${sale}`, day: '2024-01-02', owner: alice, counts: { clicks: -6 } }], 100);
    await assertClicksOrder('a count taken back');
    // Retention removes the oldest day of every subject.
    assert.equal(await store.pruneDays('2024-01-02', 100), 3);
    await assertClicksOrder('the first day pruned');
    // An import rewrites a stored day under its id, and stores another.
    const days = await store.find('stats', { sort: { field: 'id', direction: 'asc' } });
    const oneDay = days.items.find((d) => d.subject === `link:${one}`)!;
    await store.transaction(async (tx) => {
      await tx.put('stats', { ...oneDay, counts: { clicks: 1 } });
      await tx.put('stats', { id: 999, userId: alice, subject: `link:${salt}`, day: '2024-02-01', counts: { clicks: 20 } });
    });
    await assertClicksOrder('days put by an import');
    await store.transaction(async (tx) => {
      await tx.put('stats', { id: 999, userId: alice, subject: `link:${pct}`, day: '2024-02-01', counts: { clicks: 20 } });
    });
    await assertClicksOrder('a day put under another subject');
    // A link given to bob, a link deleted with its statistics.
    await store.transaction(async (tx) => {
      await tx.update('links', pct, { userId: bob });
      await tx.remove('links', one);
      await tx.dropCounts(`link:${one}`);
    });
    await assertClicksOrder('a link moved, a link deleted');
    // A link stored again under its old id, whose statistics are still there, starts with them.
    await store.transaction(async (tx) => {
      await tx.addCounts([{ subject: 'link:777', day: '2024-03-01', owner: alice, counts: { clicks: 50 } }], 100);
      await tx.put('links', { id: 777, userId: alice, url: 'https://late.example/', alias: 'late', title: '', domainId: null, channels: [] });
    });
    await assertClicksOrder('a link put after its statistics');
    // A search and the clicks order together, one page.
    const page = await store.find('links', { owner: alice, search: { text: 'sal', fields: SEARCHED }, sort: CLICKS('desc'), limit: 1 });
    assert.deepEqual([page.total, ids(page.items)], [2, [salt]]);
  });
});
