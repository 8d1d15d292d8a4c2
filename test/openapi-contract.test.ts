import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passwordWork } from '../src/auth/passwords.ts';
import { RESOURCE_SCREENS } from '../src/dashboard/resources/rows.ts';
import { openApiDocument } from '../src/openapi/document.ts';
import { QrRenderer } from '../src/qr/renderer.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { StoreUnavailableError } from '../src/store/store.ts';
import type { StoredRecord } from '../src/store/store.ts';
import { IDEMPOTENCY_COLLECTION, KEEP_MS } from '../src/idempotency/keys.ts';
import { requestHashOf } from '../src/http/idempotency.ts';
import { ADMIN_KEY, openTestStore, testApp } from './helpers.ts';
import type { Call, Reply } from './helpers.ts';
import { Contract, operationsOf, world } from './openapi-world.ts';
import { DashClient } from './dashboard-client.ts';
import type { DocOp } from './openapi-world.ts';

// Every documented operation is called through the app: as documented (with the document's own
// examples), and in the ways it can fail. Each answer must be a documented status whose schema it matches.
const first = await world();
const doc = openApiDocument({ resources: RESOURCES, config: first.config });
const contract = new Contract(doc);
const operations = operationsOf(doc);

type World = Awaited<ReturnType<typeof world>>;
const secured = (o: DocOp) => Array.isArray(o.op.security) && o.op.security.length > 0;
const mediaOf = (o: DocOp): [string, { example?: unknown }] | undefined => Object.entries(o.op.requestBody?.content ?? {})[0] as never;

// Bodies that depend on the fixtures rather than on the document's example.
const BODY_OVERRIDES: Record<string, unknown> = { trackEvent: { page: 'https://fixture.example.org/pricing', referrer: 'https://news.example.com/' } };

/** A fresh one-time sign-in link of the fixture user (admin API): its token, for the login pages. */
async function loginToken(w: World): Promise<string> {
  const r = await w.call('GET', `/api/user/login/${w.alice.id}`, { key: ADMIN_KEY });
  return new URL(r.body.url).searchParams.get('token')!;
}

/** What the dashboard's signed-out forms are posted with, as documented: the fixture user's sign-in, a new account. */
const SIGNED_OUT_FORMS: Record<string, Record<string, string>> = {
  '/app/login': { login: 'user_alice', password: 'secret-pw' },
  '/app/register': { username: 'dashboard_new', email: 'dashboard_new@example.com', password: 'secret-pw' },
};

/** The cookie and form token a browser gets with a signed-out dashboard page. */
async function signedOutForm(w: World, path: string): Promise<{ cookie: string; csrf: string }> {
  const page = await w.call('GET', path, { key: null });
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? assert.fail(`no form token on ${path}`) };
}

/** The URL of an operation with its path parameters filled (`missing`: ids and names that do not exist) and query. */
function urlOf(w: World, o: DocOp, query: Record<string, string> = {}, missing = false): string {
  const path = o.path.replace(/\{(\w+)\}/g, (_m, name: string) => (missing ? (/id$/i.test(name) ? '999999' : 'no-such-thing') : w.param(o.path, name)));
  const required = (o.op.parameters ?? []).filter((p: { in: string; required?: boolean }) => p.in === 'query' && p.required);
  const params = new URLSearchParams(Object.fromEntries(required.map((p: { name: string; example: unknown }) => [p.name, String(p.example)])));
  for (const [k, value] of Object.entries(query)) params.set(k, value);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The request options of a body in the operation's first content type. */
function bodyCall(type: string, body: unknown): Call {
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(Object.entries(body as Record<string, unknown>).map(([k, value]) => [k, typeof value === 'string' ? value : JSON.stringify(value)]));
    return { raw: form.toString(), headers: { 'content-type': type } };
  }
  if (type === 'multipart/form-data') {
    // The form's `file` field is sent as a file part, the others as text fields.
    const parts = Object.entries(body as Record<string, unknown>).map(([k, value]) => {
      const file = k === 'file' ? '; filename="upload.txt"\r\nContent-Type: text/plain' : '';
      return `--b0undary\r\nContent-Disposition: form-data; name="${k}"${file}\r\n\r\n${typeof value === 'string' ? value : JSON.stringify(value)}\r\n`;
    });
    return { raw: `${parts.join('')}--b0undary--\r\n`, headers: { 'content-type': `${type}; boundary=b0undary` } };
  }
  // A string example is the body itself (a file), not a JSON string.
  return { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': type } };
}

/** A stream's answer up to its first piece, then closed (it would never end): status, headers and that piece as the body. */
async function streamReply(w: World, url: string, key: string | null): Promise<Reply> {
  const controller = new AbortController();
  const res = await w.app.request(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: controller.signal });
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
  }
  const reader = res.body.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  controller.abort();
  const text = new TextDecoder().decode(value);
  return { status: res.status, body: text, text, headers: res.headers };
}

async function probe(w: World, o: DocOp, what: string, url: string, opts: Call = {}): Promise<void> {
  const key = opts.key === undefined ? w.keyFor(o) : opts.key;
  const reply =
    o.op.operationId === 'streamEvents'
      ? await streamReply(w, url, key)
      : await w.call(o.method.toUpperCase(), url, { ...opts, key, headers: { accept: 'application/json', ...opts.headers } });
  contract.check(o, reply, what);
  // A successful rotation retires the key the next probes would use.
  if (o.op.operationId === 'rotateAccountKey' && reply.status === 200) w.alice.key = reply.body.apikey;
  if (what === 'as documented') assert.ok(reply.status < 400, `${o.method} ${o.path} as documented: ${reply.status} ${reply.text.slice(0, 300)}`);
}

const takesIdempotencyKey = (o: DocOp) => (o.op.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key');

/**
 * The answers Idempotency-Key decides: a key that is no key (400), one used again with another
 * body (422), and one whose request still runs (409; its claim put in the store as a request in
 * flight leaves it). An operation without a body is sent one the second time.
 */
async function idempotencyProbes(w: World, o: DocOp, type: string | undefined): Promise<void> {
  const key = `probe-${String(o.op.operationId)}`;
  const url = urlOf(w, o);
  const withKey = (call: Call, k = key): Call => ({ ...call, headers: { ...call.headers, 'Idempotency-Key': k } });
  const running: Call = type ? bodyCall(type, {}) : {};
  await probe(w, o, 'an idempotency key too long', url, withKey(running, 'k'.repeat(256)));
  await probe(w, o, 'an idempotency key, first use', url, withKey(running));
  await probe(w, o, 'the idempotency key with another body', url, withKey(type ? bodyCall(type, { other: 1 }) : { raw: 'other', headers: { 'content-type': 'text/plain' } }));
  const { items } = await w.store.find<StoredRecord>(IDEMPOTENCY_COLLECTION, { conditions: [{ field: 'key', equals: key }] });
  const now = w.clock.now();
  const request = requestHashOf(o.method.toUpperCase(), url, new TextEncoder().encode(running.raw ?? ''));
  await w.store.transaction((tx) => tx.insert(IDEMPOTENCY_COLLECTION, { userId: items[0]!.userId, key: `${key}-running`, request, created: now, expires: now + KEEP_MS, answer: null }));
  await probe(w, o, 'the idempotency key of a request in flight', url, withKey(running, `${key}-running`));
}


// A GET changes nothing another operation's probes depend on: the GETs share one world (its limit
// on failed keys raised, as every GET probes an unknown key). Every other operation gets a fresh
// one, so that a delete or an update never meets another's leftovers; a world is a store of its
// own and a dozen records (on PostgreSQL, a copy of the rows of the first world built).
const reading = await world({ authFailureLimit: 1000 });
for (const o of operations) {
  test(`${o.method.toUpperCase()} ${o.path}`, async () => {
    // The worlds this operation made are given back when it is done (their schemas reused, emptied).
    const made: Array<{ dispose: () => Promise<void> }> = [];
    const fresh = async () => {
      const w = await world();
      made.push(w);
      return w;
    };
    try {
      await probeOperation(o, o === operations[0] ? first : o.method === 'get' ? reading : await fresh(), fresh);
    } finally {
      for (const m of made) await m.dispose();
    }
  });
}

/** Every probe of one operation on its world `w`; `fresh` makes another world. */
async function probeOperation(o: DocOp, w: World, fresh: () => Promise<World>): Promise<void> {
  const media = mediaOf(o);
  if (secured(o)) {
    await probe(w, o, 'no key', urlOf(w, o), { key: null });
    await probe(w, o, 'unknown key', urlOf(w, o), { key: 'sk_nope' });
    await probe(w, o, 'scope missing', urlOf(w, o), { key: w.lacking(o), ...(media ? bodyCall(media[0], media[1].example ?? {}) : {}) });
    await probe(w, o, 'address refused', urlOf(w, o), { key: w.elsewhere });
  }
  if (o.op['x-admin'] && secured(o)) await probe(w, o, 'not an admin', urlOf(w, o), { key: w.alice.key });
  if (o.path.includes('{')) await probe(w, o, 'missing record', urlOf(w, o, {}, true), media ? bodyCall(media[0], media[1].example ?? {}) : {});
  for (const p of (o.op.parameters ?? []).filter((x: { in: string; schema: { enum?: unknown } }) => x.in === 'path' && x.schema.enum)) {
    await probe(w, o, `bad ${p.name}`, urlOf(w, o).replace(`/${w.param(o.path, p.name)}/`, '/not-a-kind/'));
  }
  for (const p of (o.op.parameters ?? []).filter((x: { in: string }) => x.in === 'query')) {
    await probe(w, o, `bad ${p.name}`, urlOf(w, o, { [p.name]: '-1.5x' }));
  }
  if (media) {
    const [type, { example }] = media;
    const fields = Object.keys((example ?? {}) as object);
    await probe(w, o, 'empty body', urlOf(w, o), bodyCall(type, {}));
    await probe(w, o, 'wrong types', urlOf(w, o), bodyCall(type, Object.fromEntries(fields.map((f) => [f, type.includes('json') ? { nested: [1] } : '\u0000']))));
    await probe(w, o, 'array body', urlOf(w, o), { raw: '[1]', headers: { 'content-type': 'application/json' } });
    await probe(w, o, 'not JSON', urlOf(w, o), { raw: '{oops', headers: { 'content-type': 'application/json' } });
    await probe(w, o, 'unsupported type', urlOf(w, o), { raw: 'a=1', headers: { 'content-type': 'application/xml' } });
    await probe(w, o, 'too large', urlOf(w, o), { raw: JSON.stringify({ data: 'x'.repeat(5000) }), headers: { 'content-type': type } });
  }
  if (o.op.operationId === 'listLink') {
    // `short=` names a link: another user's (the fixture link is alice's), or none.
    await probe(w, o, "another user's short URL", urlOf(w, o, { short: `${w.config.baseUrl}/fixture` }), { key: ADMIN_KEY });
    await probe(w, o, 'unknown short URL', urlOf(w, o, { short: `${w.config.baseUrl}/no-such-alias` }), { key: w.alice.key });
  }
  if (o.op.operationId === 'verifyWebsite') {
    // The world's DNS holds the proof; without it the proof fails.
    const published = new Map(w.txt);
    w.txt.clear();
    await probe(w, o, 'no proof published', urlOf(w, o));
    for (const [name, records] of published) w.txt.set(name, records);
  }
  // The login pages need a live link: the document's example token names none.
  const token = o.path === '/login' ? await loginToken(w) : null;
  // The dashboard's sign-in and registration forms need the form token of their page's cookie.
  const signedOut = media && SIGNED_OUT_FORMS[o.path] ? await signedOutForm(w, o.path) : null;
  const body = token && media ? { token } : signedOut ? { ...SIGNED_OUT_FORMS[o.path], csrf: signedOut.csrf } : (BODY_OVERRIDES[String(o.op.operationId)] ?? media?.[1].example);
  const url = token && !media ? urlOf(w, o, { token }) : urlOf(w, o);
  const call = media ? bodyCall(media[0], body ?? {}) : {};
  await probe(w, o, 'as documented', url, signedOut ? { ...call, headers: { ...call.headers, cookie: signedOut.cookie } } : call);
  // Each other content type the operation takes, on fresh data so a create does not meet its twin.
  for (const [type, other] of Object.entries((o.op.requestBody?.content ?? {}) as Record<string, { example?: unknown }>).slice(1)) {
    await probe(await fresh(), o, 'as documented', urlOf(w, o), bodyCall(type, BODY_OVERRIDES[String(o.op.operationId)] ?? other.example ?? body ?? {}));
  }
  // Last: the first use of a key runs the request (an assignment done, a key rotated).
  if (takesIdempotencyKey(o)) await idempotencyProbes(w, o, media?.[0]);
}

test('rate limited: every authenticated operation answers a documented 429 with Retry-After', async () => {
  // The limiter answers before the route: the records named need not exist.
  const w = { ...first, ...(await testApp({ openRegistration: true, rateLimit: 1, analyticsRateLimit: 1, eventRateLimit: 1, authFailureLimit: 1 })) };
  await w.call('GET', '/api/account', { key: ADMIN_KEY });
  await w.call('GET', '/api/v1/websites', { key: ADMIN_KEY });
  for (const o of operations.filter(secured)) {
    const reply = await w.call(o.method.toUpperCase(), urlOf(w, o, {}, true), { key: ADMIN_KEY });
    assert.equal(reply.status, 429, `${o.method} ${o.path}`);
    assert.ok(reply.headers.get('retry-after'));
    contract.check(o, reply, 'rate limited');
  }
  for (const id of ['trackEvent', 'register']) {
    const o = operations.find((x) => x.op.operationId === id)!;
    const [type, { example }] = mediaOf(o)!;
    for (let i = 0; i < 3; i++) await probe(w, o, 'repeated', urlOf(w, o), bodyCall(type, BODY_OVERRIDES[id] ?? example));
  }
});

test('storage unavailable: every authenticated operation answers a documented 503 with Retry-After', async () => {
  // A store that is away (PostgreSQL down) from the first request on: even the key check cannot
  // read, so every operation that needs a key answers 503, whatever it would have read.
  const real = await openTestStore();
  let away = false;
  const store = new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const local = prop === 'version' || prop === 'revision' || prop === 'beforeClose';
      return (...args: unknown[]) => (away && !local ? Promise.reject(new StoreUnavailableError('the test took the database away')) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  const w = { ...first, ...(await testApp({ openRegistration: true }, { store })) };
  away = true;
  for (const o of operations.filter(secured)) {
    const reply = await w.call(o.method.toUpperCase(), urlOf(w, o, {}, true), { key: ADMIN_KEY });
    assert.equal(reply.status, 503, `${o.method} ${o.path}`);
    assert.equal(reply.headers.get('retry-after'), '2');
    assert.doesNotMatch(reply.text, /SELECT|database|stack|at /, 'nothing of the cause in the body');
    contract.check(o, reply, 'storage unavailable');
  }
  // /ready asks the store itself: not ready, in its documented shape.
  const ready = await w.call('GET', '/ready', { key: null });
  assert.equal(ready.status, 503);
  contract.check(operations.find((o) => o.op.operationId === 'ready')!, ready, 'storage unavailable');
});

test('the examples of the document are valid for their schemas', () => {
  for (const o of operations) {
    for (const [type, media] of Object.entries((o.op.requestBody?.content ?? {}) as Record<string, { schema: object; example?: unknown }>)) {
      assert.ok(media.example !== undefined, `${o.method} ${o.path} ${type} has an example`);
      assert.equal(contract.errors(media.schema, media.example), null, `${o.method} ${o.path} ${type}`);
    }
    for (const p of (o.op.parameters ?? []) as { name: string; example?: unknown; schema: object }[]) {
      if (p.example !== undefined) assert.equal(contract.errors(p.schema, String(p.example)), null, `${o.method} ${o.path} ${p.name}`);
    }
  }
});

const byId = (id: string) => operations.find((o) => o.op.operationId === id)!;

test('the public pages in their other states answer documented responses', async () => {
  const w = await world();
  const at = async (id: string, url: string, opts: Call = {}, expected?: number) => {
    const reply = await w.call(byId(id).method.toUpperCase(), url, { key: null, ...opts });
    contract.check(byId(id), reply, 'other state');
    if (expected) assert.equal(reply.status, expected, `${id} ${url}`);
  };
  const form = (fields: Record<string, string>): Call => ({ raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  await w.call('PUT', `/api/domain/${w.ids.domain}/update`, { key: w.alice.key, body: { redirectroot: 'https://example.com/root' } });
  await at('home', '/', { headers: { host: 'fixture.example.net' } }, 302);
  await at('getQrImage', `/qr/${w.param('/qr/{alias}', 'alias')}?format=svg`, {}, 200);
  await w.call('POST', '/api/url/add', { key: w.alice.key, body: { url: 'https://example.com/locked', custom: 'locked', password: 'pw', expiry: '2026-12-01' } });
  await at('followLink', '/locked', {}, 200);
  await at('unlockLink', '/locked', form({ password: 'wrong' }), 403);
  const foreign = form({ password: 'pw' });
  await at('unlockLink', '/locked', { ...foreign, headers: { ...foreign.headers, 'sec-fetch-site': 'cross-site' } }, 403);
  await w.call('PUT', `/api/v1/websites/${w.ids.websites}`, { key: w.alice.key, body: { privacy: 2, password: 'page-pw' } });
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const holders = Array.from({ length: passwordWork.limit + passwordWork.maxWaiting }, () => passwordWork.run(() => held));
  await at('unlockLink', '/locked', form({ password: 'pw' }), 503);
  await at('signInStatsPage', '/stats/fixture.example.org', form({ password: 'page-pw' }), 503);
  release();
  await Promise.all(holders);
  await at('unlockLink', '/locked', form({ password: 'pw' }), 200);
  await at('getCampaignPage', `/c/${w.ids.campaign}-old-name`, {}, 302);
  await at('getCampaignListPage', `/u/user_alice/old-name-${w.ids.campaign}`, {}, 302);
  await at('getCampaignListPage', `/u/someone/fixture-camp-${w.ids.campaign}`, {}, 404);
  const privateCampaign = await w.call('POST', '/api/campaign/add', { key: w.alice.key, body: { name: 'Closed', slug: 'closed', public: false } });
  await at('getCampaignListPage', new URL(privateCampaign.body.list).pathname, {}, 403);
  await at('getBioPage', '/u/FIXTURE-BIO', {}, 302);
  await at('getBioPage', '/u/no-such-bio', {}, 404);
  await at('openLoginLink', '/login?token=1.nothing', {}, 404);
  const token = await loginToken(w);
  await at('useLoginLink', '/login', { ...form({ token }), headers: { ...form({}).headers, 'sec-fetch-site': 'cross-site' } }, 403);
  const wrapper = async (id: string, body: unknown) => {
    const reply = await w.call('POST', byId(id).path, { key: ADMIN_KEY, body });
    contract.check(byId(id), reply, 'other state');
    assert.equal(reply.status, 404, id);
  };
  await wrapper('getLinkWrapper', { urlid: 999999 });
  await wrapper('getUserWrapper', { userid: 999999 });
  for (let i = 1; i < 10; i++) await at('unlockLink', '/locked', form({ password: `wrong-${i}` }), 403);
  await at('unlockLink', '/locked', form({ password: 'pw' }), 429);
  w.clock.advance(300_000); // the password-attempt window (the stats page below counts for the same client)
  await w.call('PUT', `/api/v1/websites/${w.ids.websites}`, { key: w.alice.key, body: { privacy: 1 } });
  await at('getStatsPage', '/stats/fixture.example.org', {}, 401);
  await at('getStatsPage', '/stats/FIXTURE.example.org', {}, 301);
  for (const [id, path] of [['getStatsPageCsv', '/csv?name=page&from=2026-11-01&to=2026-11-21'], ['getStatsPageExport', '/export?from=2026-11-01&to=2026-11-21'], ['getStatsPageRealtime', '/realtime']] as const) {
    await at(id, `/stats/fixture.example.org${path}`, {}, 401);
    await at(id, `/stats/FIXTURE.example.org${path}`, {}, 301);
  }
  await at('signInStatsPage', '/stats/FIXTURE.example.org', form({ key: 'nope' }), 301);
  await at('signInStatsPage', '/stats/fixture.example.org', { ...form({ key: 'nope' }), headers: { ...form({}).headers, origin: 'https://elsewhere.example' } }, 403);
  for (let i = 0; i < 10; i++) await at('signInStatsPage', '/stats/fixture.example.org', form({ key: 'nope' }), 401);
  await at('signInStatsPage', '/stats/fixture.example.org', form({ key: 'nope' }), 429);
  w.clock.advance(30 * 86_400_000);
  await at('followLink', '/locked', {}, 410);
  await at('unlockLink', '/locked', form({ password: 'pw' }), 410);
  const closed = await testApp();
  const register = await closed.call('POST', '/api/register', { key: null, body: { username: 'someone', email: 's@example.com', password: 'secret-pw' } });
  contract.check(byId('register'), register, 'registration off');
  assert.equal(register.status, 404);
});

test('the QR image answers documented responses when its render queue or its client is over the limit', async () => {
  const renderer = new QrRenderer({ threads: 1, queue: 0 });
  try {
    const t = await testApp({ renderRateLimit: 2 }, { renderer });
    const made = await t.call('POST', '/api/qr/add', { body: { type: 'text', data: 'busy' } });
    const at = async (size: number) => {
      const reply = await t.call('GET', `${new URL(made.body.link).pathname}?size=${size}`, { key: null });
      contract.check(byId('getQrImage'), reply, 'busy');
      return reply.status;
    };
    // No room to wait: one of two images at once is drawn, the other refused; both counted for the client.
    assert.deepEqual((await Promise.all([at(2048), at(1536)])).sort(), [200, 503]);
    assert.equal(await at(1024), 429);
  } finally {
    await renderer.close();
  }
});

test('the stats page and its downloads answer documented responses past STATS_PAGE_RATE_LIMIT', async () => {
  const t = await testApp({ statsPageRateLimit: 1, analyticsRateLimit: 0 });
  const made = await t.call('POST', '/api/v1/websites', { body: { domain: 'limited.example.org' } });
  assert.equal(made.status, 201, made.text);
  const range = 'from=2026-11-01&to=2026-11-21';
  for (const [id, path] of [['getStatsPage', ''], ['getStatsPageCsv', `/csv?name=page&${range}`], ['getStatsPageExport', `/export?${range}`]] as const) {
    const reply = await t.call('GET', `/stats/limited.example.org${path}`, { key: null });
    contract.check(byId(id), reply, 'over the limit');
    assert.equal(reply.status, id === 'getStatsPage' ? 200 : 429, id);
  }
  const again = await t.call('GET', '/stats/limited.example.org', { key: null });
  contract.check(byId('getStatsPage'), again, 'over the limit');
  assert.equal(again.status, 429);
});

test('the dashboard in its states answers documented responses', async () => {
  const w = await world();
  let cookie = '';
  let csrf = '';
  // One browser: its cookies, and the form token of the last page it opened.
  const at = async (id: string, url: string, fields: Record<string, string> | null, expected: number | null, token: string | null = csrf) => {
    const o = byId(id);
    // As a browser whose script confirms a form's question (ask-first.tsx); `confirmed: ''` as one without it.
    const body = fields === null ? {} : { raw: new URLSearchParams({ ...(token === null ? {} : { csrf: token }), confirmed: 'yes', ...fields }).toString() };
    const reply = await w.call(o.method.toUpperCase(), url, { key: null, ...body, headers: { ...(cookie ? { cookie } : {}), ...(fields === null ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) } });
    contract.check(o, reply, 'dashboard');
    if (expected !== null) assert.equal(reply.status, expected, `${id} ${url}: ${reply.text.slice(0, 200)}`);
    for (const c of reply.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      const name = pair.split('=')[0]!;
      cookie = [...cookie.split('; ').filter((x) => x && !x.startsWith(`${name}=`)), ...(/Max-Age=0/.test(c) ? [] : [pair])].join('; ');
    }
    csrf = /name="csrf" value="([^"]+)"/.exec(reply.text)?.[1] ?? csrf;
    return reply;
  };
  await at('dashboardRegisterPage', '/app/register', null, 200);
  await at('dashboardRegister', '/app/register', { username: 'x', email: 'not-an-email', password: 'secret-pw' }, 400);
  await at('dashboardLoginPage', '/app/login', null, 200);
  await at('dashboardLogin', '/app/login', { login: '', password: '' }, 400);
  await at('dashboardLogin', '/app/login', { login: 'user_alice', password: 'wrong-pw' }, 401);
  await at('dashboardLogin', '/app/login', { login: 'user_alice', password: 'secret-pw' }, 303);
  await at('dashboardLoginPage', '/app/login', null, 302);
  await at('dashboardRegisterPage', '/app/register', null, 302);
  await at('dashboardAccount', '/app/account', null, 200);
  await at('dashboardLinks', '/app/links', null, 200);
  await at('dashboardNewLink', '/app/links/new', null, 200);
  const link = `/app/links/${w.ids.url}`;
  for (const [id, path] of [['dashboardLink', ''], ['dashboardLinkQr', '/qr'], ['dashboardEditLink', '/edit']] as const) {
    await at(id, `${link}${path}`, null, 200);
    await at(id, `/app/links/999999${path}`, null, 404);
  }
  await at('dashboardCreateLink', '/app/links', { url: 'not a URL' }, 400);
  await at('dashboardSaveLink', `${link}/edit`, { url: 'not a URL' }, 400);
  await at('dashboardSaveLink', '/app/links/999999/edit', { url: 'https://example.com/' }, 404);
  await at('dashboardDeleteLink', '/app/links/999999/delete', {}, 404);
  await at('dashboardDeleteLink', `${link}/delete`, { confirmed: '' }, 200);
  await at('dashboardBulkLinks', '/app/links/bulk', { action: 'delete' }, 400);
  await at('dashboardBulkLinks', '/app/links/bulk', { action: 'delete', ids: '999999', confirmed: '' }, 200);
  await at('dashboardBulkLinks', '/app/links/bulk', { action: 'delete', ids: '999999' }, 404);
  // Every form that asks first, unconfirmed: the page that asks (nothing is done; the ids need not exist).
  for (const [id, url] of [
    ['dashboardRevokeKey', '/app/account/keys/999999/revoke'],
    ['dashboardDeleteWebhook', '/app/account/webhooks/999999/delete'],
    ['dashboardDeleteWebsite', '/app/websites/999999/delete'],
    ['dashboardDeleteQr', '/app/qrs/999999/delete'],
    ['dashboardDeleteBio', '/app/bios/999999/delete'],
    ['dashboardDeleteFile', '/app/files/999999/delete'],
    ['dashboardSignOutEverywhere', '/app/account/sessions/revoke-all'],
    ...RESOURCE_SCREENS.map((spec) => [`dashboardDelete${spec.path.charAt(0).toUpperCase() + spec.path.slice(1)}`, `/app/${spec.path}/999999/delete`]),
  ] as const) {
    await at(id, url, { confirmed: '' }, 200);
  }
  await at('dashboardRevokeSession', '/app/account/sessions/999999/revoke', {}, 404);
  await at('dashboardChangeEmail', '/app/account/email', { email: 'not-an-email', current_password: 'secret-pw' }, 400);
  await at('dashboardChangeEmail', '/app/account/email', { email: 'alice2@example.com', current_password: 'wrong-pw' }, 401);
  await at('dashboardChangePassword', '/app/account/password', { current_password: 'secret-pw', password: 'a-secret', password_again: 'b-secret' }, 400);
  await at('dashboardChangePassword', '/app/account/password', { current_password: 'wrong-pw', password: 'a-secret', password_again: 'a-secret' }, 401);
  await at('dashboardKeys', '/app/account/keys', null, 200);
  await at('dashboardCreateKey', '/app/account/keys', { name: 'probe' }, 400);
  await at('dashboardCreateKey', '/app/account/keys', { name: 'probe', scopes: 'links:read' }, 303);
  await at('dashboardRevokeKey', '/app/account/keys/999999/revoke', {}, 404);
  await at('dashboardWebhooks', '/app/account/webhooks', null, 200);
  await at('dashboardCreateWebhook', '/app/account/webhooks', { url: 'https://hooks.example.com/probe' }, 400);
  await at('dashboardCreateWebhook', '/app/account/webhooks', { url: 'https://hooks.example.com/probe', events: '*' }, 303);
  await at('dashboardTestWebhook', '/app/account/webhooks/999999/test', {}, 404);
  await at('dashboardDeleteWebhook', '/app/account/webhooks/999999/delete', {}, 404);
  await at('dashboardWebsites', '/app/websites', null, 200);
  await at('dashboardCreateWebsite', '/app/websites', { domain: 'not a domain!' }, 400);
  await at('dashboardCreateWebsite', '/app/websites', { domain: 'probe.example.net', privacy: '0' }, 303);
  await at('dashboardWebsite', `/app/websites/${w.ids.websites}`, null, 200);
  await at('dashboardWebsite', '/app/websites/999999', null, 404);
  await at('dashboardWebsiteSettings', `/app/websites/${w.ids.websites}/settings`, { privacy: '0', exclude_ips: 'not-an-ip' }, 400);
  await at('dashboardWebsiteSettings', `/app/websites/${w.ids.websites}/settings`, { privacy: '0' }, 303);
  await at('dashboardWebsiteSettings', '/app/websites/999999/settings', { privacy: '0' }, 404);
  await at('dashboardDeleteWebsite', '/app/websites/999999/delete', {}, 404);
  // The table-driven screens: each row's list, new form, a refused create, its record's page, a missing record.
  for (const spec of RESOURCE_SCREENS) {
    const id = spec.path.charAt(0).toUpperCase() + spec.path.slice(1);
    const base = `/app/${spec.path}`;
    await at(`dashboard${id}`, base, null, 200);
    await at(`dashboardNew${id}`, `${base}/new`, null, 200);
    await at(`dashboardCreate${id}`, base, {}, 400);
    const own = `${base}/${w.ids[spec.row.name]}`;
    await at(`dashboard${id}Page`, own, null, 200);
    await at(`dashboardConfirmDelete${id}`, `${own}/delete`, null, 200);
    // Every field too long (or no URL): each row refuses it.
    await at(`dashboardSave${id}`, `${own}/edit`, Object.fromEntries(Object.keys(spec.row.fields).map((k) => [k, 'x'.repeat(120)])), 400);
    for (const [op, url] of [[`dashboardCreate${id}`, base], [`dashboardSave${id}`, `${own}/edit`], [`dashboardDelete${id}`, `${own}/delete`]]) await at(op!, url!, {}, 403, null);
    for (const [op, path, fields] of [[`dashboard${id}Page`, '', null], [`dashboardSave${id}`, '/edit', {}], [`dashboardConfirmDelete${id}`, '/delete', null], [`dashboardDelete${id}`, '/delete', {}]] as const) {
      await at(op, `${base}/999999${path}`, fields, 404);
    }
  }
  await at('dashboardAddChannelItem', '/app/channels/999999/items', { item: 'links:1' }, 404);
  await at('dashboardAddChannelItem', `/app/channels/${w.ids.channel}/items`, { item: 'nothing:1' }, 400);
  await at('dashboardAddChannelItem', `/app/channels/${w.ids.channel}/items`, { item: 'links:1' }, 403, null);
  await at('dashboardQrs', '/app/qrs', null, 200);
  await at('dashboardNewQr', '/app/qrs/new?type=wifi', null, 200);
  await at('dashboardCreateQr', '/app/qrs', { type: 'sms', data_phone: 'no number' }, 400);
  await at('dashboardCreateQr', '/app/qrs', { type: 'text', data: 'Probe', foreground: '#102030' }, 303);
  for (const [id, path] of [['dashboardQr', ''], ['dashboardQrImage', '/image'], ['dashboardEditQr', '/edit']] as const) {
    await at(id, `/app/qrs/${w.ids.qr}${path}`, null, 200);
    await at(id, `/app/qrs/999999${path}`, null, 404);
  }
  await at('dashboardSaveQr', `/app/qrs/${w.ids.qr}/edit`, { type: 'link', data: 'not a URL' }, 400);
  await at('dashboardSaveQr', `/app/qrs/${w.ids.qr}/edit`, { type: 'link', data: 'https://example.com/qr-target' }, 303);
  await at('dashboardSaveQr', '/app/qrs/999999/edit', { type: 'text', data: 'x' }, 404);
  await at('dashboardDeleteQr', '/app/qrs/999999/delete', {}, 404);
  await at('dashboardBios', '/app/bios', null, 200);
  await at('dashboardNewBio', '/app/bios/new', null, 200);
  await at('dashboardCreateBio', '/app/bios', { name: 'P' }, 400);
  await at('dashboardCreateBio', '/app/bios', { name: 'Probe page' }, 303);
  await at('dashboardEditBio', `/app/bios/${w.ids.bio}/edit`, null, 200);
  await at('dashboardEditBio', '/app/bios/999999/edit', null, 404);
  await at('dashboardSaveBio', `/app/bios/${w.ids.bio}/edit`, { name: 'Fixture bio', alias: 'fixture-bio', link_title: 'x', link_url: 'not a URL' }, 400);
  await at('dashboardSaveBio', '/app/bios/999999/edit', { name: 'Nobody' }, 404);
  await at('dashboardDeleteBio', '/app/bios/999999/delete', {}, 404);
  await at('dashboardFiles', '/app/files', null, 200);
  await at('dashboardUploadFile', '/app/files/upload', { name: 'no file' }, 400);
  await at('dashboardDeleteFile', '/app/files/999999/delete', {}, 404);
  await at('dashboardUploadFile', '/app/files/upload', { name: 'x'.repeat(80_000) }, 413);
  // A session of a key with no scope of these areas: the lists and the forms refuse it.
  const scoped = (await w.call('POST', '/api/keys', { key: w.alice.key, body: { name: 'links only', scopes: ['links:read'] } })).body.apikey as string;
  await at('dashboardLogout', '/app/logout', {}, 303);
  await at('dashboardLoginPage', '/app/login', null, 200);
  await at('dashboardLogin', '/app/login', { apikey: scoped }, 303);
  for (const [id, url] of [['dashboardQrs', '/app/qrs'], ['dashboardNewQr', '/app/qrs/new'], ['dashboardBios', '/app/bios'], ['dashboardNewBio', '/app/bios/new'], ['dashboardFiles', '/app/files']] as const) await at(id, url, null, 403);
  await at('dashboardLogout', '/app/logout', {}, 303);
  await at('dashboardLoginPage', '/app/login', null, 200);
  await at('dashboardLogin', '/app/login', { login: 'user_alice', password: 'secret-pw' }, 303);
  await at('dashboardUsers', '/app/admin/users', null, 404);
  await at('dashboardCreateUser', '/app/admin/users', { username: 'probe' }, 404);
  await at('dashboardDeleteUser', '/app/admin/users/1/delete', {}, 404);
  await at('dashboardSignInAs', '/app/admin/users/1/sign-in-as', {}, 404);
  await at('dashboardDisableUser', '/app/admin/users/1/disable', {}, 404);
  await at('dashboardEnableUser', '/app/admin/users/1/enable', {}, 404);
  await at('dashboardSignInAsReturn', '/app/admin/return', {}, 404);
  const unsigned: [string, string][] = [
    ['dashboardCreateLink', '/app/links'],
    ['dashboardSaveLink', `${link}/edit`],
    ['dashboardDeleteLink', `${link}/delete`],
    ['dashboardBulkLinks', '/app/links/bulk'],
    ['dashboardRevokeSession', '/app/account/sessions/1/revoke'],
    ['dashboardSignOutEverywhere', '/app/account/sessions/revoke-all'],
    ['dashboardLogout', '/app/logout'],
  ];
  for (const [id, url] of unsigned) await at(id, url, { url: 'https://example.com/' }, 403, null);
  for (const [id, url] of [
    ['dashboardChangeEmail', '/app/account/email'],
    ['dashboardChangePassword', '/app/account/password'],
    ['dashboardCreateKey', '/app/account/keys'],
    ['dashboardRevokeKey', '/app/account/keys/1/revoke'],
    ['dashboardCreateWebhook', '/app/account/webhooks'],
    ['dashboardTestWebhook', '/app/account/webhooks/1/test'],
    ['dashboardDeleteWebhook', '/app/account/webhooks/1/delete'],
    ['dashboardCreateWebsite', '/app/websites'],
    ['dashboardWebsiteSettings', `/app/websites/${w.ids.websites}/settings`],
    ['dashboardDeleteWebsite', `/app/websites/${w.ids.websites}/delete`],
    ['dashboardCreateQr', '/app/qrs'],
    ['dashboardSaveQr', `/app/qrs/${w.ids.qr}/edit`],
    ['dashboardDeleteQr', `/app/qrs/${w.ids.qr}/delete`],
    ['dashboardCreateBio', '/app/bios'],
    ['dashboardSaveBio', `/app/bios/${w.ids.bio}/edit`],
    ['dashboardDeleteBio', `/app/bios/${w.ids.bio}/delete`],
    ['dashboardUploadFile', '/app/files/upload'],
    ['dashboardDeleteFile', `/app/files/${w.ids.files}/delete`],
    ['dashboardCreateUser', '/app/admin/users'],
    ['dashboardDeleteUser', '/app/admin/users/1/delete'],
    ['dashboardSignInAs', '/app/admin/users/1/sign-in-as'],
    ['dashboardDisableUser', '/app/admin/users/1/disable'],
    ['dashboardEnableUser', '/app/admin/users/1/enable'],
    ['dashboardSignInAsReturn', '/app/admin/return'],
  ] as const) {
    await at(id, url, {}, 403, null);
  }
  await at('dashboardDeleteWebsite', `/app/websites/${w.ids.websites}/delete`, {}, 303);
  // The admin's screens, signed in with the admin's key.
  await at('dashboardLoginPage', '/app/login', null, 302);
  await at('dashboardLogout', '/app/logout', {}, 303);
  await at('dashboardLoginPage', '/app/login', null, 200);
  await at('dashboardLogin', '/app/login', { apikey: ADMIN_KEY }, 303);
  await at('dashboardUsers', '/app/admin/users', null, 200);
  await at('dashboardCreateUser', '/app/admin/users', { username: 'probe_user', email: 'not-an-email', password: 'secret-pw' }, 400);
  await at('dashboardCreateUser', '/app/admin/users', { username: 'probe_user', email: 'probe_user@example.com', password: 'secret-pw' }, 303);
  const adminId = (await w.call('GET', '/api/account', { key: ADMIN_KEY })).body.data.id as number;
  await at('dashboardDeleteUser', `/app/admin/users/${adminId}/delete`, {}, 400);
  await at('dashboardDeleteUser', '/app/admin/users/999999/delete', {}, 404);
  await at('dashboardDeleteUser', '/app/admin/users/999999/delete', { confirmed: '' }, 200);
  await at('dashboardDisableUser', '/app/admin/users/999999/disable', { confirmed: '' }, 200);
  const probeUser = (await w.store.lookup<StoredRecord>('users', 'email', 'probe_user@example.com'))!.id;
  await at('dashboardSignInAs', `/app/admin/users/${probeUser}/sign-in-as`, {}, 303);
  await at('dashboardAccount', '/app/account', null, 200);
  await at('dashboardSignInAsReturn', '/app/admin/return', {}, 303);
  await at('dashboardUsers', '/app/admin/users', null, 200);
  await at('dashboardDisableUser', `/app/admin/users/${adminId}/disable`, {}, 400);
  await at('dashboardDisableUser', `/app/admin/users/${probeUser}/disable`, { reason: 'probe' }, 303);
  await at('dashboardSignInAs', `/app/admin/users/${probeUser}/sign-in-as`, {}, 400);
  await at('dashboardEnableUser', `/app/admin/users/${probeUser}/enable`, {}, 303);
  await at('dashboardDeleteUser', `/app/admin/users/${probeUser}/delete`, {}, 303);
  await at('dashboardLogout', '/app/logout', {}, 303);
  // The limits: password checks all busy, then too many wrong passwords, then too many sign-ups.
  cookie = '';
  await at('dashboardLoginPage', '/app/login', null, 200);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const holders = Array.from({ length: passwordWork.limit + passwordWork.maxWaiting }, () => passwordWork.run(() => held));
  await at('dashboardLogin', '/app/login', { login: 'user_alice', password: 'secret-pw' }, 503);
  release();
  await Promise.all(holders);
  // Three wrong passwords were counted above (the sign-in's, the email and password forms').
  for (let i = 3; i < w.config.passwordAttemptLimit; i++) await at('dashboardLogin', '/app/login', { login: 'user_alice', password: `wrong-${i}` }, 401);
  await at('dashboardLogin', '/app/login', { login: 'user_alice', password: 'secret-pw' }, 429);
  await at('dashboardRegisterPage', '/app/register', null, 200);
  // Sign-ups share the client's failed-authentication budget, which the probes above used some of.
  const statuses: number[] = [];
  for (let i = 0; i <= w.config.authFailureLimit && statuses.at(-1) !== 429; i++) statuses.push((await at('dashboardRegister', '/app/register', { username: 'x', email: 'bad', password: 'secret-pw' }, null)).status);
  assert.deepEqual(new Set(statuses), new Set([400, 429]));
});

test('every signed-in screen over RATE_LIMIT (forms) or DASHBOARD_PAGE_LIMIT (pages) answers its documented 429 page', async () => {
  const t = await testApp({ rateLimit: 1, dashboardPageLimit: 1 });
  await t.makeUser('alice');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_alice', 'secret-pw')).status, 303);
  assert.equal((await browser.get('/app/links')).status, 200, 'the one page of the window');
  assert.equal((await browser.post('/app/links', { url: 'not a URL' })).status, 400, 'the one form of the window');
  const screens = operations.filter((o) => o.path.startsWith('/app') && o.op.responses['429'] && !/^\/app\/(login|register)$/.test(o.path));
  assert.ok(screens.length > 30, String(screens.length));
  for (const o of screens) {
    const path = o.path.replace(/\{\w+\}/g, '1');
    const got = o.method === 'get' ? await browser.get(path) : await browser.post(path, {});
    contract.check(o, { status: got.status, body: got.text, text: got.text, headers: got.res.headers }, 'over the limit');
    assert.equal(got.status, 429, `${o.method} ${path}`);
  }
});

test('every documented response was produced by some request', () => {
  const missing = operations.flatMap((o) => Object.keys(o.op.responses).map((status) => `${o.method} ${o.path} ${status}`)).filter((k) => !contract.seen.has(k));
  assert.deepEqual(missing, []);
});
