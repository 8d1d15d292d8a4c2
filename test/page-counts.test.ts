import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subjectOf } from '../src/links/stats.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

// Numbers on pages have thousands separators: here the dashboard's counts of a
// link's clicks, a QR code's scans and a file's downloads, counted as a visit counts them.
test('the dashboard shows clicks, scans and downloads with thousands separators', async (t) => {
  const app = await testApp({ rateLimit: 0 });
  const u = await app.makeUser('counts');
  const api = async (path: string, init: { body?: unknown; raw?: string; headers?: Record<string, string> }) => {
    const r = await app.call('POST', path, { key: u.key, ...init });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body.id as number;
  };
  const link = await api('/api/url/add', { body: { url: 'https://example.com/counted', custom: 'counted' } });
  const qr = await api('/api/qr/add', { body: { type: 'text', data: 'hello', name: 'Counted QR' } });
  const file = await api('/api/files/upload/notes.txt?name=Counted%20file', { raw: 'the notes\n', headers: { 'content-type': 'application/octet-stream' } });
  // One click at a time, so that the link's Countries panel counts 1,234 too (a label counts once per record).
  for (let i = 0; i < 1234; i++) app.counters.record(subjectOf('link', link), { add: { clicks: 1, uniqueClicks: i < 1001 ? 1 : 0 }, labels: { country: 'DE:Germany' } }, { owner: u.id });
  app.counters.record(subjectOf('qr', qr), { add: { clicks: 2345 } }, { owner: u.id });
  app.counters.record(subjectOf('file', file), { add: { clicks: 3456 } }, { owner: u.id });
  await app.counters.flush();

  const browser = new DashClient(app.app);
  assert.equal((await browser.signIn('user_counts', 'secret-pw')).status, 303);
  const page = async (path: string) => {
    const r = await browser.get(path);
    assert.equal(r.status, 200, path);
    return r.text;
  };

  await t.test('the links list: the link\'s clicks', async () => {
    assert.match(await page('/app/links'), /<td class="n">1,234<\/td>/);
  });
  await t.test('the link\'s page: its clicks and unique clicks in the totals, the chart\'s description, its table and the country panel', async () => {
    const text = await page(`/app/links/${link}`);
    assert.match(text, /<b>1,234<\/b>/);
    assert.match(text, /<b>1,001<\/b>/);
    assert.ok(text.includes('1,234 clicks, 1,001 unique'), 'the chart\'s description');
    assert.match(text, /<td class="n">1,234<\/td><td class="n">1,001<\/td><\/tr>/, 'the chart\'s table, today\'s row');
    assert.match(text, /Germany[^<]*<\/td>\s*<td class="n">1,234<\/td>/, 'the Countries panel');
    assert.doesNotMatch(text, /[> ](1234|1001)[< ]/, 'no count shown without its separator');
  });
  await t.test('the QR codes list and the QR code\'s page: its scans', async () => {
    assert.match(await page('/app/qrs'), / · 2,345 scans · /);
    assert.match(await page(`/app/qrs/${qr}`), / · 2,345 scans · created /);
  });
  await t.test('the files list: the file\'s downloads', async () => {
    assert.match(await page('/app/files'), /<td class="n">3,456<\/td>/);
  });
});
