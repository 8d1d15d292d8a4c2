import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyPassword } from '../src/auth/passwords.ts';
import { snapshotOf, testApp } from './helpers.ts';

/** A form-encoded body, as the reference sends writes. */
function form(fields: Record<string, string>) {
  return { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

const base = () => testApp({ rateLimit: 10000, analyticsRateLimit: 10000 });

test('create from form fields stores a normalised website and answers 201 with the record', async () => {
  const { call, store, makeUser } = await base();
  const alice = await makeUser('alice');
  const r = await call('POST', '/api/v1/websites', { key: alice.key, ...form({ domain: 'HTTPS://www.Example.COM/', privacy: '2', password: 'open sesame', email: '1', exclude_bots: '0', exclude_params: 'fbclid\r\n\r\n  utm_source ', exclude_ips: '10.0.0.0/8\n2001:db8::/32' }) });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body, {
    data: { id: 1, domain: 'example.com', privacy: 2, email: 1, password: true, exclude_bots: 0, exclude_params: 'fbclid\nutm_source', exclude_ips: '10.0.0.0/8\n2001:db8::/32', favorite: false, favorited_at: null, receives_events: true, verified_at: null, created_at: '2026-11-21T10:00:00.000000Z', updated_at: '2026-11-21T10:00:00.000000Z' },
    status: 201,
  });
  const stored = (await store.get<Record<string, unknown> & { id: number }>('websites', 1))!;
  assert.equal(stored.userId, alice.id);
  assert.match(String(stored.password), /^scrypt\$/);
  assert.ok(await verifyPassword('open sesame', String(stored.password)));
  assert.ok(!r.text.includes('scrypt'));
});

test('create from JSON and multipart applies the defaults; true/false and numbers are accepted', async () => {
  const { call } = await base();
  const json = await call('POST', '/api/v1/websites', { body: { domain: 'json.example.org', exclude_bots: false, email: true } });
  assert.equal(json.status, 201, json.text);
  assert.deepEqual([json.body.data.privacy, json.body.data.email, json.body.data.exclude_bots, json.body.data.password, json.body.data.favorite], [0, 1, 0, false, false]);
  const fd = new FormData();
  fd.set('domain', 'multi.example.org');
  fd.set('privacy', '1');
  fd.set('exclude_bots', 'true');
  const req = new Request('http://x/api/v1/websites', { method: 'POST', body: fd });
  const multi = await call('POST', '/api/v1/websites', { raw: await req.text(), headers: { 'content-type': req.headers.get('content-type')! } });
  assert.equal(multi.status, 201, multi.text);
  assert.deepEqual([multi.body.data.domain, multi.body.data.privacy, multi.body.data.exclude_bots], ['multi.example.org', 1, 1]);
});

const long = (n: number) => 'a'.repeat(n);

const createCases: { name: string; body: Record<string, unknown>; message: Record<string, string[]> }[] = [
  { name: 'missing domain', body: { privacy: '0' }, message: { domain: ['The domain field is required.'] } },
  { name: 'empty domain', body: { domain: '' }, message: { domain: ['The domain field is required.'] } },
  { name: 'domain not a host name', body: { domain: 'not a domain' }, message: { domain: ['The domain must be a valid domain name.'] } },
  { name: 'domain with a path', body: { domain: 'example.net/blog' }, message: { domain: ['The domain must be a valid domain name.'] } },
  { name: 'domain without a dot', body: { domain: 'intranet' }, message: { domain: ['The domain must be a valid domain name.'] } },
  { name: 'an address other than 127.0.0.1', body: { domain: '192.168.1.10' }, message: { domain: ['The domain must be a valid domain name.'] } },
  { name: 'domain too long', body: { domain: `${long(252)}.com` }, message: { domain: ['The domain must not be greater than 255 characters.'] } },
  { name: 'domain not a string', body: { domain: 42 }, message: { domain: ['The domain must be a string.'] } },
  { name: 'domain taken (other spelling)', body: { domain: 'https://www.TAKEN.example.com' }, message: { domain: ['The domain has already been taken.'] } },
  { name: 'privacy out of range', body: { domain: 'a.example.net', privacy: '5' }, message: { privacy: ['The selected privacy is invalid.'] } },
  { name: 'privacy not a number', body: { domain: 'a.example.net', privacy: 'public' }, message: { privacy: ['The selected privacy is invalid.'] } },
  { name: 'privacy 2 without password', body: { domain: 'a.example.net', privacy: '2' }, message: { password: ['The password field is required when privacy is 2.'] } },
  { name: 'privacy 2 with an empty password', body: { domain: 'a.example.net', privacy: '2', password: '' }, message: { password: ['The password field is required when privacy is 2.'] } },
  { name: 'password too long', body: { domain: 'a.example.net', privacy: '2', password: long(129) }, message: { password: ['The password must not be greater than 128 characters.'] } },
  { name: 'email not 0/1', body: { domain: 'a.example.net', email: '2' }, message: { email: ['The selected email is invalid.'] } },
  { name: 'exclude_bots not 0/1', body: { domain: 'a.example.net', exclude_bots: 'maybe' }, message: { exclude_bots: ['The selected exclude bots is invalid.'] } },
  { name: 'exclude_ips with bad lines', body: { domain: 'a.example.net', exclude_ips: '1.2.3.4\n300.1.1.1\n10.0.0.0/33\n::1/129' }, message: { exclude_ips: ['The exclude ips contains invalid IP addresses or ranges: 300.1.1.1, 10.0.0.0/33, ::1/129.'] } },
  { name: 'exclude_params too long', body: { domain: 'a.example.net', exclude_params: long(10001) }, message: { exclude_params: ['The exclude params must not be greater than 10000 characters.'] } },
  { name: 'favorite not boolean', body: { domain: 'a.example.net', favorite: 'yes please' }, message: { favorite: ['The favorite field must be true or false.'] } },
  {
    name: 'every problem at once',
    body: { domain: 'taken.example.com', privacy: '9', email: '3', exclude_ips: 'nope' },
    message: { privacy: ['The selected privacy is invalid.'], email: ['The selected email is invalid.'], exclude_ips: ['The exclude ips contains invalid IP addresses or ranges: nope.'], domain: ['The domain has already been taken.'] },
  },
];

test('every create rule: 422 with the field map, and nothing stored', async (t) => {
  const { call, store } = await base();
  assert.equal((await call('POST', '/api/v1/websites', form({ domain: 'taken.example.com' }))).status, 201);
  for (const c of createCases) {
    await t.test(c.name, async () => {
      const before = await snapshotOf(store, 'websites');
      const asForm = Object.values(c.body).every((value) => typeof value === 'string');
      const r = await call('POST', '/api/v1/websites', asForm ? form(c.body as Record<string, string>) : { body: c.body });
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(r.body, { message: c.message, status: 422 });
      assert.equal(await snapshotOf(store, 'websites'), before);
    });
  }
});

test('bodies that are not form fields or a JSON object are refused in the analytics shape, nothing stored', async () => {
  const { call, store } = await base();
  const before = await snapshotOf(store, 'websites');
  const xml = await call('POST', '/api/v1/websites', { raw: '<domain>x.com</domain>', headers: { 'content-type': 'application/xml' } });
  assert.equal(xml.status, 415);
  assert.equal(xml.body.status, 415);
  const broken = await call('POST', '/api/v1/websites', { raw: '{"domain":', headers: { 'content-type': 'application/json' } });
  assert.deepEqual(broken.body, { message: 'The request body is not valid JSON.', status: 400 });
  const list = await call('POST', '/api/v1/websites', { raw: '["x.com"]', headers: { 'content-type': 'application/json' } });
  assert.deepEqual(list.body, { message: 'The request body must be a JSON object.', status: 400 });
  assert.equal(await snapshotOf(store, 'websites'), before);
});

test('update: PUT and PATCH change the given fields; the domain cannot change; rules as on create', async () => {
  const { call, store, clock } = await base();
  const id = (await call('POST', '/api/v1/websites', form({ domain: 'site.example.com', exclude_ips: '10.0.0.1' }))).body.data.id;
  clock.advance(60_000);
  const put = await call('PUT', `/api/v1/websites/${id}`, form({ favorite: 'true', email: '1', domain: 'www.site.example.com' }));
  assert.equal(put.status, 200, put.text);
  assert.deepEqual([put.body.status, put.body.data.favorite, put.body.data.email, put.body.data.domain, put.body.data.exclude_ips], [200, true, 1, 'site.example.com', '10.0.0.1']);
  assert.equal(put.body.data.updated_at, '2026-11-21T10:01:00.000000Z');
  assert.equal(put.body.data.created_at, '2026-11-21T10:00:00.000000Z');
  const patch = await call('PATCH', `/api/v1/websites/${id}`, { body: { exclude_ips: '' } });
  assert.deepEqual([patch.status, patch.body.data.exclude_ips, patch.body.data.favorite], [200, '', true]);

  const cases: { body: Record<string, string>; message: Record<string, string[]> }[] = [
    { body: { domain: 'other.example.com' }, message: { domain: ['The domain cannot be changed.'] } },
    { body: { privacy: '2' }, message: { password: ['The password field is required when privacy is 2.'] } },
    { body: { privacy: '7', favorite: 'perhaps' }, message: { privacy: ['The selected privacy is invalid.'], favorite: ['The favorite field must be true or false.'] } },
    { body: { exclude_ips: '1.2.3.4/40' }, message: { exclude_ips: ['The exclude ips contains invalid IP addresses or ranges: 1.2.3.4/40.'] } },
  ];
  for (const c of cases) {
    const before = await snapshotOf(store, 'websites');
    const r = await call('PATCH', `/api/v1/websites/${id}`, form(c.body));
    assert.deepEqual([r.status, r.body], [422, { message: c.message, status: 422 }], JSON.stringify(c.body));
    assert.equal(await snapshotOf(store, 'websites'), before);
  }
  const locked = await call('PATCH', `/api/v1/websites/${id}`, form({ privacy: '2', password: 'pw' }));
  assert.deepEqual([locked.status, locked.body.data.privacy, locked.body.data.password], [200, 2, true]);
  // The password is set now: privacy 2 needs no new one.
  const again = await call('PATCH', `/api/v1/websites/${id}`, form({ privacy: '1' }));
  const back = await call('PATCH', `/api/v1/websites/${id}`, form({ privacy: '2' }));
  assert.deepEqual([again.status, back.status, back.body.data.password], [200, 200, true]);
});

test('delete answers the deletion object; the website is gone', async () => {
  const { call, store } = await base();
  const id = (await call('POST', '/api/v1/websites', form({ domain: 'gone.example.com' }))).body.data.id;
  const r = await call('DELETE', `/api/v1/websites/${id}`);
  assert.deepEqual([r.status, r.body], [200, { id, object: 'website', deleted: true, status: 200 }]);
  assert.equal((await store.get('websites', id)), undefined);
  const again = await call('DELETE', `/api/v1/websites/${id}`);
  assert.deepEqual([again.status, again.body], [404, { message: 'Resource not found.', status: 404 }]);
  const reuse = await call('POST', '/api/v1/websites', form({ domain: 'gone.example.com' }));
  assert.equal(reuse.status, 201, 'a deleted domain is free again');
});
