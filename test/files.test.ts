import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { writeAllExport, storeCounts } from '../src/cli/export-all.ts';
import { checkAllExport, importAll } from '../src/cli/import-all.ts';
import { exportUser, serializeExport } from '../src/cli/export.ts';
import { importInto } from '../src/cli/import.ts';
import { prepareFixtures } from '../src/fixtures/prepare.ts';
import type { UserRecord } from '../src/resources/define.ts';
import { exportedCollections, RESOURCES, storeSchema } from '../src/resources/table.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { ConflictError } from '../src/store/store.ts';
import type { Store, StoredRecord } from '../src/store/store.ts';
import { freshSchema, TEST_BACKEND } from './backend.ts';
import { createLogger } from '../src/log.ts';
import { allOf, testApp } from './helpers.ts';
import { LIVE_ADMIN_KEY, liveServer, tempDir } from './live-server.ts';

// What must hold for the Files API, on either backend, against a real store: a directory of
// files (file pass) or a schema of its own (PostgreSQL pass), so the bytes can be checked where they live.
const MAX = 4096;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 250, 251, 252]);
const PDF = new TextEncoder().encode('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj <<>> endobj\n');

let dir = '';
let schema = '';
let admin: pg.Client | null = null;
const opened: Store[] = [];

/** A store of its own on this pass's backend, and where its bytes can be looked at. */
async function realStore(): Promise<Store> {
  if (TEST_BACKEND === 'file') {
    dir = await mkdtemp(join(tmpdir(), 'files-test-'));
    const store = await FileStore.open({ dir, collections: storeSchema(RESOURCES) });
    opened.push(store);
    return store;
  }
  schema = freshSchema();
  const store = await PostgresStore.open({ url: process.env.TEST_DATABASE_URL!, schema, collections: storeSchema(RESOURCES), poolSize: 3, listen: false });
  opened.push(store);
  admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  return store;
}

/** The ids whose bytes the backend holds: files in DATA_DIR/files, or rows of file_contents. */
async function storedContentIds(): Promise<number[]> {
  if (TEST_BACKEND === 'file') {
    const names = await readdir(join(dir, 'files')).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.bin')).map((n) => Number(n.slice(0, -4))).sort((a, b) => a - b);
  }
  const { rows } = await admin!.query<{ file_id: string }>(`SELECT file_id FROM "${schema}".file_contents ORDER BY file_id`);
  return rows.map((r) => Number(r.file_id));
}

/** The bytes the backend holds for a file, read where they live (not through the store). */
async function storedBytes(id: number): Promise<Uint8Array> {
  if (TEST_BACKEND === 'file') return new Uint8Array(await readFile(join(dir, 'files', `${id}.bin`)));
  const { rows } = await admin!.query<{ bytes: Buffer }>(`SELECT bytes FROM "${schema}".file_contents WHERE file_id = $1`, [id]);
  return new Uint8Array(rows[0]!.bytes);
}

let t: Awaited<ReturnType<typeof testApp>>;
let alice: { id: number; key: string };
let bob: { id: number; key: string };
let dave: { id: number; key: string };

before(async () => {
  t = await testApp({ fileMaxBytes: MAX, rateLimit: 0 }, { store: await realStore() });
  alice = await t.makeUser('alice');
  bob = await t.makeUser('bob');
});

after(async () => {
  for (const s of opened) await s.close();
  await admin?.end();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function upload(path: string, body: Uint8Array | string, key = alice.key, contentType = 'application/octet-stream') {
  const res = await t.app.request(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, body: typeof body === 'string' ? body : Buffer.from(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function uploadForm(path: string, form: FormData, key = alice.key) {
  const res = await t.app.request(path, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function download(shorturl: string) {
  const res = await t.app.request(new URL(shorturl).pathname, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const listOf = async (query = '', key = alice.key) => (await t.call('GET', `/api/files${query}`, { key })).body;

/** Asserts a refused upload: its status and message, and that nothing was stored. */
async function refused(reply: { status: number; body: Record<string, any> }, status: number, message: RegExp) {
  const before = { records: (await allOf(t.store, 'files')).length, contents: (await storedContentIds()).length };
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body.error, 1);
  assert.match(reply.body.message, message);
  assert.deepEqual({ records: (await allOf(t.store, 'files')).length, contents: (await storedContentIds()).length }, before, 'nothing stored');
}

test('a raw upload is stored with its bytes, listed, and downloaded as a counted, sandboxed attachment', async () => {
  const r = await upload('/api/files/upload/chart.png?name=Sales%20chart&custom=sales-chart', PNG);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { error: 0, id: r.body.id, shorturl: 'http://sho.rt/sales-chart' });
  const [record] = (await allOf(t.store, 'files')).filter((f) => f.id === r.body.id) as (StoredRecord & Record<string, unknown>)[];
  assert.deepEqual(
    { userId: record!.userId, name: record!.name, filename: record!.filename, type: record!.type, size: record!.size, alias: record!.alias, domainId: record!.domainId },
    { userId: alice.id, name: 'Sales chart', filename: 'chart.png', type: 'image/png', size: PNG.byteLength, alias: 'sales-chart', domainId: null },
  );
  assert.deepEqual(await storedBytes(r.body.id), PNG);

  // The real product's files list: the page fields and `list` beside `error` (the number 0), no `data`.
  assert.deepEqual(await listOf(), {
    error: 0,
    result: 1,
    perpage: 15,
    currentpage: 1,
    nextpage: null,
    maxpage: 1,
    list: [{ id: r.body.id, name: 'Sales chart', downloads: 0, shorturl: 'http://sho.rt/sales-chart', date: '2026-11-21 10:00:00' }],
  });

  const d = await download(r.body.shorturl);
  assert.equal(d.status, 200);
  assert.deepEqual(d.bytes, PNG);
  assert.equal(d.headers.get('content-type'), 'image/png');
  assert.equal(d.headers.get('content-length'), String(PNG.byteLength));
  assert.equal(d.headers.get('content-disposition'), `attachment; filename="chart.png"; filename*=UTF-8''chart.png`);
  assert.equal(d.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(d.headers.get('content-security-policy'), "default-src 'none'; sandbox");
  assert.equal(d.headers.get('cache-control'), 'no-store');
  await download(r.body.shorturl);
  assert.equal((await listOf()).list[0].downloads, 2, 'buffered downloads count at once');
  await t.counters.flush();
  const [stored] = await t.store.countedDays(`file:${r.body.id}`);
  assert.equal(stored?.counts.clicks, 2, 'and reach the store on flush');
  assert.equal((await listOf()).list[0].downloads, 2);
});

test('a multipart upload takes the file from `file` and the fields from the form; a non-ASCII name is offered safely', async () => {
  const form = new FormData();
  form.set('file', new Blob([PDF], { type: 'text/html' }), 'ignored.html');
  form.set('name', 'Quarterly report');
  const r = await uploadForm(`/api/files/upload/${encodeURIComponent('Résumé "final" 100%.pdf')}`, form);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.shorturl, /^http:\/\/sho\.rt\/[A-Za-z0-9]{6}$/);
  const d = await download(r.body.shorturl);
  assert.deepEqual(d.bytes, PDF);
  assert.equal(d.headers.get('content-type'), 'application/pdf', 'the type comes from the bytes, not from what the client said');
  assert.equal(d.headers.get('content-disposition'), `attachment; filename="R_sum_ _final_ 100_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20_final_%20100%25.pdf`);
  assert.deepEqual(await storedBytes(r.body.id), PDF);
});

test("the list filters by name and pages leniently, and shows only the key owner's files", async () => {
  for (const n of [1, 2, 3]) assert.equal((await upload(`/api/files/upload/notes-${n}.txt?name=Meeting%20notes%20${n}`, `notes ${n}\n`)).status, 200);
  const notes = await listOf('?name=MEETING');
  assert.deepEqual(notes.list.map((f: { name: string }) => f.name), ['Meeting notes 3', 'Meeting notes 2', 'Meeting notes 1']);
  const page = await listOf('?name=meeting&limit=2&page=abc');
  assert.deepEqual([page.error, page.result, page.perpage, page.currentpage, page.nextpage, page.maxpage, page.list.length], [0, 3, 2, 1, 2, 2, 2]);
  assert.deepEqual((await listOf('?name=nothing-like-it')).list, []);
  assert.equal((await listOf('', bob.key)).result, 0);
});

test('refused uploads: too large (413), a type not allowed or bytes that lie (415), empty, bad fields (400); nothing stored', async () => {
  await refused(await upload('/api/files/upload/big.txt', 'x'.repeat(MAX + 1)), 413, /larger than the limit of 4096 bytes/);
  const big = new FormData();
  big.set('file', new Blob(['y'.repeat(MAX + 1)]), 'big.txt');
  await refused(await uploadForm('/api/files/upload/big.txt', big), 413, /larger than the limit/);
  await refused(await upload('/api/files/upload/page.html', '<html><script>alert(1)</script></html>'), 415, /not accepted\. Allowed extensions: png, jpg/);
  await refused(await upload('/api/files/upload/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 415, /not accepted/);
  await refused(await upload('/api/files/upload/tool.exe', new Uint8Array([0x4d, 0x5a, 0x90, 0])), 415, /not accepted/);
  await refused(await upload('/api/files/upload/photo.png', '<html>not a png</html>'), 415, /content is not what its extension says/);
  await refused(await upload('/api/files/upload/data.txt', new Uint8Array([0x68, 0x00, 0x69])), 415, /content is not what/);
  await refused(await upload('/api/files/upload/empty.txt', ''), 400, /The file is empty/);
  await refused(await uploadForm('/api/files/upload/none.txt', new FormData()), 400, /Missing required parameter: file/);
  await refused(await upload('/api/files/upload/old.txt?expiry=2020-01-01', 'old'), 400, /expiry date must be later/);
  await refused(await upload('/api/files/upload/x.txt?custom=a b', 'x'), 400, /Custom alias may only contain/);
  await refused(await upload('/api/files/upload/x.txt?custom=docs', 'x'), 400, /reserved/);
  await refused(await upload('/api/files/upload/x.txt?domain=https://not-mine.example', 'x'), 400, /not one of your branded domains/);
  await refused(await upload('/api/files/upload/x.txt', 'x', 'sk_nope'), 401, /valid API key/);
  // Empty means absent, as on every optional field of the link API.
  assert.equal((await upload('/api/files/upload/ok.txt?password=&custom=&name=', 'fine')).status, 200);
});

const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'same-origin' };

/** The password form's post on a file's short URL, as a browser sends it from the form's own page. */
async function unlock(app: { request: (path: string, init: RequestInit) => Response | Promise<Response> }, path: string, password: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { method: 'POST', headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ password }).toString() });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

test('a password upload: kept as a scrypt hash only; the download asks for it with the link password page, and a right one opens it for a day', async () => {
  const form = new FormData();
  form.set('file', new Blob([PDF]), 'x.pdf');
  form.set('password', 'form wins');
  const viaForm = await uploadForm('/api/files/upload/locked-form.pdf?password=query-loses', form);
  assert.equal(viaForm.status, 200, JSON.stringify(viaForm.body));
  const r = await upload('/api/files/upload/locked.pdf?password=hunter2%20pw&custom=locked-file', PDF);
  assert.deepEqual([r.status, r.body], [200, { error: 0, id: r.body.id, shorturl: 'http://sho.rt/locked-file' }]);
  const record = (await allOf(t.store, 'files')).find((f) => f.id === r.body.id)!;
  assert.match(String(record.password), /^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.ok(!JSON.stringify(await allOf(t.store, 'files')).includes('hunter2'), 'never stored in clear');
  assert.deepEqual(await storedBytes(r.body.id), PDF, 'the bytes are kept as they came');
  assert.ok(!('password' in (await listOf('?name=locked')).list[0]), 'the list says nothing of it');

  const path = '/locked-file';
  const form1 = await t.app.request(path, { headers: BROWSER });
  const page = await form1.text();
  assert.equal(form1.status, 200);
  assert.match(form1.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page, /This file is protected/);
  assert.match(page, /<form method="post" action="\/locked-file">/);
  assert.ok(!page.includes('%PDF'), 'no byte of the file before the password');
  assert.equal(form1.headers.get('content-disposition'), null);
  assert.match(form1.headers.get('content-security-policy') ?? '', /form-action 'self'/);

  const wrong = await unlock(t.app, path, 'nope');
  assert.equal(wrong.status, 403);
  assert.match(wrong.text, /Wrong password/);
  assert.equal(wrong.headers.get('set-cookie'), null);
  const foreign = await unlock(t.app, path, 'hunter2 pw', { 'sec-fetch-site': 'cross-site' });
  assert.equal(foreign.status, 403, 'a form posted from another site is refused');
  assert.equal(foreign.headers.get('set-cookie'), null);

  const right = await unlock(t.app, path, 'hunter2 pw');
  assert.equal(right.status, 200);
  assert.match(right.text, /<meta http-equiv="refresh" content="0;url=\/locked-file">/);
  const cookie = right.headers.get('set-cookie') ?? '';
  assert.match(cookie, new RegExp(`^fp_${r.body.id}=\\d+\\.[\\w-]+; Max-Age=86400; Path=/locked-file; HttpOnly; SameSite=Strict$`));
  assert.ok(!cookie.includes('hunter2'));
  await t.counters.flush();
  assert.equal((await listOf('?name=locked')).list.find((f: { id: number }) => f.id === r.body.id).downloads, 0, 'nothing counted before the password');

  const got = await t.app.request(path, { headers: { ...BROWSER, cookie: cookie.split(';')[0]! } });
  assert.equal(got.status, 200);
  assert.deepEqual(new Uint8Array(await got.arrayBuffer()), PDF);
  assert.match(got.headers.get('content-disposition') ?? '', /^attachment; filename="locked.pdf"/);
  assert.equal((await listOf('?name=locked')).list.find((f: { id: number }) => f.id === r.body.id).downloads, 1, 'the download counts');
  // The cookie opens a page load only, and only this file; a forged one opens nothing.
  assert.equal((await t.app.request(path, { headers: { ...BROWSER, 'sec-fetch-dest': 'empty', cookie: cookie.split(';')[0]! } })).headers.get('content-disposition'), null);
  assert.equal((await t.app.request(path, { headers: { ...BROWSER, cookie: `fp_${r.body.id}=9999999999.AAAA` } })).headers.get('content-disposition'), null);
  assert.equal((await t.app.request(path, { headers: { ...BROWSER, cookie: `lp_${r.body.id}=${cookie.split(';')[0]!.split('=')[1]}` } })).headers.get('content-disposition'), null, "a link's cookie of the same id is not a file's");
  const other = (await allOf(t.store, 'files')).find((f) => f.id === viaForm.body.id)!;
  assert.equal((await t.app.request(new URL(viaForm.body.shorturl).pathname, { headers: { ...BROWSER, cookie: `fp_${other.id}=${cookie.split(';')[0]!.split('=')[1]}` } })).headers.get('content-disposition'), null, "one file's cookie opens no other");
  assert.equal((await unlock(t.app, new URL(viaForm.body.shorturl).pathname, 'query-loses')).status, 403, "a form's field wins over the query's");
  assert.equal((await unlock(t.app, new URL(viaForm.body.shorturl).pathname, 'form wins')).status, 200);
});

test('a protected file counts wrong passwords as links do: past the limit every attempt is refused with 429 and Retry-After, the right one too', async () => {
  const lines: string[] = [];
  const app = await testApp({ fileMaxBytes: MAX, rateLimit: 0, passwordAttemptLimit: 3, passwordAttemptLinkLimit: 50 }, { log: createLogger('debug', (l) => lines.push(l)) });
  const post = (path: string, raw: string) => app.call('POST', path, { headers: { 'content-type': 'application/octet-stream' }, raw });
  const r = await post('/api/files/upload/guarded.txt?password=right-one&custom=guarded', 'guarded');
  assert.equal(r.status, 200, r.text);
  assert.equal((await post('/api/files/upload/x.exe?password=right-one', 'MZ')).status, 415);
  for (let i = 0; i < 3; i++) assert.equal((await unlock(app.app, '/guarded', `guess-${i}`)).status, 403);
  const blocked = await unlock(app.app, '/guarded', 'right-one');
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many attempts/);
  assert.match(blocked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.equal(blocked.headers.get('set-cookie'), null);
  // The same client is blocked on links too: one count of wrong passwords per client.
  assert.equal((await app.call('POST', '/api/url/add', { body: { url: 'https://example.com/', custom: 'locked-link', password: 'pw' } })).status, 200);
  assert.equal((await unlock(app.app, '/locked-link', 'pw')).status, 429);
  app.clock.set('2026-11-21T10:06:00Z');
  assert.equal((await unlock(app.app, '/guarded', 'right-one')).status, 200, 'open again once the window ended');
  assert.ok(!lines.some((l) => l.includes('right-one') || l.includes('guess-')), `no password in the log:\n${lines.join('\n')}`);
});

test('HTML sent as text is served as a text attachment, never as a page of ours', async () => {
  const r = await upload('/api/files/upload/readme.txt', '<!doctype html><script>document.cookie</script>');
  assert.equal(r.status, 200);
  const d = await download(r.body.shorturl);
  assert.equal(d.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.match(d.headers.get('content-disposition')!, /^attachment;/);
  assert.equal(d.headers.get('x-content-type-options'), 'nosniff');
  assert.match(d.headers.get('content-security-policy')!, /sandbox/);
});

test('links and files share one alias namespace', async () => {
  assert.equal((await upload('/api/files/upload/a.txt?custom=shared-one', 'a')).status, 200);
  const link = await t.call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/', custom: 'shared-one' } });
  assert.equal(link.status, 400);
  assert.equal(link.body.message, 'That alias is taken. Please choose another one.');
  assert.equal((await t.call('POST', '/api/url/add', { key: bob.key, body: { url: 'https://example.com/', custom: 'link-first' } })).status, 200);
  await refused(await upload('/api/files/upload/b.txt?custom=link-first', 'b'), 400, /That alias is taken/);
  assert.equal((await t.call('GET', '/link-first')).status, 302, 'the link still redirects');
});

test('a file on a branded domain answers there only, and its alias is free on the main host', async () => {
  const domain = await t.call('POST', '/api/domain/add', { key: alice.key, body: { domain: 'https://files.example.net' } });
  assert.equal(domain.status, 200, domain.text);
  const r = await upload('/api/files/upload/brand.txt?domain=FILES.example.net&custom=brand-file', 'branded');
  assert.deepEqual([r.status, r.body.shorturl], [200, 'https://files.example.net/brand-file']);
  const there = await t.app.request('/brand-file', { headers: { host: 'files.example.net' } });
  assert.deepEqual([there.status, await there.text()], [200, 'branded']);
  assert.equal((await t.call('GET', '/brand-file')).status, 404);
  assert.equal((await upload('/api/files/upload/main.txt?custom=brand-file', 'main')).status, 200);
  assert.equal((await listOf('?name=brand')).list[0].shorturl, 'https://files.example.net/brand-file');
});

test('expired files answer 410', async () => {
  const r = await upload('/api/files/upload/soon.txt?expiry=2026-11-22', 'soon');
  assert.equal(r.status, 200);
  assert.equal((await download(r.body.shorturl)).status, 200);
  t.clock.set('2026-11-23T00:00:00Z');
  const later = await t.call('GET', new URL(r.body.shorturl).pathname);
  t.clock.set('2026-11-21T10:00:00Z');
  assert.equal(later.status, 410);
  assert.match(later.text, /expired/i);
});

test("delete: another user's file is a 404 and stays; the owner's goes with its bytes and its short URL", async () => {
  const r = await upload('/api/files/upload/gone.txt', 'to be deleted');
  assert.equal(r.status, 200);
  const id = r.body.id as number;
  const other = await t.call('DELETE', `/api/files/${id}/delete`, { key: bob.key });
  assert.equal(other.status, 404);
  assert.equal(other.body.message, 'File does not exist.');
  assert.ok((await storedContentIds()).includes(id));
  const gone = await t.call('DELETE', `/api/files/${id}/delete`, { key: alice.key });
  assert.deepEqual([gone.status, gone.body], [200, { error: 0, message: 'File has been successfully deleted.' }]);
  assert.ok(!(await allOf(t.store, 'files')).some((f) => f.id === id));
  assert.ok(!(await storedContentIds()).includes(id), 'the bytes are gone');
  assert.equal((await download(r.body.shorturl)).status, 404);
  assert.equal((await t.call('DELETE', `/api/files/${id}/delete`, { key: alice.key })).status, 404);
});

test('deleting a user removes their files and bytes', async () => {
  const carol = await t.makeUser('carol');
  const r = await upload('/api/files/upload/carol.txt', 'carol', carol.key);
  assert.ok((await storedContentIds()).includes(r.body.id));
  assert.equal((await t.call('DELETE', `/api/user/${carol.id}/delete`)).status, 200);
  assert.ok(!(await allOf(t.store, 'files')).some((f) => f.id === r.body.id));
  assert.ok(!(await storedContentIds()).includes(r.body.id));
});

test('export --all carries the bytes as base64 and import --all restores them', async () => {
  const r = await upload('/api/files/upload/export.pdf', PDF);
  assert.equal(r.status, 200);
  // Nothing buffered may reach the store while it is exported (a server would be stopped first):
  // the counters, the audit log and the keys' uses are written now, not by their timers mid-export.
  await t.counters.flush();
  await t.audit.flush();
  await t.keyUses.flush();
  const collections = exportedCollections(RESOURCES);
  let text = '';
  await writeAllExport(t.store, await storeCounts(t.store, collections), (piece) => void (text += piece), Date.now());
  const raw = JSON.parse(text);
  const exported = raw.files.find((f: { id: number }) => f.id === r.body.id);
  assert.equal(exported.content, Buffer.from(PDF).toString('base64'));
  const target = TEST_BACKEND === 'file' ? await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) }) : await PostgresStore.open({ url: process.env.TEST_DATABASE_URL!, schema: freshSchema(), collections: storeSchema(RESOURCES), poolSize: 2, listen: false });
  opened.push(target);
  await importAll(target, checkAllExport(raw, RESOURCES, 'export.json'));
  assert.deepEqual(await target.readFileContent(r.body.id), PDF);
  const [copy] = (await allOf(target, 'files')).filter((f) => f.id === r.body.id);
  assert.equal(copy!.content, undefined, 'the bytes are not kept in the record');
  assert.equal(copy!.filename, 'export.pdf');
  const every = (await allOf(t.store, 'files')).map((f) => f.id);
  for (const id of every) assert.deepEqual(await target.readFileContent(id), await t.store.readFileContent(id));

  raw.files[0].content = 'not base64!';
  assert.throws(() => checkAllExport(raw, RESOURCES, 'export.json'), /"content" that is not base64/);
  raw.files[0].content = exported.content;
  raw.files[0].type = 'image/svg+xml';
  assert.throws(() => checkAllExport(raw, RESOURCES, 'export.json'), /"type" this server does not serve/);
});

test('export --email carries a user\'s files with their bytes; import --email renames an alias a link or file holds', async () => {
  const r = await upload('/api/files/upload/mine.pdf?custom=dave-file', PDF, (dave = await t.makeUser('dave')).key);
  assert.equal(r.status, 200);
  const daveRecord = (await t.store.get<UserRecord>('users', dave.id))!;
  const raw = JSON.parse(serializeExport(await exportUser(t.store, daveRecord, RESOURCES, Date.now())));
  assert.equal(raw.files[0].content, Buffer.from(PDF).toString('base64'));
  const erin = await t.makeUser('erin');
  const erinRecord = (await t.store.get<UserRecord>('users', erin.id))!;
  const records = Object.fromEntries(Object.entries(raw).filter(([k]) => k !== 'users' && !k.startsWith('$')).map(([k, list]) => [k, (list as StoredRecord[]).map((x) => ({ ...x, userId: erin.id }))]));
  const report = await importInto(t.store, await prepareFixtures(records, RESOURCES, Date.now()), erinRecord, RESOURCES);
  assert.equal(report.imported.files, 1);
  assert.ok(report.notes.some((n) => /alias "dave-file" is taken; now "dave-file-2"/.test(n)), report.notes.join('\n'));
  const [copy] = (await allOf(t.store, 'files')).filter((f) => f.userId === erin.id);
  assert.equal(copy!.alias, 'dave-file-2');
  assert.equal(copy!.content, undefined);
  assert.deepEqual(await storedBytes(copy!.id), PDF);
  assert.deepEqual((await download('http://sho.rt/dave-file-2')).bytes, PDF);

  const html = { ...records, files: [{ ...(records.files as StoredRecord[])[0]!, type: 'text/html' }] };
  await assert.rejects(prepareFixtures(html, RESOURCES, Date.now()), /"type" this server does not serve/);
});

test('file store: the bytes survive a restart; bytes no record names and temp files a crash left are swept at open', { skip: TEST_BACKEND !== 'file' }, async () => {
  const home = await mkdtemp(join(tmpdir(), 'files-restart-'));
  try {
    const first = await FileStore.open({ dir: home, collections: storeSchema(RESOURCES) });
    const id = await first.transaction(async (tx) => {
      const u = await tx.insert('users', { username: 'u', email: 'u@example.com' });
      const f = await tx.insert('files', { userId: u.id, name: 'k', filename: 'k.txt', type: 'text/plain; charset=utf-8', size: 4, alias: 'kept', domainId: null, expiry: null, date: '2026-11-21 10:00:00' });
      await tx.putFileContent(f.id, new TextEncoder().encode('kept'));
      return f.id;
    });
    // A transaction that fails after writing its bytes leaves none behind.
    await assert.rejects(first.transaction(async (tx) => {
      await tx.putFileContent(id + 1, new Uint8Array([1]));
      throw new Error('changed my mind');
    }));
    await first.close();
    const names = async () => (await readdir(join(home, 'files'))).sort();
    assert.deepEqual(await names(), [`${id}.bin`]);
    await writeFile(join(home, 'files', '77.bin'), 'orphan');
    await writeFile(join(home, 'files', `.${id}.bin.999.tmp`), 'torn');
    const second = await FileStore.open({ dir: home, collections: storeSchema(RESOURCES) });
    assert.deepEqual(await names(), [`${id}.bin`]);
    assert.equal(new TextDecoder().decode(await second.readFileContent(id)), 'kept');
    assert.equal(await second.readFileContent(77), undefined);
    await second.close();
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

test('over real HTTP: a chunked upload past the limit is cut off with 413, a multipart one arrives whole and downloads byte for byte', async () => {
  const home = TEST_BACKEND === 'file' ? await tempDir() : ':memory:';
  const server = await liveServer(home, { fileMaxBytes: MAX });
  try {
    const auth = { authorization: `Bearer ${LIVE_ADMIN_KEY}` };
    // No Content-Length: the limit is counted as the body streams in.
    const chunked = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(MAX)); c.enqueue(new Uint8Array(10)); c.close(); } });
    const big = await fetch(`${server.url}/api/files/upload/big.txt`, { method: 'POST', headers: auth, body: chunked, duplex: 'half' } as RequestInit);
    assert.equal(big.status, 413);
    assert.match((await big.json()).message, /larger than the limit/);
    const bytes = new Uint8Array(3000).map((_, i) => (i * 7) % 256);
    bytes.set([0x50, 0x4b, 0x03, 0x04]);
    const form = new FormData();
    form.set('file', new Blob([bytes]), 'x.zip');
    const up = await fetch(`${server.url}/api/files/upload/archive.zip`, { method: 'POST', headers: auth, body: form });
    const body = (await up.json()) as { id: number; shorturl: string };
    assert.equal(up.status, 200, JSON.stringify(body));
    const down = await fetch(`${server.url}${new URL(body.shorturl).pathname}`);
    assert.equal(down.status, 200);
    assert.equal(down.headers.get('content-type'), 'application/zip');
    assert.deepEqual(new Uint8Array(await down.arrayBuffer()), bytes);
  } finally {
    await server.close();
    if (home !== ':memory:') await rm(home, { recursive: true, force: true });
  }
});

test('PostgreSQL holds one alias namespace even against a write that skips the checks (two processes racing)', { skip: TEST_BACKEND !== 'postgres' }, async () => {
  await t.call('POST', '/api/url/add', { key: alice.key, body: { url: 'https://example.com/', custom: 'raced' } });
  await assert.rejects(
    t.store.transaction((tx) => tx.insert('files', { userId: alice.id, name: 'x', filename: 'x.txt', type: 'text/plain', size: 1, alias: 'raced', domainId: null, expiry: null, date: '2026-11-21 10:00:00' })),
    (err) => err instanceof ConflictError && err.collection === 'files' && err.index === 'alias',
  );
  const f = await upload('/api/files/upload/r.txt?custom=raced-file', 'r');
  assert.equal(f.status, 200);
  const links = await t.store.transaction((tx) => tx.find('links', { limit: 1 }));
  const link = links.items[0]!;
  await assert.rejects(
    t.store.transaction((tx) => tx.update('links', link.id, { alias: 'raced-file' })),
    (err) => err instanceof ConflictError && err.collection === 'links',
  );
  // As a pg_dump restore runs it: no search_path, the tables named with their schema.
  await admin!.query("SET search_path = ''");
  await assert.rejects(
    admin!.query(`INSERT INTO "${schema}".links (user_id, data, k_alias) VALUES ($1, '{}', '0:raced-file')`, [alice.id]),
    (err: { code?: string; constraint?: string }) => err.code === '23505' && err.constraint === 'links_k_alias_key',
  );
  await admin!.query(`INSERT INTO "${schema}".links (user_id, data, k_alias) VALUES ($1, '{}', '0:free-alias')`, [alice.id]);
  await admin!.query(`DELETE FROM "${schema}".links WHERE k_alias = '0:free-alias'`);
  await admin!.query('RESET search_path');
});
