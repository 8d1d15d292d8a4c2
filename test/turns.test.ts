import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonElements, setTurnSlice, Turns } from '../src/turns.ts';
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
