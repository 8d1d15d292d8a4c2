import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bio } from '../src/resources/bios.ts';
import type { StoredFile } from '../src/resources/files.ts';
import { DashClient } from './dashboard-client.ts';
import { testApp } from './helpers.ts';

const MAX = 4096;

/** An app with a signed-in user (files up to MAX bytes). */
async function world() {
  const t = await testApp({ rateLimit: 0, fileMaxBytes: MAX });
  const u = await t.makeUser('bios');
  const browser = new DashClient(t.app);
  assert.equal((await browser.signIn('user_bios', 'secret-pw')).status, 303);
  return { t, u, browser };
}

const biosOf = async (t: Awaited<ReturnType<typeof testApp>>, owner: number) => (await t.store.find<Bio>('bios', { owner, sort: { field: 'id', direction: 'asc' } })).items;
const filesOf = async (t: Awaited<ReturnType<typeof testApp>>, owner: number) => (await t.store.find<StoredFile>('files', { owner, sort: { field: 'id', direction: 'asc' } })).items;
const asciiBytes = (text: string) => new TextEncoder().encode(text);

test('a bio page is made with its links from rows (empty rows left out), opened at /u/<alias>, edited, and deleted', async () => {
  const { t, u, browser } = await world();
  const form = await browser.get('/app/bios/new');
  assert.equal(form.status, 200);
  assert.equal((form.text.match(/name="link_url"/g) ?? []).length, 3, 'three empty rows to fill');
  const made = await browser.post('/app/bios', {
    name: 'Ann <Lee>',
    alias: 'ann-lee',
    description: 'Designer',
    avatar: 'https://example.com/ann.png',
    theme: 'ocean',
    link_title: ['Shop', '', 'Blog'],
    link_url: ['https://example.com/shop', '', 'https://example.com/blog'],
  });
  assert.equal(made.status, 303, made.text);
  const [bio] = await biosOf(t, u.id);
  assert.ok(bio);
  assert.equal(made.location, `/app/bios/${bio.id}/edit?done=created`);
  assert.deepEqual([bio.name, bio.alias, bio.description, bio.avatar, bio.theme], ['Ann <Lee>', 'ann-lee', 'Designer', 'https://example.com/ann.png', 'ocean']);
  assert.deepEqual(bio.links, [{ title: 'Shop', url: 'https://example.com/shop' }, { title: 'Blog', url: 'https://example.com/blog' }]);

  const page = await browser.get(made.location!);
  assert.match(page.text, /href="http:\/\/sho\.rt\/u\/ann-lee"/);
  assert.match(page.text, /value="Ann &lt;Lee&gt;"/);
  assert.equal((page.text.match(/name="link_url"/g) ?? []).length, 5, 'its two links and three empty rows');
  const list = await browser.get('/app/bios');
  assert.match(list.text, /Ann &lt;Lee&gt;/);
  assert.match(list.text, /\/u\/ann-lee/);
  const visitor = await t.app.request('/u/ann-lee');
  assert.equal(visitor.status, 200);
  assert.match(await visitor.text(), /https:\/\/example\.com\/blog/);

  const saved = await browser.post(`/app/bios/${bio.id}/edit`, { name: 'Ann', alias: 'ann-lee', theme: 'dark', link_title: ['Blog'], link_url: ['https://example.com/blog'] });
  assert.equal(saved.status, 303, saved.text);
  const [edited] = await biosOf(t, u.id);
  assert.deepEqual([edited!.name, edited!.theme, edited!.links], ['Ann', 'dark', [{ title: 'Blog', url: 'https://example.com/blog' }]]);

  await browser.get(`/app/bios/${bio.id}/edit`);
  const gone = await browser.post(`/app/bios/${bio.id}/delete`);
  assert.equal(gone.location, '/app/bios?done=deleted');
  assert.equal((await biosOf(t, u.id)).length, 0);
  assert.equal((await t.app.request('/u/ann-lee')).status, 404);
  await t.audit.flush();
  const audited = (await t.store.find('audit', { owner: u.id })).items.filter((e) => String(e.route).startsWith('/app/bios'));
  assert.deepEqual(audited.map((e) => `${String(e.route)} ${String(e.status)}`).sort(), ['/app/bios 200', '/app/bios/:id/delete 200', '/app/bios/:id/edit 200']);
});

test("a bio page the API refuses shows its message beside the field (a link row's names the row), keeps what was typed, and stores nothing", async () => {
  const { t, u, browser } = await world();
  const other = await t.makeUser('taken');
  assert.equal((await t.call('POST', '/api/bio/add', { key: other.key, body: { name: 'Taken', alias: 'taken-one' } })).status, 200);
  await browser.get('/app/bios/new');
  const cases: { name: string; form: Record<string, string | string[]>; field: string; message: RegExp }[] = [
    { name: 'a short name', form: { name: 'A' }, field: 'name', message: /2 to 100 characters/ },
    { name: 'a bad alias', form: { name: 'Ann', alias: 'a b' }, field: 'alias', message: /3 to 64 letters/ },
    { name: 'a taken alias', form: { name: 'Ann', alias: 'TAKEN-one' }, field: 'alias', message: /taken/ },
    { name: 'an avatar that is no URL', form: { name: 'Ann', avatar: 'ftp://x' }, field: 'avatar', message: /Avatar/ },
    { name: 'a theme that is none', form: { name: 'Ann', theme: 'neon' }, field: 'theme', message: /must be one of light/ },
    { name: 'a link row that is no URL', form: { name: 'Ann', link_title: ['Ok', 'Broken'], link_url: ['https://example.com/ok', 'not a url'] }, field: 'links', message: /^Link 2: / },
  ];
  for (const c of cases) {
    const res = await browser.post('/app/bios', c.form);
    assert.equal(res.status, 400, c.name);
    assert.match(new RegExp(`id="${c.field}-error">([^<]*)`).exec(res.text)?.[1] ?? '', c.message, c.name);
  }
  const kept = await browser.post('/app/bios', { name: 'Ann', link_title: ['Broken'], link_url: ['not a url'] });
  assert.match(kept.text, /value="not a url"/);
  assert.equal((await biosOf(t, u.id)).length, 0);
});

test('a file is uploaded (multipart), listed with its short link, fetched back there, and deleted; refused uploads say why beside the field and store nothing', async () => {
  const { t, u, browser } = await world();
  const page = await browser.get('/app/files');
  assert.equal(page.status, 200);
  assert.match(page.text, /At most 4\.0 KB \(4,096 bytes\); png, jpg/);
  const cases: { name: string; file?: { name: string; bytes: Uint8Array }; fields?: Record<string, string>; field: string; message: RegExp }[] = [
    { name: 'no file', field: 'file', message: /Missing required parameter: file/ },
    { name: 'a type not allowed', file: { name: 'page.html', bytes: asciiBytes('<html><script>alert(1)</script></html>') }, field: 'file', message: /not accepted\. Allowed extensions/ },
    { name: 'bytes that lie', file: { name: 'photo.png', bytes: asciiBytes('not a png') }, field: 'file', message: /content is not what its extension says/ },
    { name: 'too large', file: { name: 'big.txt', bytes: asciiBytes('x'.repeat(MAX + 1)) }, field: 'file', message: /larger than the limit of 4096 bytes/ },
    { name: 'an expiry in the past', file: { name: 'a.txt', bytes: asciiBytes('hello') }, fields: { expiry: '2020-01-01T00:00' }, field: 'expiry', message: /later than today/ },
    { name: 'a reserved alias', file: { name: 'a.txt', bytes: asciiBytes('hello') }, fields: { custom: 'app' }, field: 'custom', message: /reserved/ },
  ];
  for (const c of cases) {
    const res = await browser.upload('/app/files/upload', c.fields ?? {}, c.file ? { file: { ...c.file, type: 'application/octet-stream' } } : {});
    assert.equal(res.status, 400, `${c.name}: ${res.text.slice(0, 300)}`);
    assert.match(new RegExp(`id="${c.field}-error">([^<]*)`).exec(res.text)?.[1] ?? '', c.message, c.name);
  }
  // Past FILE_MAX_BYTES and the multipart allowance, the body is refused before it is read (as the API's upload).
  const huge = await browser.upload('/app/files/upload', {}, { file: { name: 'huge.txt', type: 'text/plain', bytes: asciiBytes('x'.repeat(MAX + 70_000)) } });
  assert.equal(huge.status, 413);
  assert.match(huge.text, /larger than the limit of 4096 bytes/);
  assert.equal((await filesOf(t, u.id)).length, 0);

  const made = await browser.upload('/app/files/upload', { name: 'Meeting notes', custom: 'notes-1' }, { file: { name: 'notes.txt', type: 'text/plain', bytes: asciiBytes('the notes\n') } });
  assert.equal(made.status, 303, made.text);
  assert.equal(made.location, '/app/files?done=uploaded');
  const [file] = await filesOf(t, u.id);
  assert.deepEqual([file!.name, file!.filename, file!.alias, file!.size], ['Meeting notes', 'notes.txt', 'notes-1', 10]);
  const list = await browser.get('/app/files');
  assert.match(list.text, /href="http:\/\/sho\.rt\/notes-1"/);
  assert.match(list.text, /Meeting notes/);
  const fetched = await t.app.request('/notes-1', { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
  assert.equal(fetched.status, 200);
  assert.equal(await fetched.text(), 'the notes\n');
  await t.audit.flush();
  const audited = (await t.store.find('audit', { owner: u.id })).items.filter((e) => e.route === '/app/files/upload');
  assert.deepEqual(audited.map((e) => Number(e.status)).sort(), [200, 400, 400, 400, 413, 415, 415], "each refusal audited with the API's status");

  const gone = await browser.post(`/app/files/${file!.id}/delete`);
  assert.equal(gone.location, '/app/files?done=deleted');
  assert.equal((await filesOf(t, u.id)).length, 0);
  assert.equal((await t.app.request('/notes-1')).status, 404);
});

test("another user's bio page and file answer 404 and are left as they were; keys without the write scopes may only look", async () => {
  const { t, u, browser } = await world();
  const other = await t.makeUser('owner2');
  const bio = (await t.call('POST', '/api/bio/add', { key: other.key, body: { name: 'Theirs', alias: 'their-page' } })).body.id as number;
  const up = await t.app.request('/api/files/upload/theirs.txt', { method: 'POST', headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/octet-stream' }, body: 'theirs' });
  const file = ((await up.json()) as { id: number }).id;
  await browser.get('/app/bios');
  assert.equal((await browser.get(`/app/bios/${bio}/edit`)).status, 404);
  assert.equal((await browser.post(`/app/bios/${bio}/edit`, { name: 'Mine now' })).status, 404);
  assert.equal((await browser.post(`/app/bios/${bio}/delete`)).status, 404);
  assert.equal((await browser.post(`/app/files/${file}/delete`)).status, 404);
  assert.equal((await t.store.get<Bio>('bios', bio))?.name, 'Theirs');
  assert.ok(await t.store.get('files', file));
  assert.doesNotMatch((await browser.get('/app/bios')).text, /Theirs/);
  assert.doesNotMatch((await browser.get('/app/files')).text, /theirs\.txt/);

  const key = (await t.call('POST', '/api/keys', { key: u.key, body: { name: 'reader', scopes: ['bios:read', 'files:read'] } })).body.apikey as string;
  const reader = new DashClient(t.app);
  await reader.get('/app/login');
  assert.equal((await reader.post('/app/login', { apikey: key })).status, 303);
  const files = await reader.get('/app/files');
  assert.equal(files.status, 200);
  assert.doesNotMatch(files.text, /Upload a file/);
  assert.equal((await reader.get('/app/bios')).status, 200);
  assert.equal((await reader.get('/app/bios/new')).status, 403);
  const refused = await reader.post('/app/bios', { name: 'Nope' });
  assert.equal(refused.status, 403);
  assert.match(refused.text, /bios:write/);
  const upload = await reader.upload('/app/files/upload', {}, { file: { name: 'a.txt', type: 'text/plain', bytes: asciiBytes('hello') } });
  assert.equal(upload.status, 403);
  assert.match(upload.text, /files:write/);
  assert.equal((await biosOf(t, u.id)).length + (await filesOf(t, u.id)).length, 0);
});
