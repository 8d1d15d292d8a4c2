import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DashClient } from './dashboard-client.ts';
import { ADMIN_KEY, testApp } from './helpers.ts';

/**
 * Every form that deletes, revokes or disables asks first: the script asks in a box and confirms
 * the form; without the script (no `confirmed=yes`) the server answers a page that asks, with the
 * same form confirmed and its fields, and does nothing yet.
 */
test('without the script, every destructive form of the dashboard asks on a page first and changes nothing until confirmed', async () => {
  const t = await testApp({ rateLimit: 0, analyticsRateLimit: 0 });
  const u = await t.makeUser('asker');
  const victim = await t.makeUser('victim');
  const api = (method: string, path: string, body?: unknown) => t.call(method as 'POST', path, { key: u.key, ...(body === undefined ? {} : { body }) });
  const qr = (await api('POST', '/api/qr/add', { type: 'text', data: 'ask me' })).body.id as number;
  const campaign = (await api('POST', '/api/campaign/add', { name: 'Asked' })).body.id as number;
  const site = (await api('POST', '/api/v1/websites', { domain: 'asked.example.com' })).body.data.id as number;
  const hook = (await api('POST', '/api/webhooks', { url: 'https://hooks.example.com/asked', events: ['*'] })).body.id as number;
  const key = (await api('POST', '/api/keys', { name: 'asked', scopes: ['links:read'] })).body.id as number;
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_asker', 'secret-pw')).status, 303);
  await browser.get('/app/links');
  const admin = new DashClient(t.app);
  await admin.get('/app/login');
  assert.equal((await admin.post('/app/login', { apikey: ADMIN_KEY })).status, 303);
  await admin.get('/app/admin/users');

  const cases: [DashClient, string, Record<string, string>, RegExp, () => Promise<boolean>][] = [
    [browser, `/app/qrs/${qr}/delete`, {}, /Delete this QR code\?/, async () => (await t.store.get('qrs', qr)) !== undefined],
    [browser, `/app/campaigns/${campaign}/delete`, {}, /Delete this campaign\?/, async () => (await t.store.get('campaigns', campaign)) !== undefined],
    [browser, `/app/websites/${site}/delete`, {}, /Delete this website\?/, async () => (await t.store.get('websites', site)) !== undefined],
    [browser, `/app/account/webhooks/${hook}/delete`, {}, /Delete this webhook\?/, async () => (await t.store.get('webhooks', hook)) !== undefined],
    [browser, `/app/account/keys/${key}/revoke`, {}, /Revoke this key\?/, async () => (await t.store.get('api_keys', key)) !== undefined],
    [browser, '/app/account/sessions/revoke-all', {}, /Sign out everywhere\?/, async () => (await browser.get('/app/account')).status === 200],
    [admin, `/app/admin/users/${victim.id}/disable`, { reason: 'asked <first>' }, /Disable this user\?/, async () => (await t.store.get<{ id: number; disabled?: boolean }>('users', victim.id))?.disabled !== true],
    [admin, `/app/admin/users/${victim.id}/delete`, {}, /Delete this user\?/, async () => (await t.store.get('users', victim.id)) !== undefined],
  ];
  for (const [client, path, fields, question, untouched] of cases) {
    const asked = await client.post(path, { ...fields, confirmed: '' });
    assert.equal(asked.status, 200, `${path}: ${asked.text.slice(0, 200)}`);
    assert.match(asked.text, question, path);
    assert.match(asked.text, new RegExp(`<form method="post" action="${path.replace(/[/.]/g, '\\$&')}"`), `${path}: the same form`);
    assert.match(asked.text, /<input type="hidden" name="confirmed" value="yes"\/?>/, path);
    for (const [name, value] of Object.entries(fields)) assert.ok(asked.text.includes(`name="${name}" value="${value.replace('<', '&lt;').replace('>', '&gt;')}"`), `${path}: carries ${name}, escaped`);
    assert.ok(await untouched(), `${path}: nothing done before it is confirmed`);
  }
  // Confirmed, each goes (the session's sign-out everywhere last: it ends the browser's session).
  for (const [client, path, fields, , untouched] of [...cases.slice(0, 5), ...cases.slice(6), cases[5]!]) {
    const done = await client.post(path, { ...fields, confirmed: 'yes' });
    assert.equal(done.status, 303, `${path}: ${done.text.slice(0, 200)}`);
    assert.equal(await untouched(), false, `${path}: done once confirmed`);
  }
});
