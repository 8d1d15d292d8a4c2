import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotOf, testApp } from './helpers.ts';

const NAME_RULE = 'Campaign name cannot be empty and must have at least 2 characters.';
const SLUG_TAKEN = 'This slug is currently not available. Please choose another one.';

test('campaigns', async (t) => {
  const { call, store, makeUser } = await testApp({ rateLimit: 1000 });
  const alice = await makeUser('alice');
  const bob = await makeUser('bob');
  const add = (body: unknown, key = alice.key) => call('POST', '/api/campaign/add', { key, body });
  const update = (id: number, body: unknown, key = alice.key) => call('PUT', `/api/campaign/${id}/update`, { key, body });
  const assign = (campaign: number | string, link: number | string, key = alice.key) => call('POST', `/api/campaign/${campaign}/assign/${link}`, { key });
  let urls = 0;
  const addLink = async (key = alice.key) => (await call('POST', '/api/url/add', { key, body: { url: `https://example.com/c/${++urls}` } })).body.id as number;

  await t.test('add answers the reference shape, the name under domain and name, rotator and list URLs', async () => {
    const r = await add({ name: 'Promo', slug: 'promo', public: true });
    assert.equal(r.status, 200, r.text);
    const id = r.body.id;
    assert.deepEqual(r.body, { error: 0, id, domain: 'Promo', name: 'Promo', public: true, rotator: 'http://sho.rt/r/promo', list: `http://sho.rt/u/user_alice/promo-${id}` });
    const stored = (await store.get('campaigns', id))!;
    assert.deepEqual({ ...stored }, { id, userId: alice.id, date: '2026-11-21 10:00:00', name: 'Promo', slug: 'promo', public: true, views: 0 });
  });

  await t.test('without a slug there is no rotator, public defaults to false, and the name is trimmed', async () => {
    const r = await add({ name: '  Plain  ' });
    const id = r.body.id;
    assert.deepEqual(r.body, { error: 0, id, domain: 'Plain', name: 'Plain', public: false, rotator: false, list: `http://sho.rt/u/user_alice/plain-${id}` });
    assert.equal((await store.get('campaigns', id))!.slug, null);
  });

  const rejected: { name: string; body: unknown; message: string | RegExp; key?: 'bob' }[] = [
    { name: 'a missing name', body: { slug: 'abc' }, message: NAME_RULE },
    { name: 'an empty name', body: { name: '' }, message: NAME_RULE },
    { name: 'a one-character name', body: { name: ' x ' }, message: NAME_RULE },
    { name: 'a name the user already has, in another case', body: { name: 'PROMO' }, message: 'You already have a campaign with that name.' },
    { name: 'a slug too short', body: { name: 'New one', slug: 'ab' }, message: /Slug must be 3 to 64/ },
    { name: 'a slug with a slash', body: { name: 'New one', slug: 'a/b/c' }, message: /Slug must be 3 to 64/ },
    { name: 'a slug of 65 characters', body: { name: 'New one', slug: 'a'.repeat(65) }, message: /Slug must be 3 to 64/ },
    { name: "another user's slug", body: { name: 'Bobs', slug: 'promo' }, message: SLUG_TAKEN, key: 'bob' },
    { name: 'a taken slug in another case', body: { name: 'New one', slug: 'PROMO' }, message: SLUG_TAKEN },
    { name: 'public as a string', body: { name: 'New one', public: 'yes' }, message: /public/ },
  ];
  for (const c of rejected) {
    await t.test(`add refuses ${c.name} with a 400 and stores nothing`, async () => {
      const before = await snapshotOf(store, 'campaigns');
      const r = await add(c.body, c.key === 'bob' ? bob.key : alice.key);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 1);
      if (typeof c.message === 'string') assert.equal(r.body.message, c.message);
      else assert.match(r.body.message, c.message);
      assert.equal(await snapshotOf(store, 'campaigns'), before);
    });
  }

  await t.test('another user may use the same name', async () => {
    const r = await add({ name: 'Promo' }, bob.key);
    assert.equal(r.status, 200, r.text);
    assert.equal((await store.get('campaigns', r.body.id))!.userId, bob.id);
  });

  await t.test('list entries carry name, domain, public, rotator, list and views', async () => {
    const r = await call('GET', '/api/campaigns', { key: alice.key });
    assert.equal(r.status, 200);
    const [plain, promo] = r.body.data.campaigns;
    assert.deepEqual(promo, { id: promo.id, name: 'Promo', domain: 'Promo', public: true, rotator: 'http://sho.rt/r/promo', list: `http://sho.rt/u/user_alice/promo-${promo.id}`, views: 0 });
    assert.equal(plain.name, 'Plain');
    assert.equal(r.body.data.result, 2);
  });

  await t.test('update answers the add shape; an omitted slug is kept, an empty one removes the rotator', async () => {
    const id = (await add({ name: 'Summer', slug: 'summer' })).body.id;
    const renamed = await update(id, { name: 'Summer 2027', public: true });
    assert.deepEqual(renamed.body, { error: 0, id, domain: 'Summer 2027', name: 'Summer 2027', public: true, rotator: 'http://sho.rt/r/summer', list: `http://sho.rt/u/user_alice/summer-${id}` });
    const cleared = await update(id, { name: 'Summer 2027', slug: '' });
    assert.equal(cleared.body.rotator, false);
    assert.deepEqual({ ...(await store.get('campaigns', id))! }, { id, userId: alice.id, date: '2026-11-21 10:00:00', name: 'Summer 2027', slug: null, public: true, views: 0 });
  });

  await t.test('update keeps its own name and slug but refuses another campaign’s, storing nothing', async () => {
    const id = (await add({ name: 'Winter', slug: 'winter' })).body.id;
    assert.equal((await update(id, { name: 'winter', slug: 'WINTER' })).status, 200);
    const before = await snapshotOf(store, 'campaigns');
    const cases: [unknown, string][] = [
      [{ name: 'Promo' }, 'You already have a campaign with that name.'],
      [{ name: 'Winter', slug: 'promo' }, SLUG_TAKEN],
      [{ slug: 'other' }, NAME_RULE],
      [{ name: 'Q' }, NAME_RULE],
    ];
    for (const [body, message] of cases) {
      const r = await update(id, body);
      assert.deepEqual([r.status, r.body], [400, { error: 1, message }], JSON.stringify(body));
    }
    assert.equal(await snapshotOf(store, 'campaigns'), before);
  });

  await t.test('assign puts a link in the campaign, and moving it leaves the first', async () => {
    const first = (await add({ name: 'First' })).body.id;
    const second = (await add({ name: 'Second' })).body.id;
    const link = await addLink();
    const r = await assign(first, link);
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'Link successfully added to the campaign.' }]);
    assert.equal((await store.get('links', link))!.campaign, first);
    assert.equal((await assign(second, link)).status, 200);
    assert.equal((await store.get('links', link))!.campaign, second);
  });

  await t.test('views in the list count the visits of the rotator', async () => {
    const id = (await add({ name: 'Rotating', slug: 'rotating' })).body.id;
    await assign(id, await addLink());
    const visit = await call('GET', '/r/rotating', { key: null, headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/120.0' } });
    assert.equal(visit.status, 302, visit.text);
    const list = await call('GET', '/api/campaigns?q=rotating', { key: alice.key });
    assert.deepEqual(list.body.data.campaigns.map((c: { id: number; views: number }) => [c.id, c.views]), [[id, 1]]);
  });

  await t.test("unknown or another user's campaign or link is a 404 that changes nothing", async () => {
    const mine = (await add({ name: 'Mine' })).body.id;
    const theirs = (await add({ name: 'Theirs' }, bob.key)).body.id;
    const myLink = await addLink();
    const theirLink = await addLink(bob.key);
    const before = await snapshotOf(store, 'links');
    const campaignGone = { error: 1, message: 'Campaign not found. Please try again.' };
    const linkGone = { error: 1, message: 'Link not found. Please try again.' };
    const cases: [number | string, number | string, unknown][] = [
      [999999, myLink, campaignGone],
      [theirs, myLink, campaignGone],
      ['abc', myLink, campaignGone],
      [mine, 999999, linkGone],
      [mine, theirLink, linkGone],
      [mine, '-1', linkGone],
    ];
    for (const [campaign, link, body] of cases) {
      const r = await assign(campaign, link);
      assert.deepEqual([r.status, r.body], [404, body], `${campaign}/${link}`);
    }
    assert.equal(await snapshotOf(store, 'links'), before);
  });

  await t.test("deleting a campaign leaves its links unassigned, and touches nobody else's", async () => {
    const id = (await add({ name: 'Doomed', slug: 'doomed' })).body.id;
    const inside = await addLink();
    const outside = await addLink();
    const keep = (await add({ name: 'Kept' })).body.id;
    await assign(id, inside);
    await assign(keep, outside);
    const r = await call('DELETE', `/api/campaign/${id}/delete`, { key: alice.key });
    assert.deepEqual([r.status, r.body], [200, { error: 0, message: 'Campaign has been deleted successfully.' }]);
    assert.equal((await store.get('campaigns', id)), undefined);
    assert.equal((await store.get('links', inside))!.campaign, null);
    assert.equal((await store.get('links', outside))!.campaign, keep);
    // The slug is free again.
    assert.equal((await add({ name: 'Reborn', slug: 'doomed' }, bob.key)).status, 200);
  });
});

test('a public campaign page lists only public links without a password, and no destination of the others', async () => {
  const { call } = await testApp({ rateLimit: 1000 });
  const campaign = (await call('POST', '/api/campaign/add', { body: { name: 'Launch', slug: 'launch', public: true } })).body;
  const links = [
    { url: 'https://example.com/open-door', custom: 'open', status: 'public' },
    { url: 'https://example.com/secret-plan', custom: 'locked', status: 'public', password: 'hunter22' },
    { url: 'https://example.com/private-memo', custom: 'hidden', status: 'private' },
  ];
  for (const body of links) {
    const r = await call('POST', '/api/url/add', { body });
    assert.equal(r.status, 200, r.text);
    assert.equal((await call('POST', `/api/campaign/${campaign.id}/assign/${r.body.id}`)).status, 200);
  }
  const page = await call('GET', new URL(campaign.list).pathname, { key: null });
  assert.equal(page.status, 200);
  assert.match(page.text, /open-door/);
  assert.match(page.text, /http:\/\/sho\.rt\/open/);
  for (const hidden of ['secret-plan', 'private-memo', 'sho.rt/locked', 'sho.rt/hidden']) assert.doesNotMatch(page.text, new RegExp(hidden), hidden);
});

test('a campaign page has one readable URL, /u/<owner>/<slug or name>-<id>; other spellings and the old /c/ URL redirect to it; unknown, private or another user\'s are 404, but a private one\'s own URL says it is private', async () => {
  const { call } = await testApp({ rateLimit: 1000 });
  const add = async (body: Record<string, unknown>) => (await call('POST', '/api/campaign/add', { body: { public: true, ...body } })).body;
  const cases = [
    { body: { name: 'Launch', slug: 'Launch-Day' }, ref: 'launch-day-' },
    { body: { name: 'Spring Sale 2027!' }, ref: 'spring-sale-2027-' },
    { body: { name: 'Café crème' }, ref: 'cafe-creme-' },
    { body: { name: '夏のセール' }, ref: '' },
  ];
  for (const c of cases) {
    const campaign = await add(c.body);
    const path = `/u/admin/${c.ref}${campaign.id}`;
    assert.equal(campaign.list, `http://sho.rt${path}`, JSON.stringify(c.body));
    const page = await call('GET', path, { key: null });
    assert.equal(page.status, 200, path);
    assert.match(page.text, /<h1>/);
    const others = [`/u/admin/wrong-name-${campaign.id}`, `/u/admin/${campaign.id}`, `/u/ADMIN/${c.ref}${campaign.id}`, `/c/${campaign.id}`, `/c/${campaign.id}-old-name`];
    for (const other of others.filter((p) => p !== path)) {
      const r = await call('GET', other, { key: null });
      assert.deepEqual([r.status, r.headers.get('location')], [302, path], other);
    }
  }
  const hidden = await add({ name: 'Hidden', slug: 'secret-slug', public: false });
  const shown = await add({ name: 'Shown' });
  // Its own URL (the `list` the API gave its owner) says it is private, and shows nothing of it.
  assert.equal(hidden.list, `http://sho.rt/u/admin/secret-slug-${hidden.id}`);
  const own = await call('GET', `/u/admin/secret-slug-${hidden.id}`, { key: null });
  assert.deepEqual([own.status, own.headers.get('location')], [403, null]);
  assert.match(own.text, /<h1>This campaign is private<\/h1>/);
  assert.doesNotMatch(own.text, /Hidden|not found/i);
  // Any other spelling could be a guess: not found, and no redirect that would name the campaign.
  const paths = [`/u/admin/hidden-${hidden.id}`, `/u/admin/secret-slug-${hidden.id}/`, `/u/Admin/secret-slug-${hidden.id}`, `/u/admin/SECRET-SLUG-${hidden.id}`, `/u/admin/${hidden.id}`, `/u/someone-else/secret-slug-${hidden.id}`, `/c/${hidden.id}-hidden`, `/u/admin/nothing-999`, '/c/999-nothing', '/u/admin/spring-sale', `/u/someone-else/shown-${shown.id}`, `/u/adm/shown-${shown.id}`, '/c/spring-sale-2027'];
  for (const path of paths) {
    const r = await call('GET', path, { key: null });
    assert.equal(r.status, 404, path);
    assert.equal(r.headers.get('location'), null, path);
    assert.match(r.text, /not found/i, path);
    assert.doesNotMatch(r.text, /private|secret-slug/i, path);
  }
});
