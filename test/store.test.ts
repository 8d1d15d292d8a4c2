import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FileStore } from '../src/store/file/file-store.ts';
import { DataFileError } from '../src/store/file/atomic-file.ts';
import { FILE_CHUNK_CHARS, collectionFileChunks, serializeCollectionFile } from '../src/store/file/collection.ts';

const tmp = () => mkdtemp(join(tmpdir(), 'store-test-'));
const open = (dir: string, snapshotEvery = 1000) => FileStore.open({ dir, collections: ['things', 'others'], snapshotEvery });

/** The data directory as a crash at this instant leaves it, for a restart: a copy of its files (the lock dies with its process). */
async function crashCopy(dir: string): Promise<string> {
  const copy = await tmp();
  await cp(dir, copy, { recursive: true, filter: (src) => !basename(src).startsWith('.lock') });
  return copy;
}

test('acknowledged writes survive a reopen; ids continue and are never reused', async () => {
  const dir = await tmp();
  const a = await open(dir);
  const one = await a.transaction((tx) => tx.insert('things', { name: 'one', userId: 7 }));
  const two = await a.transaction((tx) => tx.insert('things', { name: 'two', userId: 7 }));
  await a.transaction((tx) => tx.remove('things', two.id));
  await a.close();
  const b = await open(dir);
  assert.deepEqual((await allOf(b, 'things')), [{ id: 1, name: 'one', userId: 7 }]);
  const three = await b.transaction((tx) => tx.insert('things', { name: 'three' }));
  assert.equal(three.id, 3, 'id 2 was used once and is not reused');
  assert.equal(one.id, 1);
  await b.close();
});

test('a store that was never closed (a crash) is rebuilt from its journal', async () => {
  const dir = await tmp();
  const a = await open(dir);
  for (let i = 0; i < 5; i++) await a.transaction((tx) => tx.insert('things', { i }));
  await a.transaction((tx) => tx.update('things', 2, { i: 20 }));
  const b = await open(await crashCopy(dir)); // no close, no snapshot: only the journal has the writes
  assert.deepEqual((await allOf(b, 'things')).map((r) => r.i), [0, 20, 2, 3, 4]);
  assert.equal((await b.transaction((tx) => tx.insert('things', {}))).id, 6);
  await b.close();
  await a.close();
});

test('snapshots write one human-readable JSON file per collection and drop the journal they cover', async () => {
  const dir = await tmp();
  const s = await open(dir, 10);
  for (let i = 0; i < 25; i++) await s.transaction((tx) => tx.insert('things', { i }));
  await s.close();
  const text = await readFile(join(dir, 'things.json'), 'utf8');
  const parsed = JSON.parse(text);
  assert.equal(parsed.records.length, 25);
  assert.equal(parsed.nextId, 26);
  assert.equal(text.split('\n').length, 25 + 3, 'one record per line');
  const journals = (await readdir(dir)).filter((f) => f.startsWith('journal-'));
  assert.equal(journals.length, 1, 'only the fresh segment is left');
  assert.equal(await readFile(join(dir, journals[0]!), 'utf8'), '');
  assert.ok(!(await readdir(dir)).includes('.lock'), 'the lock is released');
});

test('concurrent writes are grouped into fewer fsynced flushes', async () => {
  const dir = await tmp();
  const s = await open(dir);
  await Promise.all(Array.from({ length: 200 }, (_, i) => s.transaction((tx) => tx.insert('things', { i }))));
  const stats = s.journalStats;
  assert.equal(stats.entries, 200);
  assert.ok(stats.flushes < 200 / 4, `200 writes took ${stats.flushes} flushes`);
  await s.close();
});

test('a transaction that throws leaves nothing behind', async () => {
  const s = await FileStore.open({ dir: ':memory:', collections: ['things'] });
  await s.transaction((tx) => tx.insert('things', { keep: true }));
  await assert.rejects(
    s.transaction(async (tx) => {
      await tx.insert('things', { partial: true });
      await tx.update('things', 1, { keep: false });
      await tx.remove('things', 1);
      throw new Error('no');
    }),
    /no/,
  );
  assert.deepEqual((await allOf(s, 'things')), [{ id: 1, keep: true }]);
  assert.equal((await s.transaction((tx) => tx.insert('things', {}))).id, 2);
});

test('a torn last journal line (crash mid-append) is dropped', async () => {
  const dir = await tmp();
  const a = await open(dir);
  await a.transaction((tx) => tx.insert('things', { ok: true }));
  const seg = (await readdir(dir)).filter((f) => f.startsWith('journal-')).sort().at(-1)!;
  await appendFile(join(dir, seg), '{"s":99,"ops":[{"c":"things","op":"put","r":{"id":5');
  const b = await open(await crashCopy(dir));
  assert.deepEqual((await allOf(b, 'things')), [{ id: 1, ok: true }]);
  await b.close();
  await a.close();
});

test('a corrupt data file refuses the open, names the file, and is left untouched', async () => {
  const dir = await tmp();
  const file = join(dir, 'others.json');
  await writeFile(file, '{"collection":"others","seq":0,"nextId":1,"records":[{"id":1},');
  const before = await readFile(file, 'utf8');
  await assert.rejects(open(dir), (err: unknown) => err instanceof DataFileError && err.message.includes(file));
  assert.equal(await readFile(file, 'utf8'), before);
  assert.ok(!(await readdir(dir)).includes('.lock'), 'a refused open releases the lock');
  await writeFile(file, '{"records":"nope","seq":0,"nextId":1}');
  await assert.rejects(open(dir), /"records" must be an array/);
});

test('a corrupt line in the middle of the journal refuses the open', async () => {
  const dir = await tmp();
  const a = await open(dir);
  await a.transaction((tx) => tx.insert('things', {}));
  const seg = (await readdir(dir)).filter((f) => f.startsWith('journal-')).sort().at(-1)!;
  await appendFile(join(dir, seg), 'garbage\n{"s":50,"ops":[]}\n');
  await assert.rejects(open(await crashCopy(dir)), (err: unknown) => err instanceof DataFileError && /line 2/.test(err.message));
  await a.close();
});

test('large journal entries trigger a snapshot by size before the entry count is reached', async () => {
  const dir = await tmp();
  const s = await FileStore.open({ dir, collections: ['things'], snapshotEvery: 1_000_000, snapshotBytes: 20_000 });
  const big = 'x'.repeat(5_000);
  for (let i = 0; i < 6; i++) await s.transaction((tx) => tx.insert('things', { big, i }));
  // The snapshot runs in the background after the write that crossed the limit.
  for (let i = 0; i < 50 && (await readdir(dir)).every((f) => f !== 'things.json'); i++) await new Promise((r) => setTimeout(r, 20));
  const saved = JSON.parse(await readFile(join(dir, 'things.json'), 'utf8'));
  assert.ok(saved.records.length >= 4, `a snapshot was written by size (${saved.records.length} records)`);
  await s.close();
});

test('a collection file is written in pieces that join into one record per line, exactly the whole-file form', () => {
  const records = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `thing ${i}`, tags: ['a', 'b'], note: 'é"\n' }));
  const data = { collection: 'things', seq: 9, nextId: 51, records };
  const pieces = [...collectionFileChunks(data, 200)];
  assert.ok(pieces.length > 5, `${pieces.length} pieces`);
  assert.ok(pieces.slice(0, -1).every((p) => p.length >= 200 && p.length < 400), 'each piece about the asked size');
  const text = pieces.join('');
  assert.equal(text, serializeCollectionFile(data));
  assert.deepEqual(JSON.parse(text), data);
  assert.equal(text.split('\n').length, records.length + 3, 'head, one line per record, tail, final newline');
  assert.deepEqual([...collectionFileChunks({ ...data, records: [] }, 200)], ['{"collection":"things","seq":9,"nextId":51,"records":[]}\n']);
});

test('a snapshot larger than one piece reads back whole', async () => {
  const dir = await tmp();
  const a = await open(dir);
  const big = 'x'.repeat(1000);
  await a.transaction(async (tx) => {
    for (let i = 0; i < 2500; i++) await tx.insert('things', { i, big }); // ~2.5 MB: three pieces
  });
  await a.snapshot();
  const text = await readFile(join(dir, 'things.json'), 'utf8');
  assert.ok(text.length > 2 * FILE_CHUNK_CHARS);
  const file = JSON.parse(text) as { records: { id: number; i: number; big: string }[] };
  assert.equal(file.records.length, 2500);
  assert.deepEqual(file.records.map((r) => r.i), Array.from({ length: 2500 }, (_, i) => i));
  await a.close();
  const b = await open(dir);
  assert.equal((await allOf(b, 'things')).length, 2500);
  assert.equal((await b.get<{ id: number; big: string }>('things', 2500))?.big, big);
  await b.close();
});
