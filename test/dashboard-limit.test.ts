import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

/**
 * The dashboard counts a signed-in user's forms against RATE_LIMIT, in the same counts as the
 * user's API calls (over it, a 429 page, HTML with Retry-After, and nothing stored: the dashboard is
 * no way around the API's limit), and the pages they open against DASHBOARD_PAGE_LIMIT, a budget of
 * their own. The clock is fixed: the window never rolls over here.
 */

async function world(rateLimit: number, dashboardPageLimit = 1000) {
  const t = await testApp({ rateLimit, dashboardPageLimit });
  const alice = await t.makeUser('alice');
  const bob = await t.makeUser('bob');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_alice', 'secret-pw')).status, 303, 'signing in is not counted');
  return { t, alice, bob, browser };
}

test('forms over RATE_LIMIT answer a 429 page with Retry-After and store nothing; pages go on to DASHBOARD_PAGE_LIMIT', async () => {
  const { t, alice, browser } = await world(3, 6);
  assert.equal((await browser.get('/app/links')).status, 200, 'page 1: the form is on it');
  for (let i = 0; i < 3; i++) {
    const made = await browser.post('/app/links', { url: `https://example.com/${i}` });
    assert.equal(made.status, 303, made.text);
  }
  assert.equal((await t.store.find('links', { owner: alice.id })).total, 3);

  const refused = await browser.post('/app/links', { url: 'https://example.com/over' });
  assert.equal(refused.status, 429);
  assert.match(refused.res.headers.get('content-type') ?? '', /^text\/html/);
  const wait = Number(refused.res.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.match(refused.text, /<h1>Too many requests<\/h1>/);
  assert.match(refused.text, /more than 3 changes \(forms and API calls together\)/);
  assert.equal((await t.store.find('links', { owner: alice.id })).total, 3, 'nothing was stored');

  // Pages have their own budget: six opened (the sign-in pages are not counted), the seventh refused.
  for (let i = 2; i <= 6; i++) assert.equal((await browser.get('/app/links')).status, 200, `page ${i}`);
  const over = await browser.get('/app/links');
  assert.equal(over.status, 429);
  assert.match(over.text, /more than 6 pages/);
  // The API with her key is over too: one budget.
  const api = await t.call('GET', '/api/urls', { key: alice.key });
  assert.equal(api.status, 429);
  // Signing out is not counted: it works over the limit.
  const out = await browser.post('/app/logout');
  assert.deepEqual([out.status, out.location], [303, '/app/login']);
  assert.equal((await t.store.find('sessions', { owner: alice.id })).total, 0);
});

test("API calls use up the dashboard's form budget, not its pages'; other users, and 0, are not limited", async () => {
  const { t, alice, bob, browser } = await world(2);
  for (let i = 0; i < 2; i++) assert.equal((await t.call('GET', '/api/urls', { key: alice.key })).status, 200);
  assert.equal((await browser.get('/app/links')).status, 200, 'pages are counted apart (and this one gives the form its token)');
  assert.equal((await browser.post('/app/links', { url: 'https://example.com/late' })).status, 429);
  // Bob's budget is his own.
  assert.equal((await t.call('GET', '/api/urls', { key: bob.key })).status, 200);
  const bobs = new DashClient(t.app);
  assert.equal((await bobs.signIn('user_bob', 'secret-pw')).status, 303);
  await bobs.get('/app/links');
  assert.equal((await bobs.post('/app/links', { url: 'https://example.com/bob' })).status, 303);
  assert.equal((await bobs.post('/app/links', { url: 'https://example.com/bob2' })).status, 429);

  const open = await testApp({ rateLimit: 0, dashboardPageLimit: 0 });
  await open.makeUser('carol');
  const carol = new DashClient(open.app);
  assert.equal((await carol.signIn('user_carol', 'secret-pw')).status, 303);
  for (let i = 0; i < 40; i++) assert.equal((await carol.get('/app/links')).status, 200);
});

test("the QR images a page shows are not counted (a list of QR codes shows 25), the page is", async () => {
  const { t, alice, browser } = await world(1000, 1);
  const qr = await t.call('POST', '/api/qr/add', { key: alice.key, body: { type: 'text', data: 'Counted once', name: 'One' } });
  assert.equal(qr.status, 200, qr.text);
  const link = await t.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/qr' } });
  assert.equal(link.status, 200, link.text);
  for (let i = 0; i < 5; i++) {
    const image = await browser.get(`/app/qrs/${qr.body.id}/image?format=${i % 2 ? 'png' : 'svg'}`);
    assert.equal(image.status, 200, `QR code image ${i}`);
    assert.equal((await browser.get(`/app/links/${link.body.id}/qr?format=svg`)).status, 200, `link QR image ${i}`);
  }
  // Ten images drawn and none counted: the one page of the window is this one, the next is refused.
  assert.equal((await browser.get('/app/qrs')).status, 200);
  assert.equal((await browser.get('/app/qrs')).status, 429);
});
