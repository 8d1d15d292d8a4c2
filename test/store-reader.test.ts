import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCollectionFile } from '../src/store/file/collection-reader.ts';
import { collectionFileChunks, serializeCollectionFile } from '../src/store/file/collection.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { DataFileError } from '../src/store/file/atomic-file.ts';

/** The bytes of `text` in chunks of `size` bytes: characters of 2 to 4 bytes are split between chunks. */
async function* inChunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const SIZES = [1, 2, 3, 5, 7, 64, 1000, Infinity];

// Records with what a scanner could trip on: multi-byte characters (2, 3 and 4 bytes), escapes,
// brackets, commas and quotes inside strings, nesting, empty containers, numbers and literals.
const records = Array.from({ length: 40 }, (_, i) => ({
  id: i + 1,
  userId: i % 3,
  title: `Café ☕ 链接 ${i} 😀🚀`,
  tricky: 'quote " backslash \\ brace { } [ ] , : and a newline \n and a tab \t',
  ends: i % 2 === 0 ? 'ends with a backslash \\' : '"',
  nested: { list: [1, [2, { three: '}]' }], {}, []], ok: true, none: null, ratio: -1.5e-7 },
  url: `https://example.com/a/${i}?q=${'x'.repeat(i * 7)}`,
}));
const file = { collection: 'links', seq: 42, nextId: 77, records };

test('the store’s own layout reads back exactly, whatever the chunk size (records and characters split between chunks)', async () => {
  const text = serializeCollectionFile(file);
  for (const size of SIZES) assert.deepEqual(await readCollectionFile(inChunks(text, size)), file, `chunks of ${size} bytes`);
  const empty = serializeCollectionFile({ ...file, records: [] });
  for (const size of [1, Infinity]) assert.deepEqual(await readCollectionFile(inChunks(empty, size)), { ...file, records: [] });
});

test('any other valid JSON layout of the same file reads back the same (a file edited by hand)', async () => {
  const layouts: Record<string, string> = {
    pretty: JSON.stringify(file, null, 2),
    minified: JSON.stringify(file),
    'records first, other key order': JSON.stringify({ records, nextId: 77, collection: 'links', seq: 42 }, null, 1),
    'CRLF line ends': serializeCollectionFile(file).replace(/\n/g, '\r\n'),
    'two records per line': serializeCollectionFile(file).replace(/\},\n\{"id":(\d*[02468]),/g, '}, {"id":$1,'),
    'spaces around everything': `  \n { "collection" : "links" ,\t"seq" : 42 , "nextId" : 77 , "records" : [ ${records.map((r) => JSON.stringify(r)).join(' ,\n ')} ] } \n\n`,
    'an extra key is kept harmlessly': serializeCollectionFile(file).replace('"seq":42,', '"seq":42,"note":{"by":"hand [x]"},'),
  };
  for (const [name, text] of Object.entries(layouts)) {
    for (const size of [1, 3, 64, Infinity]) {
      const read = (await readCollectionFile(inChunks(text, size))) as unknown as Record<string, unknown>;
      delete read.note;
      assert.deepEqual(read, file, `${name}, chunks of ${size}`);
    }
  }
});

test('corrupt files are refused with the line of the problem, at any chunk size', async () => {
  const good = serializeCollectionFile(file).split('\n');
  const cases: { name: string; text: string; error: RegExp }[] = [
    { name: 'a cut record in the middle', text: [...good.slice(0, 5), '{"id":5,"url":"https://exa', ...good.slice(6)].join('\n'), error: /^line 6: / },
    { name: 'a record without an id', text: [...good.slice(0, 3), '{"url":"x"},', ...good.slice(4)].join('\n'), error: /^line 4: every record needs an integer "id"$/ },
    { name: 'an id that is not an integer', text: [...good.slice(0, 3), '{"id":"3"},', ...good.slice(4)].join('\n'), error: /^line 4: every record needs an integer "id"$/ },
    { name: 'a record that is not an object', text: [...good.slice(0, 3), '[3],', ...good.slice(4)].join('\n'), error: /^line 4: every record needs an integer "id"$/ },
    { name: 'a comma before the end of the list', text: '{"collection":"x","seq":0,"nextId":2,"records":[\n{"id":1},\n]}\n', error: /^line 3: expected a record after ","$/ },
    { name: 'a missing comma between records', text: '{"collection":"x","seq":0,"nextId":3,"records":[\n{"id":1}\n{"id":2}\n]}\n', error: /^line 3: expected "," or "]"$/ },
    { name: 'a file cut short (its end lost)', text: good.slice(0, 10).join('\n'), error: /^line 10: unexpected end of file$/ },
    { name: 'a record cut short at the very end', text: `${good.slice(0, 10).join('\n')}\n{"id":99,"a":[1,`, error: /^line 11: unexpected end of file$/ },
    { name: 'an empty file', text: '', error: /^line 1: unexpected end of file$/ },
    { name: 'text after the end', text: `${good.join('\n')}{}`, error: /unexpected text after the end$/ },
    { name: 'not an object', text: '[]', error: /^line 1: expected "\{"$/ },
    { name: 'a key that is not a string', text: '{seq:1}', error: /^line 1: expected a key$/ },
    { name: 'a missing value', text: '{"seq":,"nextId":1,"records":[]}', error: /^line 1: expected a value$/ },
    { name: 'a bad top-level value', text: '{"seq":1x,"nextId":1,"records":[]}', error: /^line 1: .*JSON/ },
    { name: 'records that are not a list', text: '{"collection":"x","seq":0,"nextId":1,"records":"nope"}', error: /"records" must be an array/ },
    { name: 'no seq', text: '{"collection":"x","nextId":1,"records":[]}', error: /"seq" and "nextId" must be integers/ },
  ];
  for (const c of cases) {
    for (const size of [1, 4, Infinity]) {
      await assert.rejects(readCollectionFile(inChunks(c.text, size)), (err: Error) => c.error.test(err.message) || assert.fail(`${c.name}, chunks of ${size}: ${err.message}`));
    }
  }
});

test('the pieces a snapshot writes read back through the stream reader (a multi-piece file)', async () => {
  const pieces = [...collectionFileChunks(file, 300)];
  assert.ok(pieces.length > 10);
  async function* asWritten() {
    for (const p of pieces) yield Buffer.from(p);
  }
  assert.deepEqual(await readCollectionFile(asWritten()), file);
});

test('journal segments are read as a stream: entries across the 1 MB read chunks, multi-byte text, and a torn tail cut at the right byte', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'reader-test-'));
  try {
    const s = await FileStore.open({ dir, collections: ['things'], snapshotEvery: 1_000_000, snapshotBytes: 1 << 30 });
    const text = 'é☕链😀'.repeat(500); // 5,000 bytes of 2-, 3- and 4-byte characters
    for (let i = 0; i < 600; i++) await s.transaction((tx) => tx.insert('things', { i, text })); // ~3 MB of journal
    const segment = join(dir, (await readdir(dir)).filter((n) => n.startsWith('journal-')).sort().at(-1)!);
    const whole = (await stat(segment)).size;
    assert.ok(whole > 3 * (1 << 20), `${whole} bytes`);
    await appendFile(segment, `{"s":9999,"ops":[{"c":"things","op":"put","r":{"id":9999,"text":"${'链'.repeat(100)}`); // killed mid-append
    const copy = await mkdtemp(join(tmpdir(), 'reader-test-'));
    try {
      await writeFile(join(copy, 'journal-0000000000000001.ndjson'), await readFile(segment));
      const b = await FileStore.open({ dir: copy, collections: ['things'] });
      assert.equal((await b.count('things')), 600);
      assert.deepEqual((await allOf<{ id: number; i: number; text: string }>(b, 'things')).map((r) => [r.id, r.i, r.text === text]), Array.from({ length: 600 }, (_, i) => [i + 1, i, true]));
      assert.equal((await stat(join(copy, 'journal-0000000000000001.ndjson'))).size, whole, 'the torn line is cut, to the byte');
      await b.close();
      await writeFile(join(copy, 'journal-0000000000000099.ndjson'), '{"s":2000,"ops":[]}\nnot json\n');
      await assert.rejects(FileStore.open({ dir: copy, collections: ['things'] }), (err: unknown) => err instanceof DataFileError && err.message.includes('journal-0000000000000099.ndjson') && /line 2: /.test(err.message));
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
    await s.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
