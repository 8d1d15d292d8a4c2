import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, PROCESS_ADMIN_KEY } from './process-helpers.ts';
import type { ServerProcess } from './process-helpers.ts';
import { appName, DATABASE_URL, newSchema, sql, startPgServer, stop, waitFor } from './pg-server.ts';

/**
 * Several server instances on one PostgreSQL schema: what one changes, the others' caches drop
 * within a second (LISTEN/NOTIFY); their counts and unique visitors add up exactly; one killed
 * under load loses no acknowledged write. Three processes for the whole file. PostgreSQL only: it
 * runs in the normal test pass, reads TEST_DATABASE_URL itself and skips without it.
 */
if (!DATABASE_URL) console.log('# instances tests skipped (TEST_DATABASE_URL is not set)');

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0';
/** What a server's listening connection shows in pg_stat_activity. */
const listenerOf = (schema: string) => `${appName(schema)} changes`;

/** Where a short link sends a browser from `server` (null: it does not redirect). */
async function redirectOf(server: ServerProcess, alias: string, ua = BROWSER): Promise<string | null> {
  const res = await fetch(`${server.url}/${alias}`, { redirect: 'manual', headers: { 'user-agent': ua } });
  await res.arrayBuffer();
  return res.status === 302 ? res.headers.get('location') : null;
}

/** Polls `check` until it holds, at most `ms`; returns how long it took, or fails naming `what`. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  assert.ok(await waitFor(check, ms), `${what}: not within ${ms} ms`);
  return Date.now() - started;
}

if (DATABASE_URL) describe('PostgreSQL: several instances on one database', () => {
  const schema = newSchema();
  let a: ServerProcess;
  let b: ServerProcess;
  /** The third instance, killed by the last test. */
  let victim: ServerProcess;
  before(async () => {
    [a, b, victim] = await Promise.all([startPgServer(schema), startPgServer(schema), startPgServer(schema)]);
  });
  after(async () => {
    await Promise.all([a, b, victim].filter(Boolean).map((s) => stop(s)));
  });

  test('a link changed or deleted on A stops redirecting there on B within a second, though B had it cached', async (t) => {
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/before', custom: 'coherent' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    // B keeps the alias in its lookup cache from the first redirect on.
    assert.equal(await redirectOf(b, 'coherent'), 'https://example.com/before');
    assert.equal(await redirectOf(b, 'coherent'), 'https://example.com/before');

    const changed = await api(a.url, 'PUT', `/api/url/${made.body.id}/update`, { url: 'https://example.com/after' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    t.diagnostic(`update seen on B after ${await within(1000, 'the new target on B', async () => (await redirectOf(b, 'coherent')) === 'https://example.com/after')} ms`);

    const removed = await api(a.url, 'DELETE', `/api/url/${made.body.id}/delete`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    t.diagnostic(`delete seen on B after ${await within(1000, 'no redirect on B', async () => (await redirectOf(b, 'coherent')) === null)} ms`);
    const gone = await fetch(`${b.url}/coherent`, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    assert.equal(gone.status, 404);
    assert.deepEqual(await sql(`SELECT id FROM "${schema}".links WHERE id = $1`, [made.body.id]), []);
  });

  test('a list page cached on B shows a link created on A within a second', async (t) => {
    const list = async () => (await api(b.url, 'GET', '/api/urls?limit=100')).body.data.urls.map((u: { alias: string }) => u.alias) as string[];
    const before = await list();
    assert.deepEqual(await list(), before); // cached now
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/listed', custom: 'listed' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    t.diagnostic(`create listed on B after ${await within(1000, 'the new link in B\'s list', async () => (await list()).includes('listed'))} ms`);
    assert.deepEqual((await list()).filter((alias) => !before.includes(alias)), ['listed']);
  });

  test('a key rotated on A is refused on B within a second, and the new key works on both', async (t) => {
    const user = await api(a.url, 'POST', '/api/user/add', { username: 'rotor', email: 'rotor@example.com', password: 'secret-password' });
    assert.equal(user.status, 200, JSON.stringify(user.body));
    const oldKey = user.body.data.apikey as string;
    // B remembers the key once it matched.
    assert.equal((await api(b.url, 'GET', '/api/account', undefined, oldKey)).status, 200);
    assert.equal((await api(b.url, 'GET', '/api/account', undefined, oldKey)).status, 200);
    const rotated = await api(a.url, 'POST', '/api/account/rotate-key', {}, oldKey);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    t.diagnostic(`rotation seen on B after ${await within(1000, 'the old key refused on B', async () => (await api(b.url, 'GET', '/api/account', undefined, oldKey)).status === 401)} ms`);
    for (const s of [a, b]) {
      const account = await api(s.url, 'GET', '/api/account', undefined, rotated.body.apikey);
      assert.equal(account.status, 200);
      assert.equal(account.body.data.username, 'rotor');
    }
  });

  test("a link's password given on A opens the link on B: the cookies' secret is the same on every instance", async () => {
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/guarded', custom: 'guarded', password: 'open sesame' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const right = await fetch(`${a.url}/guarded`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=open+sesame' });
    await right.arrayBuffer();
    assert.equal(right.status, 200);
    const cookie = right.headers.get('set-cookie')?.split(';')[0] ?? '';
    assert.match(cookie, new RegExp(`^lp_${made.body.id}=`));
    for (const s of [b, a]) {
      const through = await fetch(`${s.url}/guarded`, { redirect: 'manual', headers: { cookie, 'user-agent': BROWSER } });
      await through.arrayBuffer();
      assert.equal(through.status, 302);
      assert.equal(through.headers.get('location'), 'https://example.com/guarded');
    }
    const stored = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".shared_values WHERE name = 'cookie secret'`);
    assert.deepEqual(stored, [{ n: 1 }]);
  });

  test('clicks on A and B add up exactly, and one visitor on both is one unique visitor, on both', async () => {
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/counted', custom: 'counted' });
    const visitors = ['Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0 Safari/537.36', 'Mozilla/5.0 (Macintosh) Safari/605.1.15'];
    const clicks = await Promise.all(
      Array.from({ length: 30 }, (_, i) => redirectOf(i % 2 === 0 ? a : b, 'counted', visitors[i % visitors.length])),
    );
    assert.equal(clicks.filter((l) => l === 'https://example.com/counted').length, 30);
    const counts = async (s: ServerProcess) => {
      const read = await api(s.url, 'GET', `/api/url/${made.body.id}`);
      return [read.body.data.clicks, read.body.data.uniqueClicks ?? read.body.data.uniqueclicks];
    };
    // Each process flushes within a second; then both read the same stored sums.
    await within(3000, 'both flushed', async () => JSON.stringify(await counts(a)) === '[30,3]' && JSON.stringify(await counts(b)) === '[30,3]');
    const stored = await sql<{ metric: string; n: number }>(
      `SELECT c.metric, sum(c.n)::int AS n FROM "${schema}".stat_counts c JOIN "${schema}".stat_days d ON d.id = c.day_id
       WHERE d.subject = $1 AND c.is_total GROUP BY c.metric ORDER BY c.metric`,
      [`link:${made.body.id}`],
    );
    assert.deepEqual(stored, [{ metric: 'clicks', n: 30 }, { metric: 'uniqueClicks', n: 3 }]);
  });

  test('page views of one visitor on A and B: one visitor, one landing page, the same statistics on both after the flush', async () => {
    const site = await api(a.url, 'POST', '/api/v1/websites', { domain: 'shared.example' });
    assert.equal(site.status, 201, JSON.stringify(site.body));
    const sent = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(`${(i % 2 === 0 ? a : b).url}/api/event`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'user-agent': BROWSER },
          body: JSON.stringify({ page: `https://shared.example/p${i % 3}` }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.deepEqual(sent, Array(10).fill(202));
    const today = new Date().toISOString().slice(0, 10);
    const rows = async (s: ServerProcess, name: string) => {
      const r = await api(s.url, 'GET', `/api/v1/stats/${site.body.data.id}?name=${name}&from=${today}&to=${today}`);
      return JSON.stringify(r.body.data.map((row: { value: string; count: number }) => [row.value, row.count]).sort());
    };
    const expected = { visitors: JSON.stringify([[today, 1]]), pageviews: JSON.stringify([[today, 10]]) };
    await within(3000, 'both flushed', async () => {
      for (const s of [a, b]) if ((await rows(s, 'visitors')) !== expected.visitors || (await rows(s, 'pageviews')) !== expected.pageviews) return false;
      return true;
    });
    // The visit's one-per-visitor labels are counted once too.
    for (const s of [a, b]) assert.equal(JSON.parse(await rows(s, 'landing_page')).reduce((n: number, [, count]: [string, number]) => n + count, 0), 1);
    // The realtime view is the same on both: every pageview, the one visitor once, whichever process counted them.
    for (const s of [a, b]) {
      const live = await api(s.url, 'GET', `/api/v1/stats/${site.body.data.id}/realtime`);
      assert.deepEqual(live.body, { data: { visitors: 1, pageviews: 10, pages: [{ value: '/p0', count: 4 }, { value: '/p1', count: 3 }, { value: '/p2', count: 3 }] }, status: 200 });
    }
  });

  test('the listening connections cut: caches kept at most 0.5 s meanwhile, and invalidation works again once they are back', async () => {
    const made = await api(a.url, 'POST', '/api/url/add', { url: 'https://example.com/v0', custom: 'relisten' });
    assert.equal(await redirectOf(b, 'relisten'), 'https://example.com/v0');
    const listeners = () => sql<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [listenerOf(schema)]);
    // A, B and the third instance.
    assert.deepEqual(await listeners(), [{ n: 3 }]);
    const cut = await sql<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [listenerOf(schema)]);
    assert.deepEqual(cut, [{ n: 3 }]);
    // A change while nobody may be listening still shows on B within a second.
    await api(a.url, 'PUT', `/api/url/${made.body.id}/update`, { url: 'https://example.com/v1' });
    await within(1000, 'v1 on B', async () => (await redirectOf(b, 'relisten')) === 'https://example.com/v1');
    await within(3000, 'all listening again', async () => (await listeners())[0]!.n === 3);
    assert.match(b.output(), /change notifications are not heard/);
    // Its connection shows in pg_stat_activity before its LISTEN is done and the line is written.
    await within(3000, 'B says it hears them again', async () => /change notifications are heard again/.test(b.output()));
    assert.equal(await redirectOf(b, 'relisten'), 'https://example.com/v1');
    await api(a.url, 'PUT', `/api/url/${made.body.id}/update`, { url: 'https://example.com/v2' });
    await within(1000, 'v2 on B', async () => (await redirectOf(b, 'relisten')) === 'https://example.com/v2');
    assert.equal(a.child.exitCode, null);
    assert.equal(b.child.exitCode, null);
  });

  test('kill -9 of one instance under write load: every acknowledged create is there through the other, which keeps serving', async () => {
    const acked: { id: number; alias: string }[] = [];
    const survivorStatuses: number[] = [];
    let stopLoad = false;
    const creator = async (w: number) => {
      for (let n = 0; !stopLoad; n++) {
        const alias = `kill${w}x${n}`;
        try {
          const r = await api(victim.url, 'POST', '/api/url/add', { url: `https://example.com/${alias}`, custom: alias });
          if (r.status === 200) acked.push({ id: r.body.id, alias });
        } catch {
          // The kill: never answered, so never acknowledged.
        }
      }
    };
    const survivorLoad = async () => {
      for (let n = 0; !stopLoad; n++) survivorStatuses.push((await api(b.url, 'POST', '/api/url/add', { url: `https://example.com/b${n}` })).status);
    };
    const load = Promise.all([creator(0), creator(1), creator(2), survivorLoad()]);
    await sleep(1500);
    victim.child.kill('SIGKILL');
    await victim.exit;
    await sleep(300);
    stopLoad = true;
    await load;
    assert.ok(acked.length > 10, `only ${acked.length} creates under load`);
    assert.ok(survivorStatuses.length > 3 && survivorStatuses.every((s) => s === 200), `the survivor answered ${survivorStatuses.length} times: ${[...new Set(survivorStatuses)]}`);
    // Every acknowledged create, read through B's list (100 a page).
    const listed = new Map<string, number>();
    for (let page = 1; ; page++) {
      const r = await api(b.url, 'GET', `/api/urls?limit=100&page=${page}`);
      assert.equal(r.status, 200);
      for (const u of r.body.data.urls as { id: number; alias: string }[]) listed.set(u.alias, u.id);
      if (r.body.data.nextpage === null || r.body.data.urls.length === 0) break;
    }
    assert.deepEqual(acked.filter((c) => listed.get(c.alias) !== c.id), [], 'every acknowledged create is listed on B under its id');
    assert.equal((await api(a.url, 'GET', '/api/account', undefined, PROCESS_ADMIN_KEY)).status, 200);
  });
});
