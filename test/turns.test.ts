import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonElements, setTurnSlice, sortInTurns, Turns } from '../src/turns.ts';
import { statRowsCsv, statRowsCsvInTurns } from '../src/export/csv.ts';
import { byCountThenValue, topCounts, topLabels } from '../src/visits/top.ts';
import { journalLine } from '../src/store/file/journal.ts';
import type { JournalEntry } from '../src/store/file/journal.ts';

/** How many turns the event loop took while `work` ran. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let going = true;
  const tick = () => {
    turns++;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  going = false;
  return turns;
}

test('jsonElements makes the text JSON.stringify makes, in slices that give the event loop turns', async () => {
  const rows = Array.from({ length: 1001 }, (_, i) => ({ d: i, m: i % 3 ? 'clicks' : 'country', l: `"quoted" \\ ${String.fromCodePoint(0x1f600 + (i % 5))} ${i}`, t: i % 2 === 0, n: -i }));
  const shape = (r: (typeof rows)[number]) => ({ d: r.d, l: r.l, n: r.n });
  for (const n of [0, 1, 249, 250, 251, 1001]) {
    const items = rows.slice(0, n);
    assert.equal(`[${await jsonElements(items, shape, new Turns())}]`, JSON.stringify(items.map(shape)), `${n} items`);
  }
  // A slice of 0 ms gives a turn before every 250 items: 1,001 items are five slices.
  assert.ok((await turnsDuring(() => jsonElements(rows, shape, new Turns(0)))) >= 5);
  // A slice longer than the work gives none.
  assert.equal(await turnsDuring(async () => void (await jsonElements(rows.slice(0, 10), shape, new Turns(60_000)))), 0);
});

test('Turns: due once its slice has run, not again until the next slice has; setTurnSlice sets the slice of new ones', async () => {
  // Slices long enough that a busy machine's pause between two lines cannot run one out.
  assert.equal(new Turns(60_000).due(), false);
  const turns = new Turns(200);
  const until = performance.now() + 210;
  while (performance.now() < until);
  assert.equal(turns.due(), true);
  await turns.next();
  assert.equal(turns.due(), false, 'a new slice began with the turn');
  setTurnSlice(0);
  try {
    assert.equal(new Turns().due(), true);
  } finally {
    setTurnSlice(4);
  }
  assert.equal(new Turns().due(), false);
});

test('journalLine is the line append writes, JSON.stringify(entry) and a line break', async () => {
  const entry: JournalEntry = {
    s: 42,
    ops: Array.from({ length: 600 }, (_, i) => (i % 7 === 0 ? { c: 'links', op: 'del' as const, id: i } : { c: 'stats', op: 'put' as const, r: { id: i, subject: `link:${i}`, counts: { clicks: i, country: { 'DE:Germany': 1, '"x"\n': 2 } } } })),
  };
  assert.equal(await journalLine(entry, new Turns(0)), JSON.stringify(entry) + '\n');
  assert.equal(await journalLine({ s: 1, ops: [] }), '{"s":1,"ops":[]}\n');
});

// Rows with many ties (counts 0..49) and labels in no order, some of them CSV's special cases.
const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ value: [`v${(i * 7919) % n}`, '=SUM(A1)', 'a,"b"\nc'][i % 3 === 0 ? 0 : i % 3]! + (i % 3 ? i : ''), count: (i * 31) % 50 }));

test('sortInTurns sorts as a stable Array.sort does, in slices that give the event loop turns', async () => {
  for (const n of [0, 1, 2, 4095, 4096, 4097, 20_001]) {
    const rows = rowsOf(n);
    // Compared by count only, ties keep their order: a stable sort's.
    const byCount = (a: { count: number }, b: { count: number }) => b.count - a.count;
    assert.deepEqual(await sortInTurns(rows, byCount, new Turns(), 1000), [...rows].sort(byCount), `${n} rows`);
    assert.deepEqual(await sortInTurns(rows, byCountThenValue, new Turns()), [...rows].sort(byCountThenValue), `${n} rows by count and value`);
    assert.equal(rows.length, n, 'the input is left as it was');
  }
  assert.ok((await turnsDuring(() => sortInTurns(rowsOf(20_000), byCountThenValue, new Turns(0)))) >= 5);
});

test('statRowsCsvInTurns writes the text statRowsCsv writes, in slices', async () => {
  for (const n of [0, 1, 4096, 9000]) assert.equal(await statRowsCsvInTurns(rowsOf(n), new Turns(), 4096), statRowsCsv(rowsOf(n)), `${n} rows`);
  assert.ok((await turnsDuring(() => statRowsCsvInTurns(rowsOf(9000), new Turns(0), 1000))) >= 5);
});

test('topLabels and topCounts in one pass keep what a sort of all would keep first', () => {
  const rows = rowsOf(30_000);
  const labels = Object.fromEntries(rows.map((r) => [r.value, r.count]));
  const sorted = Object.entries(labels).map(([value, count]) => ({ value, count })).sort(byCountThenValue);
  for (const n of [1, 10, 100]) {
    assert.deepEqual(topLabels(labels, n), sorted.slice(0, n));
    assert.deepEqual(topLabels(new Map(Object.entries(labels)), n), sorted.slice(0, n));
    assert.deepEqual(Object.entries(topCounts(labels, n, Number)), sorted.slice(0, n).map((r) => [r.value, r.count]));
  }
});
