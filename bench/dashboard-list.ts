/**
 * `node --import tsx bench/dashboard-list.ts [--links 1000000] [--keep]`: the dashboard's list of
 * links on PostgreSQL when one user has `--links` of them (seeded as bench/pg-big.ts seeds, all the
 * admin's). Prints a table of the median time of GET /app/links (in process, app.request) for the
 * first page, a later page, a search, a filter and the clicks order. Not a test: nothing gates on it.
 */
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { storeSchema, RESOURCES } from '../src/resources/table.ts';
import { openStore } from '../src/store/open.ts';
import { dropSchema, linkCount, PG_URL, seedSchema } from './pg-seed.ts';
import { BENCH_KEY } from './seed.ts';

const { values: flags } = parseArgs({ options: { links: { type: 'string', default: '1000000' }, keep: { type: 'boolean', default: false } } });
const links = Number(flags.links);
const schema = `bench_dash_${links}`;
if ((await linkCount(schema)) !== links) {
  await dropSchema(schema);
  const t = performance.now();
  await seedSchema(schema, { links });
  console.log(`seeded ${links.toLocaleString('en')} links in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const config = { ...loadConfig({ DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'silent', BASE_URL: 'http://sho.rt', RATE_LIMIT: '0' }) };
const store = await openStore({ ...config, collections: storeSchema(RESOURCES) });
const app = createApp({ store, config });
const login = await app.request('/app/login');
const pre = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
const csrf = /name="csrf" value="([^"]+)"/.exec(await login.text())![1]!;
const signed = await app.request('/app/login', { method: 'POST', headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, apikey: BENCH_KEY }).toString() });
const cookie = signed.headers.getSetCookie().find((c) => c.startsWith('dash_session='))!.split(';')[0]!;
const cases = { 'first page (25)': '/app/links', 'page 100 (100 per page)': '/app/links?per=100&page=100', 'search "page/99999"': '/app/links?q=page%2F99999', 'filter: a campaign': '/app/links?campaign=1', 'order by clicks': '/app/links?sort=clicks' };
console.log(`| ${links.toLocaleString('en')} links, one user | median ms (5 runs) | status |\n| --- | --- | --- |`);
for (const [name, path] of Object.entries(cases)) {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const res = await app.request(path, { headers: { cookie } });
    await res.text();
    status = res.status;
    if (i > 0) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`| ${name} | ${times[2]!.toFixed(0)} | ${status} |`);
}
await store.close();
if (!flags.keep) await dropSchema(schema);
