import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { arrayLiteral, newRow, rowValues } from '../src/store/postgres/rows.ts';
import type { TablePlan } from '../src/store/postgres/tables.ts';
import type { StoredRecord } from '../src/store/store.ts';

/**
 * What a bulk write sends PostgreSQL, made the cheap way (src/store/postgres/rows.ts), must be what
 * the general way makes: array literals as the driver writes them, and a new record's row values
 * as rowValues gives them, for every kind of text a client may send.
 */
// The driver's own conversion of a parameter (not in its typings).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };

const TEXTS = ['plain', '', 'with "quotes"', 'back\\slash', '\\"both"\\', 'a,b', '{braces}', 'NULL', ' spaced ', 'ünïcødé 😀', 'new\nline', 'tab\there', 'nul\u0000x', '\u0001', 'lone \ud800 high', 'lone \udc00 low'];

test('arrayLiteral writes what the driver writes for the same array of text and null; numbers unquoted', () => {
  const cases: (string | null)[][] = [[], TEXTS, [null, 'x', null], [null], TEXTS.map((t, i) => (i % 3 ? t : null))];
  for (const values of cases) assert.equal(arrayLiteral(values), prepareValue(values), JSON.stringify(values));
  assert.equal(arrayLiteral([undefined]), '{NULL}');
  assert.equal(arrayLiteral([1, 0, -5, 9007199254740991, null]), '{1,0,-5,9007199254740991,NULL}');
});

const plan = {
  keys: [
    { key: (r: StoredRecord) => (r.alias === undefined ? null : `0:${String(r.alias)}`), unique: true },
    { key: (r: StoredRecord) => (r.password ? null : `${String(r.userId)}\n${String(r.url)}`), unique: false },
  ],
} as unknown as TablePlan;

test("newRow: a new record and its row values, as rowValues makes them of the same record; the owner second, as a read gives it", () => {
  const records: Record<string, unknown>[] = [
    { userId: 7, url: 'https://example.com/', alias: 'abc', title: '' },
    { url: 'https://example.com/', alias: 'no-owner' },
    { userId: null, url: 'x' },
    { userId: 'not a number', url: 'x' },
    { userId: 3 },
    {},
    { id: 99, userId: 4, url: 'id is replaced', extra: undefined, list: [1, { a: null }] },
    ...TEXTS.map((t, i) => ({ userId: i + 1, url: t, alias: t, [t || 'empty']: t, password: i % 2 === 0 })),
  ];
  for (const fields of records) {
    const { record, values } = newRow(plan, fields);
    const expected = rowValues(plan, Object.assign({ id: 0 }, fields, { id: 0 }) as StoredRecord);
    assert.deepEqual(values, expected, JSON.stringify(fields));
    assert.equal(record.id, 0);
    assert.deepEqual({ ...record }, Object.assign({ id: 0 }, fields, { id: 0 }));
    if (Number.isSafeInteger(fields.userId)) assert.deepEqual(Object.keys(record).slice(0, 2), ['id', 'userId']);
  }
});
