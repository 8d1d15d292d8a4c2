import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METRICS } from '../src/analytics/metrics.ts';
import { testApp } from './helpers.ts';
import type { Reply } from './helpers.ts';
import { readZip, unzipTest } from './zip-reader.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const RANGE = 'from=2026-11-21&to=2026-11-22';

/** A website with pageviews over two days, and custom events whose names a spreadsheet would run. */
async function tracked() {
  const app = await testApp({ trustProxy: true });
  const alice = await app.makeUser('alice');
  const site = await app.call('POST', '/api/v1/websites', { key: alice.key, body: { domain: 'example.com' } });
  const id = site.body.data.id as number;
  const send = async (body: Record<string, unknown>, ip: string) => {
    const r = await app.call('POST', '/api/event', { key: null, raw: JSON.stringify(body), headers: { 'x-forwarded-for': ip, 'user-agent': CHROME, 'cf-ipcountry': 'FR' } });
    assert.equal(r.status, 202, r.text);
  };
  for (let i = 0; i < 12; i++) await send({ page: `https://example.com/p${String(i).padStart(2, '0')}` }, `192.0.2.${i % 3}`);
  await send({ page: 'https://example.com/', event: { name: '=HYPERLINK("http://evil.example","x")', properties: { plan: '-1+1', 'a,b': 'say "hi"' } } }, '192.0.2.1');
  await send({ page: 'https://example.com/', event: { name: 'Signup', properties: { plan: 'pro' } } }, '192.0.2.1');
  app.clock.set('2026-11-22T09:00:00Z');
  await send({ page: 'https://example.com/p00' }, '192.0.2.7');
  const get = (path: string, opts: { key?: string; headers?: Record<string, string> } = {}) => app.call('GET', path, { key: opts.key ?? alice.key, headers: opts.headers });
  // The test helper reads bodies as text, which a zip is not.
  const bytes = async (path: string) => new Uint8Array(await (await app.app.request(path, { headers: { authorization: `Bearer ${alice.key}` } })).arrayBuffer());
  return { ...app, alice, id, get, bytes };
}

const isCsv = (r: Reply) => {
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8');
};

test('every stats name answers CSV with format=csv or an Accept header preferring text/csv: every row, value,count, safe for spreadsheets', async () => {
  const { get, id } = await tracked();
  const csv = await get(`/api/v1/stats/${id}?name=page&${RANGE}&format=csv&per_page=10&page=2`);
  isCsv(csv);
  assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="example.com-page-2026-11-21-2026-11-22.csv"');
  const lines = csv.text.split('\r\n');
  assert.equal(lines[0], 'value,count');
  assert.deepEqual(lines.slice(1, 3), ['/p00,2', '/p01,1'], 'sorted as the JSON is: count, then value');
  assert.equal(lines.length, 1 + 12 + 1, 'every row, not one page, and a CRLF after the last');
  const events = await get(`/api/v1/stats/${id}?name=event&${RANGE}&format=csv`);
  assert.equal(events.text, `value,count\r\n"'=HYPERLINK(""http://evil.example"",""x"")",1\r\nSignup,1\r\n`);
  const property = await get(`/api/v1/stats/${id}?name=event_property&event=${encodeURIComponent('=HYPERLINK("http://evil.example","x")')}&property=plan&${RANGE}&format=csv`);
  assert.equal(property.text, "value,count\r\n'-1+1,1\r\n");
  const days = await get(`/api/v1/stats/${id}?name=pageviews&${RANGE}&sort_by=value&sort=asc`, { headers: { accept: 'text/csv' } });
  isCsv(days);
  assert.equal(days.text, 'value,count\r\n2026-11-21,12\r\n2026-11-22,1\r\n');
  for (const accept of ['text/csv;q=0.9, application/json', 'application/json', '*/*', 'text/csv, application/json', 'text/html']) {
    const json = await get(`/api/v1/stats/${id}?name=pageviews&${RANGE}`, { headers: { accept } });
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/, accept);
    assert.equal(json.body.total, 2, accept);
  }
  isCsv(await get(`/api/v1/stats/${id}?name=pageviews&${RANGE}`, { headers: { accept: 'text/csv, application/json;q=0.5' } }));
  const asJson = await get(`/api/v1/stats/${id}?name=pageviews&${RANGE}&format=json`, { headers: { accept: 'text/csv' } });
  assert.equal(asJson.body.total, 2, 'format wins over Accept');
});

test('a CSV request that is refused gets the JSON error; another user or no key gets no CSV', async () => {
  const { get, id, makeUser } = await tracked();
  const bad = await get(`/api/v1/stats/${id}?name=page&${RANGE}&format=xml`);
  assert.deepEqual([bad.status, bad.body], [422, { message: { format: ['The selected format is invalid. Valid formats: json, csv.'] }, status: 422 }]);
  const noRange = await get(`/api/v1/stats/${id}?name=page&format=csv`);
  assert.deepEqual([noRange.status, noRange.body.message], [422, { from: ['The from field is required.'], to: ['The to field is required.'] }]);
  const bob = await makeUser('bob');
  const theirs = await get(`/api/v1/stats/${id}?name=page&${RANGE}&format=csv`, { key: bob.key });
  assert.deepEqual([theirs.status, theirs.body], [404, { message: 'Resource not found.', status: 404 }]);
});

test('GET /api/v1/stats/{id}/export is a zip of every name over the range, that unzip -t accepts', async () => {
  const { get, bytes, id, makeUser } = await tracked();
  const r = await get(`/api/v1/stats/${id}/export?${RANGE}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'application/zip');
  assert.equal(r.headers.get('content-disposition'), 'attachment; filename="example.com-stats-2026-11-21-2026-11-22.zip"');
  const raw = await bytes(`/api/v1/stats/${id}/export?${RANGE}`);
  const files = readZip(raw);
  assert.deepEqual([...files.keys()].sort(), [...METRICS.filter((m) => m !== 'event_property').map((m) => `${m}.csv`), 'event_property.csv'].sort());
  assert.equal(files.get('pageviews.csv'), 'value,count\r\n2026-11-21,12\r\n2026-11-22,1\r\n');
  assert.equal(files.get('visitors.csv'), 'value,count\r\n2026-11-21,3\r\n2026-11-22,1\r\n');
  assert.equal(files.get('pageviews_hour.csv'), 'value,count\r\n09,1\r\n10,12\r\n', 'hours in order');
  assert.equal(files.get('country.csv'), 'value,count\r\nFR:France,4\r\n');
  assert.equal(files.get('city.csv'), 'value,count\r\n', 'nothing counted: the header alone');
  assert.equal(files.get('event_property.csv'), `event,property,value,count\r\n"'=HYPERLINK(""http://evil.example"",""x"")","a,b","say ""hi""",1\r\n"'=HYPERLINK(""http://evil.example"",""x"")",plan,'-1+1,1\r\nSignup,plan,pro,1\r\n`);
  assert.match(files.get('page.csv') ?? '', /^value,count\r\n\/p00,2\r\n/);
  const tested = unzipTest(raw);
  if (tested) assert.ok(tested.ok, tested.output);

  const oneDay = readZip(await bytes(`/api/v1/stats/${id}/export?from=2026-11-22&to=2026-11-22`));
  assert.equal(oneDay.get('pageviews.csv'), 'value,count\r\n2026-11-22,1\r\n');
  assert.equal(oneDay.get('event.csv'), 'value,count\r\n');

  const missing = await get(`/api/v1/stats/${id}/export`);
  assert.deepEqual([missing.status, missing.body], [422, { message: { from: ['The from field is required.'], to: ['The to field is required.'] }, status: 422 }]);
  const backwards = await get(`/api/v1/stats/${id}/export?from=2026-11-22&to=2026-11-21`);
  assert.deepEqual([backwards.status, backwards.body.message], [422, { to: ['The to must be a date after or equal to from.'] }]);
  const bob = await makeUser('bob');
  assert.equal((await get(`/api/v1/stats/${id}/export?${RANGE}`, { key: bob.key })).status, 404);
  assert.equal((await get(`/api/v1/stats/99999/export?${RANGE}`)).status, 404);
  assert.equal((await get(`/api/v1/stats/${id}/export?${RANGE}`, { key: 'sk_wrong_key_000000000000000000' })).status, 401);
});

test("GET /api/url/:id/stats/export is a zip of the link's clicks per day and of every breakdown", async () => {
  const app = await testApp({ trustProxy: true });
  const alice = await app.makeUser('alice');
  const link = await app.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/', custom: 'counted' } });
  assert.equal(link.status, 200, link.text);
  const click = async (ip: string, extra: Record<string, string> = {}) => {
    const r = await app.call('GET', '/counted', { key: null, headers: { 'x-forwarded-for': ip, 'user-agent': CHROME, ...extra } });
    assert.equal(r.status, 302);
  };
  await click('198.51.100.1', { 'cf-ipcountry': 'DE', referer: 'https://news.example.org/a' });
  await click('198.51.100.1', { 'cf-ipcountry': 'DE' });
  await click('198.51.100.2', { 'cf-ipcountry': 'US', referer: '=cmd|x' });
  app.clock.set('2026-11-23T08:00:00Z');
  await click('198.51.100.3');
  const path = `/api/url/${link.body.id}/stats/export`;
  const all = await app.call('GET', path, { key: alice.key });
  assert.equal(all.status, 200, all.text);
  assert.equal(all.headers.get('content-type'), 'application/zip');
  assert.equal(all.headers.get('content-disposition'), `attachment; filename="link-${link.body.id}-stats.zip"`);
  const bytes = new Uint8Array(await (await app.app.request(path, { headers: { authorization: `Bearer ${alice.key}` } })).arrayBuffer());
  const files = readZip(bytes);
  for (const name of ['clicks', 'unique_clicks', 'browser', 'country', 'device', 'language', 'os', 'referrer', 'social']) assert.ok(files.has(`${name}.csv`), name);
  assert.equal(files.get('clicks.csv'), 'value,count\r\n2026-11-21,3\r\n2026-11-23,1\r\n');
  assert.equal(files.get('unique_clicks.csv'), 'value,count\r\n2026-11-21,2\r\n2026-11-23,1\r\n');
  assert.equal(files.get('country.csv'), 'value,count\r\nGermany,2\r\nUnited States,1\r\nUnknown,1\r\n');
  assert.equal(files.get('browser.csv'), 'value,count\r\nChrome,4\r\n');
  const tested = unzipTest(bytes);
  if (tested) assert.ok(tested.ok, tested.output);

  const day = readZip(new Uint8Array(await (await app.app.request(`${path}?from=2026-11-23&to=2026-11-23`, { headers: { authorization: `Bearer ${alice.key}` } })).arrayBuffer()));
  assert.equal(day.get('clicks.csv'), 'value,count\r\n2026-11-23,1\r\n');
  for (const [query, message] of [
    ['from=21-11-2026', 'Invalid from: it must be a date as YYYY-MM-DD.'],
    ['to=2026-02-30', 'Invalid to: it must be a date as YYYY-MM-DD.'],
    ['from=2026-11-23&to=2026-11-21', 'Invalid to: it must be the same day as from or later.'],
  ]) {
    const r = await app.call('GET', `${path}?${query}`, { key: alice.key });
    assert.deepEqual([r.status, r.body], [400, { error: 1, message }], query);
  }
  const bob = await app.makeUser('bob');
  const theirs = await app.call('GET', path, { key: bob.key });
  assert.deepEqual([theirs.status, theirs.body.error], [404, 1]);
});
