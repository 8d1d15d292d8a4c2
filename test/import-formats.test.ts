/**
 * The readers of import files, pure: CSV and JSON read as they stream in (whatever the pieces), each
 * format's columns, dates and click totals as exports write them, and files that are not the format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvRecords, guessDelimiter, ImportFileError } from '../src/imports/csv.ts';
import { IMPORT_FORMATS, importFormat } from '../src/imports/formats.ts';
import { jsonItems } from '../src/imports/json-items.ts';
import { backHalf, hostOf, parseSourceDate } from '../src/imports/row-values.ts';
import type { SourceRow } from '../src/imports/row-values.ts';
import { sourceRows } from '../src/imports/source-rows.ts';

const NOW = Date.parse('2026-11-21T10:00:00Z');

async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const rowsOf = (format: string, text: string, size = 7) => all(sourceRows(importFormat(format)!, pieces(text, size), NOW));

test('CSV: quotes, doubled quotes, line breaks in cells, CRLF, a byte-order mark and blank lines, whatever the pieces', async () => {
  const text = '\ufeffa,b,c\r\n1,"x,""y""\r\nz",3\r\n\r\n4,5,6\n7,,';
  const want = [
    { cells: ['a', 'b', 'c'], line: 1 },
    { cells: ['1', 'x,"y"\r\nz', '3'], line: 2 },
    { cells: ['4', '5', '6'], line: 5 },
    { cells: ['7', '', ''], line: 6 },
  ];
  for (const size of [1, 2, 3, 5, 1000]) assert.deepEqual(await all(csvRecords(pieces(text, size))), want, `pieces of ${size}`);
  assert.deepEqual(await all(csvRecords(pieces('a;b\n"1;2";3', 2), ';')), [{ cells: ['a', 'b'], line: 1 }, { cells: ['1;2', '3'], line: 2 }]);
  assert.deepEqual([guessDelimiter('url;alias;title'), guessDelimiter('url\talias'), guessDelimiter('"a;b",c'), guessDelimiter('url')], [';', '\t', ',', ',']);
  await assert.rejects(all(csvRecords(pieces('a\n"never closed', 3))), (err: Error) => err instanceof ImportFileError && err.message === 'Line 2: a quoted cell is never closed.');
});

test('JSON: the elements of a top-level list or of an object\'s "data" list, one at a time, whatever the pieces', async () => {
  const text = '{"total":2,"data":[{"a":"x,]}\\"y"},{"b":[1,{"c":2}]}, "s", 3],"skip":0}';
  for (const size of [1, 4, 1000]) {
    assert.deepEqual(await all(jsonItems(pieces(text, size))), [{ value: { a: 'x,]}"y' }, n: 1 }, { value: { b: [1, { c: 2 }] }, n: 2 }, { value: 's', n: 3 }, { value: 3, n: 4 }]);
    assert.deepEqual(await all(jsonItems(pieces(' [ {"a":1} , 2 ] ', size))), [{ value: { a: 1 }, n: 1 }, { value: 2, n: 2 }]);
  }
  for (const [text, message] of [
    ['', /^The file is empty\.$/],
    ['{"total":0}', /without a list/],
    ['[{"a":1},', /ends before its list does/],
    ['[{"a":1},{bad}]', /^Item 2 of the list is not valid JSON\.$/],
    ['"text"', /must hold a list/],
  ] as const) {
    await assert.rejects(all(jsonItems(pieces(text, 3))), (err: Error) => err instanceof ImportFileError && message.test(err.message), text);
  }
});

test('a large file is read as it comes: the first row is out before the rest of the file was asked for', async () => {
  let asked = 0;
  async function* endless(): AsyncGenerator<string> {
    yield 'url,alias\n';
    for (let i = 0; ; i++) {
      asked++;
      yield `https://big.example/${i},row-${i}\n`.repeat(1000);
    }
  }
  const rows = sourceRows(importFormat('csv')!, endless(), NOW);
  const first = await rows.next();
  assert.deepEqual((first.value as SourceRow).row, { url: 'https://big.example/0', alias: 'row-0' });
  assert.ok(asked <= 2, `pieces read for the first row: ${asked}`);
  await rows.return(undefined);
});

test('dates as exports write them: ISO 8601 with any offset, the SQL form, a bare day, Unix seconds and milliseconds; impossible days refused', () => {
  const cases: [string, string | null][] = [
    ['2024-03-01T09:15:00+0000', '2024-03-01T09:15:00.000Z'],
    ['2024-01-10T10:20:30+01:00', '2024-01-10T09:20:30.000Z'],
    ['2024-05-20T14:03:11.123456Z', '2024-05-20T14:03:11.123Z'],
    ['2023-06-03 08:30:15', '2023-06-03T08:30:15.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-02-29 23:59', '2024-02-29T23:59:00.000Z'],
    ['1700000000', '2023-11-14T22:13:20.000Z'],
    ['1700000000123', '2023-11-14T22:13:20.123Z'],
    ['2023-02-29', null],
    ['2024-13-01', null],
    ['01/02/2024', null],
    ['yesterday', null],
  ];
  for (const [raw, iso] of cases) {
    const ms = parseSourceDate(raw);
    assert.equal(ms === null ? null : new Date(ms).toISOString(), iso, raw);
  }
});

test('short URLs give their back-half and host; a list of them, the first one', () => {
  assert.deepEqual(
    ['https://bit.ly/3xYzAbc', 'bit.ly/spring-sale', 'https://bit.ly/a, https://bit.ly/b', 'rebrand.ly/burn10M?x=1', 'https://s.test/caf%C3%A9', 'plain'].map(backHalf),
    ['3xYzAbc', 'spring-sale', 'a', 'burn10M', 'café', 'plain'],
  );
  assert.deepEqual(['https://Go.Example.com:8443/x', 'bit.ly/abc', 'abc'].map(hostOf), ['go.example.com', 'bit.ly', undefined]);
});

test("each format reads its product's columns; an unknown column is ignored, and a row's problem is the row's alone", async () => {
  assert.deepEqual(IMPORT_FORMATS.map((f) => f.name), ['csv', 'bitly', 'yourls', 'shlink', 'kutt', 'rebrandly']);
  const bitly = await rowsOf('bitly', 'Title,Bitlink,Long URL,Created,Custom bitlinks,Tags,Total clicks\nT,https://bit.ly/3abcdef,https://x.example/,2024-01-01T00:00:00+0000,"bit.ly/mine, bit.ly/other",a,"2,500"\n');
  assert.deepEqual(bitly, [{ n: 1, url: 'https://x.example/', alias: 'mine', row: { url: 'https://x.example/', alias: 'mine', title: 'T', created: Date.parse('2024-01-01T00:00:00Z'), clicks: 2500, tags: ['a'], domain: 'bit.ly' } }]);
  // YOURLS's table without its header: the columns in the table's order.
  assert.deepEqual(await rowsOf('yourls', 'abc,https://y.example/,Y,2020-01-02 03:04:05,10.0.0.1,7\n'), [
    { n: 1, url: 'https://y.example/', alias: 'abc', row: { url: 'https://y.example/', alias: 'abc', title: 'Y', created: Date.parse('2020-01-02T03:04:05Z'), clicks: 7 } },
  ]);
  const rebrandly = await rowsOf('rebrandly', '[{"slashtag":"kw","destination":"https://r.example/","title":"R","domain":{"fullName":"rebrand.ly"},"createdAt":"2016-07-13T10:54:12.000Z","clicks":42,"tags":[{"name":"a"},{"name":"b"}]}]');
  assert.deepEqual(rebrandly[0]!.row, { url: 'https://r.example/', alias: 'kw', title: 'R', created: Date.parse('2016-07-13T10:54:12Z'), clicks: 42, tags: ['a', 'b'], domain: 'rebrand.ly' });
  const shlink = await rowsOf('shlink', 'createdAt,shortCode,longUrl,tags,visits,extra\n2024-01-01T00:00:00+00:00,abc,https://s.example/,"a|b,c",0,zzz\n');
  assert.deepEqual(shlink[0]!.row, { url: 'https://s.example/', alias: 'abc', created: Date.parse('2024-01-01T00:00:00Z'), tags: ['a', 'b,c'] });
  const problems = await rowsOf('csv', 'url,clicks,created\n,1,\nhttps://p.example/,-3,\nhttps://p.example/,1,2099-01-01\nhttps://p.example/,1e3,\n');
  assert.deepEqual(problems.map((r) => r.problem), [
    'Missing required parameter: url',
    'Invalid clicks "-3": a whole number from 0 is needed.',
    'The created date "2099-01-01" is in the future.',
    'Invalid clicks "1e3": a whole number from 0 is needed.',
  ]);
  const kutt = await rowsOf('kutt', '{"data":[{"address":"k1","target":"https://k.example/","description":null,"created_at":"2024-05-20T14:03:11.123Z","visit_count":0}, 7]}');
  assert.deepEqual(kutt, [{ n: 1, url: 'https://k.example/', alias: 'k1', row: { url: 'https://k.example/', alias: 'k1', created: Date.parse('2024-05-20T14:03:11.123Z') } }, { n: 2, problem: 'The item is not a JSON object.' }]);
});
