import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csvOf, statRowsCsv } from '../src/export/csv.ts';
import { crc32, zipOf } from '../src/export/zip.ts';
import { readZip, unzipTest } from './zip-reader.ts';

test('CSV cells: RFC 4180 quoting, and text that a spreadsheet would run as a formula starts with a quote', async (t) => {
  const cases: [string | number, string][] = [
    ['plain', 'plain'],
    ['', ''],
    [42, '42'],
    [-3, '-3'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=1+2', "'=1+2"],
    ['+33 1 23', "'+33 1 23"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tTAB', "'\tTAB"],
    ['\rCR', '"\'\rCR"'],
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['a=b', 'a=b'],
    ['é, ü', '"é, ü"'],
  ];
  for (const [cell, want] of cases) await t.test(JSON.stringify(cell), () => assert.equal(csvCell(cell), want));
});

test('a CSV file has a header row and CRLF line ends', () => {
  assert.equal(csvOf(['a', 'b'], []), 'a,b\r\n');
  assert.equal(statRowsCsv([{ value: '/', count: 3 }, { value: '=x', count: 1 }]), "value,count\r\n/,3\r\n'=x,1\r\n");
});

test('CRC-32 is the zip one', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
});

test('a zip holds every file whole, named in UTF-8, dated, and unzip -t finds no error', () => {
  const big = 'value,count\r\n' + Array.from({ length: 500 }, (_, i) => `/page/${i},${i}\r\n`).join('');
  const files = [
    { name: 'pages.csv', data: big },
    { name: 'short.csv', data: 'value,count\r\n' },
    { name: 'empty.txt', data: '' },
    { name: 'dir/café ☕.csv', data: 'é\r\n' },
    { name: 'bytes.bin', data: new Uint8Array([0, 255, 1, 254]) },
  ];
  const zip = zipOf(files, Date.parse('2026-11-21T10:31:07Z'));
  const read = readZip(zip);
  assert.deepEqual([...read.keys()], files.map((f) => f.name));
  assert.equal(read.get('pages.csv'), big);
  assert.equal(read.get('dir/café ☕.csv'), 'é\r\n');
  assert.equal(read.get('empty.txt'), '');
  assert.ok(zip.length < big.length / 2, 'repetitive text is deflated');
  // The DOS date and time of the first local header: 2026-11-21 10:31:06 (2-second steps).
  assert.equal(zip.readUInt16LE(10), (10 << 11) | (31 << 5) | 3);
  assert.equal(zip.readUInt16LE(12), ((2026 - 1980) << 9) | (11 << 5) | 21);
  const tested = unzipTest(zip);
  if (tested) assert.ok(tested.ok, tested.output);
  const empty = zipOf([], 0);
  assert.equal(empty.length, 22, 'an empty archive is its end record');
  assert.deepEqual([...readZip(empty).keys()], []);
});
