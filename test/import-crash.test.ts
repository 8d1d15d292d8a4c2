/**
 * Import jobs and `import-links` in real processes: a server killed with SIGKILL in the middle of
 * a job finishes it after a restart with every row once and no link twice (on the JSON files, and
 * on PostgreSQL when TEST_DATABASE_URL is set: there the new process sees that the holder of the
 * job's lease was a process of its host that is gone; a lease running out is import-jobs.test.ts's);
 * the command's exit codes and output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { allOf } from './helpers.ts';
import { DATABASE_URL, newSchema, sql, stop, waitFor } from './pg-server.ts';
import { PROCESS_ADMIN_KEY, runCli, startProcess } from './process-helpers.ts';

/** Rows of the file per backend: enough that the kill (at a tenth) comes well before the end (PostgreSQL imports rows a few times slower). */
const ROWS = { file: 20_000, postgres: 10_000 } as const;
const fileOf = (rows: number) => ['url,alias,title,clicks', ...Array.from({ length: rows }, (_, i) => `https://crash.example/page/${i + 1},crash-${i + 1},Page ${i + 1},${i % 3}`)].join('\n');
// any: job bodies are read field by field with assertions
type Job = any;

async function jobOf(url: string, id: number, query = ''): Promise<Job> {
  const res = await fetch(`${url}/api/import/${id}${query}`, { headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}` } });
  return ((await res.json()) as Job).data;
}

for (const backend of (DATABASE_URL ? ['file', 'postgres'] : ['file']) as ('file' | 'postgres')[]) {
  test(`${backend}: a job whose server is killed (-9) mid-way finishes after a restart, every row reported once, no link twice`, { timeout: 180_000 }, async () => {
    const rows = ROWS[backend];
    const dir = await mkdtemp(join(tmpdir(), 'import-crash-'));
    const schema = backend === 'postgres' ? newSchema() : '';
    const env: Record<string, string> = backend === 'postgres' ? { DATABASE_URL: DATABASE_URL!, DATABASE_SCHEMA: schema } : {};
    try {
      const first = await startProcess(dir, env);
      const posted = await fetch(`${first.url}/api/import?format=csv`, { method: 'POST', headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}`, 'content-type': 'text/csv' }, body: fileOf(rows) });
      const { id } = (await posted.json()) as { id: number };
      assert.equal(posted.status, 202);
      let before: Job;
      assert.ok(await waitFor(async () => ((before = await jobOf(first.url, id)), before.progress.done >= rows / 10), 60_000), 'the job started');
      await stop(first);
      assert.ok(before.progress.done < rows, `killed mid-way (${before.progress.done} of ${rows} rows were done)`);
      const second = await startProcess(dir, env);
      let after: Job;
      try {
        assert.ok(await waitFor(async () => ((after = await jobOf(second.url, id)), after.state === 'finished'), 120_000), JSON.stringify(after));
        assert.deepEqual([after.progress, after.created, after.skipped, after.refused], [{ done: rows, total: rows }, rows, 0, 0]);
        const lastPage = await jobOf(second.url, id, `?page=${rows / 1000}&limit=1000`);
        assert.deepEqual(lastPage.report.rows.map((r: { row: number }) => r.row), Array.from({ length: 1000 }, (_, i) => rows - 999 + i));
      } finally {
        await stop(second, 'SIGTERM');
      }
      // What is stored, read after the server stopped: each row's link once, its clicks once.
      let aliases: string[];
      let clicks: number;
      if (backend === 'postgres') {
        aliases = (await sql<{ a: string }>(`SELECT data->>'alias' AS a FROM "${schema}".links`)).map((r) => r.a);
        clicks = Number((await sql<{ n: string }>(`SELECT coalesce(sum(n), 0) AS n FROM "${schema}".stat_counts WHERE metric = 'clicks' AND is_total`))[0]!.n);
      } else {
        const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
        aliases = (await allOf<{ id: number; alias: string }>(store, 'links')).map((l) => l.alias);
        clicks = (await allOf<{ id: number; counts: { clicks?: number } }>(store, 'stats')).reduce((n, d) => n + (d.counts.clicks ?? 0), 0);
        await store.close();
      }
      assert.equal(aliases.length, rows);
      assert.equal(new Set(aliases).size, rows);
      assert.equal(clicks, Array.from({ length: rows }, (_, i) => i % 3).reduce((a, b) => a + b, 0));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('import-links: the report and summary, a second run that creates nothing, a dry run, and the command line refused with exit code 2', { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'import-links-'));
  const sample = fileURLToPath(new URL('./fixtures/imports/generic.csv', import.meta.url));
  try {
    assert.equal((await runCli(['users:add', '--email', 'carol@example.com', '--data-dir', dir])).code, 0);
    const dry = await runCli(['import-links', sample, '--format', 'csv', '--user', 'carol@example.com', '--dry-run', '--data-dir', dir]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^row 1: would create \/pricing https:\/\/example\.com\/pricing\nrow 2: would create https:\/\/example\.com\/about\nrow 3: would create \/contact-us https:\/\/example\.com\/contact\n/);
    assert.match(dry.stdout, /Dry run for user 1 <carol@example\.com>, nothing stored: 3 would be created, 0 skipped, 0 refused \(3 rows\)\n$/);
    const first = await runCli(['import-links', sample, '--format', 'csv', '--user', 'CAROL', '--data-dir', dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^row 1: created link 1 \/pricing https:\/\/example\.com\/pricing\n/);
    assert.match(first.stdout, /Imported into user 1 <carol@example\.com>: 3 created, 0 skipped, 0 refused \(3 rows\)\n$/);
    const again = await runCli(['import-links', sample, '--format', 'csv', '--user', 'carol', '--json', '--data-dir', dir]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(again.stdout.trim().split('\n').map((l) => JSON.parse(l).message), ['already imported', 'already imported', 'already imported']);
    assert.match(again.stderr, /: 0 created, 3 skipped, 0 refused \(3 rows\)/);
    for (const [args, code, message] of [
      [['import-links', sample, '--user', 'carol'], 2, /^Missing --format \(one of csv, bitly, yourls, shlink, kutt, rebrandly\)\.\nUsage: /],
      [['import-links', sample, '--format', 'csv', '--user', 'nobody'], 1, /^No user has the username "nobody"/],
      [['import-links', sample, '--format', 'kutt', '--user', 'carol'], 1, /generic\.csv: This is not Kutt's links .*: no column holds the URL/],
    ] as const) {
      const r = await runCli([...args, '--data-dir', dir]);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
