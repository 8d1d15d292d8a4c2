import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, runCli } from './process-helpers.ts';
import { DATABASE_URL, newSchema, startPgServer, stop, storedClicks, waitFor } from './pg-server.ts';
import { fresh, linesMatching } from './limits-helpers.ts';

/**
 * WORKERS=N: one port served by N worker processes (node:cluster). The file store refuses more
 * than one; on PostgreSQL (TEST_DATABASE_URL) two workers serve, one killed is replaced, and
 * SIGTERM drains both. TEST_MODE's X-Worker-Pid header tells which worker answered.
 */
test('WORKERS=2 on the JSON files: refused with one line, exit 1, before anything starts', async () => {
  const run = await runCli(['serve', '--workers', '2'], { DATA_DIR: ':memory:', PORT: '0' });
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stderr, 'Invalid WORKERS: 2 workers need DATABASE_URL, as the JSON data files belong to one process (set WORKERS=1, or keep the data in PostgreSQL)\n');
  assert.doesNotMatch(run.stdout, /listening|Admin API key/);
});

if (!DATABASE_URL) console.log('# cluster tests on PostgreSQL skipped (TEST_DATABASE_URL is not set)');

/** The pids of the workers answering `count` requests, each on its own connection. */
async function workerPids(url: string, count: number): Promise<Set<string>> {
  const answers = await Promise.all(Array.from({ length: count }, () => fresh(url, '/health')));
  return new Set(answers.map((a) => String(a.headers['x-worker-pid'])));
}

if (DATABASE_URL) describe('WORKERS=2 on PostgreSQL', () => {
  test('two workers serve one port; a killed one is replaced; SIGTERM drains both (clicks flushed) and exits 0', async () => {
    const schema = newSchema();
    const server = await startPgServer(schema, DATABASE_URL, { WORKERS: '2', TEST_MODE: 'on' });
    try {
      // Each process writes its own lines: the workers' may reach the pipe after the primary's.
      const up = () => /\[primary\] 2 workers listening on http:\/\/127\.0\.0\.1:\d+/.test(server.output()) && linesMatching(server.output(), /\[worker \d+ pid \d+\] listening on /) >= 2;
      assert.ok(await waitFor(up, 30_000), server.output());
      assert.equal(linesMatching(server.output(), /\[worker \d+ pid \d+\] listening on /), 2);
      assert.equal(linesMatching(server.output(), /schema migrated/), 1, 'one worker migrated; the other found nothing to do');
      const pids = await workerPids(server.url, 12);
      assert.equal(pids.size, 2, `answered by ${[...pids].join(', ')}`);
      assert.ok(!pids.has(String(server.child.pid)), 'the primary serves nothing');

      const victim = [...pids][0]!;
      process.kill(Number(victim), 'SIGKILL');
      assert.ok(await waitFor(() => new RegExp(`\\(pid ${victim}\\) was killed by SIGKILL; starting another in 0\\.5 s`).test(server.output()), 5000), server.output());
      let now = new Set<string>();
      assert.ok(await waitFor(async () => (now = await workerPids(server.url, 6)).size === 2 && !now.has(victim), 40_000), `${[...now].join(', ')}\n${server.output()}`);

      const link = await api(server.url, 'POST', '/api/url/add', { url: 'https://example.com/drained' });
      assert.equal(link.status, 200, JSON.stringify(link.body));
      const alias = String(link.body.shorturl).split('/').pop();
      const clicks = await Promise.all(Array.from({ length: 8 }, () => fresh(server.url, `/${alias}`)));
      assert.deepEqual(clicks.map((c) => c.status), Array(8).fill(302));

      assert.equal(await stop(server, 'SIGTERM'), 0, server.output());
      assert.match(server.output(), /\[primary\] SIGTERM: draining 2 workers/);
      assert.match(server.output(), /\[primary\] all workers stopped; exiting/);
      assert.equal(await storedClicks(schema, `link:${link.body.id}`), 8, 'each worker flushed its clicks before it exited');
    } finally {
      await stop(server);
    }
  });

  test('WORKERS=2 with the database unreachable: exit 1 within seconds, no restart loop', async () => {
    const started = Date.now();
    const run = await runCli(['serve'], { WORKERS: '2', DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/db', DATABASE_SCHEMA: newSchema(), PORT: '0', LOG_LEVEL: 'info' });
    assert.equal(run.code, 1, run.stderr);
    assert.ok(Date.now() - started < 30_000);
    assert.match(run.stderr, /127\.0\.0\.1:1\b/);
    assert.match(run.stderr, /before any worker listened: stopping/);
    assert.doesNotMatch(run.stderr, /starting another|secret/);
  });
});
