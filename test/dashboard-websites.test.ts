import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

test('a website added in the dashboard shows its snippet, counts an event in its statistics, and has its settings changed, and is deleted; bad input stores nothing', async () => {
  const t = await testApp({ trustProxy: true, analyticsRateLimit: 0, rateLimit: 0 });
  const u = await t.makeUser('sites');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_sites', 'secret-pw')).status, 303);
  const sitesOf = async (owner: number) => (await t.store.find('websites', { owner })).items;
  assert.match((await browser.get('/app/websites')).text, /<p>No websites yet\.<\/p>/);

  const bad = await browser.post('/app/websites', { domain: 'not a domain!', privacy: '0' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /id="domain-error">[^<]*domain/);
  assert.match(bad.text, /value="not a domain!"/);
  assert.equal((await sitesOf(u.id)).length, 0);

  const made = await browser.post('/app/websites', { domain: 'shop.example.com', privacy: '0' });
  assert.equal(made.status, 303, made.text);
  const [site] = await sitesOf(u.id);
  assert.ok(site);
  assert.equal(site.domain, 'shop.example.com');
  assert.equal(made.location, `/app/websites/${site.id}?done=created`);
  const list = await browser.get('/app/websites');
  assert.equal(list.status, 200);
  assert.match(list.text, new RegExp(`<li><a href="/app/websites/${site.id}">shop\\.example\\.com</a> <span class="muted">Public`));
  assert.doesNotMatch(list.text, /No websites yet/);
  const page = await browser.get(made.location!);
  assert.equal(page.status, 200);
  assert.match(page.text, /&lt;script defer src=&quot;http:\/\/sho\.rt\/js\/script\.js&quot;/);
  assert.match(page.text, /data-copy="&lt;script defer/);

  const sent = await t.call('POST', '/api/event', { key: null, raw: JSON.stringify({ page: 'https://shop.example.com/pricing' }), headers: { 'x-forwarded-for': '203.0.113.5', 'user-agent': FIREFOX } });
  assert.equal(sent.status, 202, sent.text);
  await t.counters.flush();
  const stats = await browser.get(`/app/websites/${site.id}`);
  assert.match(stats.text, /\/pricing/);

  // Settings: refusals beside their fields, nothing stored; then saved as the API's update saves them.
  await browser.get(`/app/websites/${site.id}`);
  const noPassword = await browser.post(`/app/websites/${site.id}/settings`, { privacy: '2', password: '' });
  assert.equal(noPassword.status, 400);
  assert.match(noPassword.text, /id="password-error">The password field is required when privacy is 2/);
  const badIps = await browser.post(`/app/websites/${site.id}/settings`, { privacy: '0', exclude_ips: '10.0.0.0/8\nnot-an-ip' });
  assert.equal(badIps.status, 400);
  assert.match(badIps.text, /id="exclude_ips-error">[^<]*not-an-ip/);
  assert.match(badIps.text, /not-an-ip<\/textarea>/, 'the form keeps what was typed');
  const unchanged = (await t.store.get('websites', site.id))!;
  assert.equal(unchanged.privacy, 0);
  assert.equal(unchanged.exclude_ips, '');
  const saved = await browser.post(`/app/websites/${site.id}/settings`, { privacy: '2', password: 'peek-pw', exclude_bots: '1', exclude_params: 'utm_source', exclude_ips: '10.0.0.0/8' });
  assert.equal(saved.status, 303, saved.text);
  const stored = (await t.store.get('websites', site.id))!;
  assert.equal(stored.privacy, 2);
  assert.match(String(stored.password), /^scrypt\$/);
  assert.equal(stored.exclude_bots, 1);
  assert.equal(stored.exclude_params, 'utm_source');
  assert.equal(stored.exclude_ips, '10.0.0.0/8');
  assert.doesNotMatch((await browser.get(saved.location!)).text, /peek-pw/);

  const other = await t.makeUser('other');
  const theirs = await t.call('POST', '/api/v1/websites', { key: other.key, body: { domain: 'theirs.example.com' } });
  assert.equal(theirs.status, 201);
  const theirId = theirs.body.data.id as number;
  assert.equal((await browser.get(`/app/websites/${theirId}`)).status, 404);
  assert.equal((await browser.post(`/app/websites/${theirId}/delete`)).status, 404);
  assert.equal((await sitesOf(other.id)).length, 1);

  assert.equal((await browser.post(`/app/websites/${site.id}/delete`, {}, { csrf: null })).status, 403);
  assert.equal((await browser.post('/app/websites', { domain: 'csrf.example.com' }, { csrf: 'forged' })).status, 403);
  assert.equal((await sitesOf(u.id)).length, 1);

  const deleted = await browser.post(`/app/websites/${site.id}/delete`);
  assert.equal(deleted.status, 303);
  assert.equal((await sitesOf(u.id)).length, 0);
  assert.doesNotMatch((await browser.get('/app/websites')).text, /shop\.example\.com/);
  await t.audit.flush();
  const audit = (await t.store.find('audit', { owner: u.id, sort: { field: 'id', direction: 'asc' } })).items.filter((e) => String(e.route).startsWith('/app'));
  assert.deepEqual(audit.map((e) => [e.route, e.status]), [
    ['/app/websites', 422],
    ['/app/websites', 201],
    ['/app/websites/:id/settings', 422],
    ['/app/websites/:id/settings', 422],
    ['/app/websites/:id/settings', 200],
    ['/app/websites/:id/delete', 200],
  ]);
});
