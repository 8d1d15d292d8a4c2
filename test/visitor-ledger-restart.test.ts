/**
 * Unique visitors across a restart: the store keeps the day's salt and the visitor ledger, so a
 * visitor who comes back after a restart (SIGTERM, an upgrade) is not counted as new again.
 * Runs on the pass's backend: a data directory, or a PostgreSQL schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { backendEnv } from './backend.ts';
import { liveServer, tempDir, visit } from './live-server.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

test('a visitor seen before a restart is no new unique visitor after it; a new one is', async () => {
  const dir = await tempDir();
  // The same data for both servers: the directory, or the same PostgreSQL schema.
  const db = backendEnv();
  const same = db.DATABASE_URL ? { databaseUrl: db.DATABASE_URL, databaseSchema: db.DATABASE_SCHEMA! } : {};
  const start = () => liveServer(dir, { trustProxy: true, ...same });
  try {
    const first = await start();
    const link = (await first.api('POST', '/api/url/add', { url: 'https://example.com/', custom: 'again' })).body;
    const site = (await first.api('POST', '/api/v1/websites', { domain: 'example.com' })).body.data;
    const event = (url: string, ip: string) =>
      fetch(`${url}/api/event`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': CHROME, 'x-forwarded-for': ip }, body: JSON.stringify({ page: 'https://example.com/' }) });
    assert.equal((await visit(`${first.url}/again`, { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.7' })).status, 302);
    assert.equal((await event(first.url, '203.0.113.7')).status, 202);
    await first.close();

    const second = await start();
    try {
      assert.equal((await visit(`${second.url}/again`, { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.7' })).status, 302);
      assert.equal((await visit(`${second.url}/again`, { 'user-agent': CHROME, 'x-forwarded-for': '198.51.100.9' })).status, 302);
      assert.equal((await event(second.url, '203.0.113.7')).status, 202);
      const stats = (await second.api('GET', `/api/url/${link.id}`)).body.data;
      assert.deepEqual([stats.clicks, stats.uniqueClicks], [3, 2], 'the returning visitor counts once, the new one once');
      const day = new Date().toISOString().slice(0, 10);
      const visitors = (await second.api('GET', `/api/v1/stats/${site.id}?name=visitors&from=${day}&to=${day}`)).body;
      const pageviews = (await second.api('GET', `/api/v1/stats/${site.id}?name=pageviews&from=${day}&to=${day}`)).body;
      assert.deepEqual([visitors.data[0]?.count, pageviews.data[0]?.count], [1, 2], 'one visitor, two pageviews');
    } finally {
      await second.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
