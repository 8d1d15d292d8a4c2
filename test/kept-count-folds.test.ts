import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeptCountFolds } from '../src/store/postgres/kept-counts.ts';
import type { Logger } from '../src/log.ts';

/** KeptCountFolds' timing with a fake fold (no database): when it folds, and what it keeps for the next fold. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` holds, at most 5 s: on a loaded machine a 10 ms timer can fire long after 80 ms. */
async function until(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 5000; !done() && Date.now() < end; ) await sleep(10);
}

function quietLog(warnings: string[] = []): Logger {
  const none = () => {};
  return { debug: none, info: none, warn: (msg) => warnings.push(msg), error: none, enabled: () => false };
}

test('one fold for the writes of a stretch; tables written during a fold wait for it to end, then fold', async () => {
  const calls: string[][] = [];
  let release!: () => void;
  const first = new Promise<void>((resolve) => (release = resolve));
  const folds = new KeptCountFolds(async (tables) => {
    calls.push([...tables].sort());
    if (calls.length === 1) await first;
    return true;
  }, quietLog(), 20);
  folds.wrote(['links']);
  folds.wrote(['qrs', 'links']);
  await sleep(60);
  assert.deepEqual(calls, [['links', 'qrs']]);
  // Written while the first fold runs: no second fold overlaps it.
  folds.wrote(['users']);
  await sleep(60);
  assert.equal(calls.length, 1);
  release();
  await sleep(60);
  assert.deepEqual(calls, [['links', 'qrs'], ['users']]);
  await folds.close();
});

test('a fold that found another process folding keeps its tables for the next; a failed one leaves them to the next write', async () => {
  const answers: (boolean | Error)[] = [false, true, new Error('down'), true];
  const calls: string[][] = [];
  const warnings: string[] = [];
  const folds = new KeptCountFolds(async (tables) => {
    calls.push([...tables]);
    const a = answers.shift()!;
    if (a instanceof Error) throw a;
    return a;
  }, quietLog(warnings), 10);
  folds.wrote(['links']);
  await until(() => calls.length >= 2);
  assert.deepEqual(calls, [['links'], ['links']], 'the busy fold is tried again');
  folds.wrote(['qrs']);
  await until(() => warnings.length >= 1);
  await sleep(80);
  assert.deepEqual(calls.slice(2), [['qrs']], 'a failed fold is not retried by itself');
  assert.equal(warnings.length, 1);
  folds.wrote(['pixels']);
  await until(() => calls.length >= 4);
  assert.deepEqual(calls.slice(3), [['pixels']]);
  // Closed: nothing more.
  await folds.close();
  folds.wrote(['links']);
  await sleep(40);
  assert.equal(calls.length, 4);
});
