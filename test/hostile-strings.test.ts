import { test } from 'node:test';
import assert from 'node:assert/strict';
import { campaignListPath } from '../src/resources/campaigns.ts';
import type { Resource } from '../src/resources/define.ts';
import { RESOURCES } from '../src/resources/table.ts';
import { snapshotOf, testApp , allOf } from './helpers.ts';
import type { Reply } from './helpers.ts';
import { prng } from './seeded-prng.ts';

type Rec = Record<string, any>;

/** What an attacker or a broken client may put into any string: controls, line breaks, NUL, lone surrogates, markup, 10k characters. */
const HOSTILE = ['\u0001', '\r\nX-Injected: 1', '\n', '\u0000', '\u007f', '\ud800', '\udfff', '"><script>alert(1)</script>', 'x'.repeat(10_000)];

/** Header values Node refuses to write (it accepts tab, visible ASCII and bytes 0x80-0xff). */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** Every string of a valid create body: top-level strings, and strings inside arrays and objects (targets, deep links, QR data). */
function stringPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...at, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...at, k]));
  return [];
}

function withValue(body: Rec, path: (string | number)[], value: string): Rec {
  const copy = structuredClone(body);
  let node: any = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)!] = value;
  return copy;
}

/** Richer valid bodies than the rows' examples, so nested URL fields are fuzzed too. */
const EXTRA_BODIES: Record<string, (n: number) => Rec> = {
  links: (n) => ({
    url: `https://example.com/x/${n}`,
    custom: `fz-${n}`,
    password: 'secret-pass',
    metatitle: 'Title',
    metadescription: 'Description',
    metaimage: 'https://example.com/i.png',
    geotarget: [{ location: 'DE', link: 'https://example.de/' }],
    devicetarget: [{ device: 'iphone', link: 'https://example.com/ios' }],
    languagetarget: [{ language: 'fr', link: 'https://example.fr/' }],
    deeplink: { apple: 'https://apps.apple.com/app/1', google: 'https://play.google.com/store/apps/details?id=x' },
    parameters: [{ name: 'utm_source', value: 'fuzz' }],
  }),
  qrs: (n) => (n % 2 ? { type: 'link', data: `https://example.com/q/${n}`, name: 'QR' } : { type: 'vcard', data: { name: 'Ada', company: 'AE', website: 'https://example.com/' }, name: 'Card' }),
  domains: (n) => ({ domain: `https://fz${n}.example.net`, redirectroot: 'https://example.com/root', redirect404: 'https://example.com/404' }),
  overlays: (n) => ({ type: 'message', name: `O${n}`, message: 'Hello', buttontext: 'Go', buttonlink: 'https://example.com/go' }),
  splash: (n) => ({ name: `S${n}`, title: 'Title', text: 'Text', image: 'https://example.com/b.png', countdown: 3 }),
  bios: (n) => ({ name: `B${n}`, description: 'About', avatar: 'https://example.com/a.png', links: [{ title: 'One', url: 'https://example.com/1' }, { title: 'Two', url: 'https://example.com/2' }] }),
};

const creatable = RESOURCES.filter((row): row is Resource & { paths: { create: string } } => row.paths.create !== undefined && row.create !== undefined);

test('hostile strings in every stored field: no 5xx, nothing stored when refused, and every page and redirect built from what was stored answers with valid headers', { timeout: 300_000 }, async () => {
  const { call, store, app } = await testApp({ rateLimit: 0, analyticsRateLimit: 0, eventRateLimit: 0, authFailureLimit: 0, logoFetch: false }, process.env.FUZZ_LOG ? { log: (await import('../src/log.ts')).createLogger('error') } : {});
  const random = prng(0x40571e);
  const failures: string[] = [];
  const check = (what: string, r: Reply) => {
    if (r.status >= 500) failures.push(`${what}: ${r.status} ${r.text.slice(0, 120)}`);
    r.headers.forEach((value, name) => {
      if (BAD_HEADER_VALUE.test(value)) failures.push(`${what}: header ${name} has a byte Node refuses`);
    });
    if (r.headers.get('x-injected') !== null) failures.push(`${what}: a header was injected`);
    if (/<script>alert\(1\)/.test(r.text) && /text\/html/.test(r.headers.get('content-type') ?? '')) failures.push(`${what}: unescaped markup in a page`);
  };
  let n = 0;
  let accepted = 0;
  let refused = 0;
  for (const row of creatable) {
    const bodies = [row.example(1), ...(EXTRA_BODIES[row.collection] ? [EXTRA_BODIES[row.collection]!(2)] : [])];
    for (const valid of bodies) {
      for (const path of stringPaths(valid)) {
        for (const hostile of HOSTILE) {
          n++;
          const original = String(path.reduce((node: any, k) => node[k], valid));
          // Alone, appended to a valid value, or in the middle of one (after a seeded cut).
          const cut = random.int(0, original.length);
          const value = [hostile, original + hostile, original.slice(0, cut) + hostile + original.slice(cut)][n % 3]!;
          const body = withValue(valid, path, value);
          if (row.collection === 'links') body.custom = `fz${n}`;
          // Only the links that fuzz their password keep one: the password form shows none of a link's
          // other fields and hides the pages that do (their visits below), and each costs a scrypt.
          if (row.collection === 'links' && path[0] !== 'password') delete body.password;
          if (row.collection === 'domains' && path[0] !== 'domain') body.domain = `https://fz${n}.example.net`;
          if (row.collection === 'websites' && path[0] !== 'domain') body.domain = `fz${n}.example.com`;
          if (row.collection === 'campaigns' && path[0] !== 'slug') Object.assign(body, { slug: `fz-${n}`, name: path[0] === 'name' ? body.name : `Campaign ${n}` });
          if (row.collection === 'users') Object.assign(body, path[0] === 'email' ? {} : { email: `fz${n}@example.com` }, path[0] === 'username' ? {} : { username: `fz${n}` });
          const before = await snapshotOf(store, row.collection);
          const r = await call('POST', row.paths.create, { body, headers: { accept: 'application/json' } });
          check(`POST ${row.paths.create} ${path.join('.')}=${JSON.stringify(value.slice(0, 30))}`, r);
          if (r.status >= 400) {
            refused++;
            if (await snapshotOf(store, row.collection) !== before) failures.push(`${row.paths.create} ${path.join('.')}: refused (${r.status}) but stored`);
          } else accepted++;
        }
      }
    }
  }

  // The same through every update route, on a record that exists.
  for (const row of RESOURCES) {
    if (!row.paths.update || !row.update) continue;
    const fields = row.update.fields ?? Object.keys(row.fields);
    const first = (await allOf<Rec & { id: number }>(store, row.collection)).find((r) => row.collection !== 'users' || !r.admin);
    if (!first) continue;
    const valid = Object.fromEntries(Object.entries({ ...row.example(3), ...(EXTRA_BODIES[row.collection]?.(3) ?? {}) }).filter(([k]) => fields.includes(k) && k !== 'custom' && k !== 'domain'));
    for (const path of stringPaths(valid)) {
      for (const hostile of HOSTILE) {
        const value = String(path.reduce((node: any, k) => node[k], valid)) + hostile;
        const before = await snapshotOf(store, row.collection);
        const method = row.api === 'analytics' ? 'PATCH' : 'PUT';
        const r = await call(method, row.paths.update.replace(':id', String(first.id)), { body: withValue(valid, path, value), headers: { accept: 'application/json' } });
        check(`${method} ${row.paths.update} ${path.join('.')}`, r);
        if (r.status >= 400 && await snapshotOf(store, row.collection) !== before) failures.push(`${row.paths.update} ${path.join('.')}: refused (${r.status}) but stored`);
      }
    }
  }

  // Hostile events, counted into statistics the stats page then shows.
  const site = (await allOf<Rec & { id: number }>(store, 'websites'))[0]!;
  for (const hostile of HOSTILE) {
    for (const event of [{ page: `https://${site.domain}/p${hostile}` }, { page: `https://${site.domain}/`, referrer: `https://ref.example/${hostile}` }, { page: `https://${site.domain}/`, event: { name: `sign${hostile}up`, value: hostile, unit: hostile } }]) {
      check(`POST /api/event ${JSON.stringify(event).slice(0, 60)}`, await call('POST', '/api/event', { key: null, body: event, headers: { 'user-agent': BROWSER } }));
    }
  }

  // Links that show every overlay, splash page and pixel that was stored.
  const attach = [
    ...(await allOf<Rec & { id: number }>(store, 'overlays')).map((o) => ({ type: `overlay-${o.id}` })),
    ...(await allOf<Rec & { id: number }>(store, 'splash')).map((s) => ({ type: String(s.id) })),
    ...(await allOf<Rec & { id: number }>(store, 'pixels')).map((p) => ({ pixels: [p.id] })),
    { type: 'frame', metatitle: '"><script>alert(1)</script>' },
  ];
  for (const [i, extra] of attach.entries()) check(`attach ${JSON.stringify(extra)}`, await call('POST', '/api/url/add', { body: { url: `https://example.com/a/${i}`, custom: `att-${i}`, ...extra } }));

  const visit = async (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const res = await app.request(path, { ...init, headers: { 'user-agent': BROWSER, 'cf-ipcountry': 'DE', 'accept-language': 'fr', ...init.headers } });
    const text = await res.text();
    check(`${init.method ?? 'GET'} ${path.slice(0, 80)}`, { status: res.status, text, body: text, headers: res.headers });
  };
  const hostOf = async (domainId: number | null) => (domainId ? new URL((await store.get<Rec & { id: number }>('domains', domainId))!.domain).host : 'sho.rt');
  for (const link of (await allOf<Rec & { id: number }>(store, 'links'))) {
    const alias = encodeURIComponent(link.alias);
    await visit(`/${alias}`, { headers: { host: await hostOf(link.domainId) } });
    await visit(`/${alias}`, { headers: { host: await hostOf(link.domainId), 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1' } });
    if (link.password) await visit(`/${alias}`, { method: 'POST', body: 'password=wrong', headers: { host: await hostOf(link.domainId), 'content-type': 'application/x-www-form-urlencoded' } });
  }
  for (const qr of (await allOf<Rec & { id: number }>(store, 'qrs'))) {
    for (const suffix of ['', '?format=svg', '/scan']) await visit(`/qr/${encodeURIComponent(qr.alias)}${suffix}`);
  }
  for (const campaign of (await allOf<Rec & { id: number }>(store, 'campaigns'))) {
    if (campaign.slug) await visit(`/r/${encodeURIComponent(campaign.slug)}`);
    await visit(`/c/${campaign.id}-${encodeURIComponent(campaign.slug ?? campaign.id)}`);
    const owner = (await store.get<Rec & { id: number; username: string }>('users', campaign.userId as number))!;
    await visit(campaignListPath(campaign as Rec & { id: number; slug: string | null; name: string }, owner.username));
  }
  for (const bio of (await allOf<Rec & { id: number }>(store, 'bios'))) await visit(`/u/${encodeURIComponent(bio.alias)}`);
  for (const domain of (await allOf<Rec & { id: number }>(store, 'domains'))) {
    for (const path of ['/', '/no-such-alias']) await visit(path, { headers: { host: new URL(domain.domain).host } });
  }
  for (const website of (await allOf<Rec & { id: number }>(store, 'websites'))) {
    await visit(`/stats/${encodeURIComponent(website.domain)}`);
    check(`GET /api/v1/stats/${website.id}`, await call('GET', `/api/v1/stats/${website.id}?name=pages`));
  }
  for (const row of creatable) if (row.paths.list) check(`GET ${row.paths.list}`, await call('GET', row.paths.list));

  assert.deepEqual(failures, []);
  assert.ok(accepted > 50 && refused > 100, `both outcomes were exercised (accepted ${accepted}, refused ${refused})`);
});

test('a JSON body with a lone surrogate escape is refused with a 400 on both APIs and nothing is stored; a pair is kept', async () => {
  const { call, store } = await testApp({ rateLimit: 0 });
  const lone = await call('POST', '/api/url/add', { raw: '{"url":"https://example.com/","description":"a\\ud800b"}', headers: { 'content-type': 'application/json' } });
  assert.deepEqual([lone.status, lone.body.error], [400, 1]);
  assert.match(lone.body.message, /lone surrogate/);
  const site = await call('POST', '/api/v1/websites', { raw: '{"domain":"lone\\udc00.example.com"}', headers: { 'content-type': 'application/json' } });
  assert.equal(site.status, 400);
  assert.equal((await allOf(store, 'links')).length, 0);
  assert.equal((await allOf(store, 'websites')).length, 0);
  const pair = await call('POST', '/api/url/add', { raw: '{"url":"https://example.com/","description":"smile \\ud83d\\ude00"}', headers: { 'content-type': 'application/json' } });
  assert.equal(pair.status, 200, pair.text);
  assert.equal((await allOf<{ description: string } & { id: number }>(store, 'links'))[0]!.description, 'smile 😀');
});

test('nesting deeper than 64 levels is refused with a 400 before it is parsed, on the link API, bulk and /api/event; 64 levels and brackets inside strings are fine', async () => {
  const { call, store } = await testApp({ rateLimit: 0, eventRateLimit: 0 });
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const json = { 'content-type': 'application/json' };
  const deep = await call('POST', '/api/url/add', { raw: `{"url":"https://example.com/deep","x":${nested(500_000)}}`, headers: json });
  assert.deepEqual([deep.status, deep.body.error], [400, 1]);
  assert.match(deep.body.message, /deeper than 64 levels/);
  const bulk = await call('POST', '/api/url/bulk', { raw: `{"urls":${nested(1_000_000)}}`, headers: json });
  assert.equal(bulk.status, 400, bulk.text);
  assert.match(bulk.body.message, /deeper than 64 levels/);
  // The lone-surrogate walk met such depths too (a stack overflow, a 500).
  const event = await call('POST', '/api/event', { raw: `{"page":"https://example.com/","x":${nested(4000)},"s":"\\ud800"}`, headers: { ...json, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0' } });
  assert.equal(event.status, 400, event.text);
  assert.equal((await allOf(store, 'links')).length, 0);
  // 63 levels inside the body's own object, and brackets in strings (escaped quotes too), are no nesting.
  const fine = await call('POST', '/api/url/add', { raw: `{"url":"https://example.com/ok","description":"[[[{{{ \\" [[[","x":${nested(63)}}`, headers: json });
  assert.equal(fine.status, 200, fine.text);
  assert.equal((await allOf(store, 'links')).length, 1);
});
