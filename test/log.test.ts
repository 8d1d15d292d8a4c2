import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchedStderr } from '../src/log.ts';

test('batched stderr: info lines wait for the end of the event-loop round, warnings take them out at once', async () => {
  const writes: string[] = [];
  const write = batchedStderr((text) => writes.push(text));
  write('a', false);
  write('b', false);
  assert.deepEqual(writes, [], 'nothing written yet');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, ['a\nb\n'], 'one write for the round');
  write('c', false);
  write('oops', true);
  assert.deepEqual(writes, ['a\nb\n', 'c\noops\n'], 'an urgent line goes out at once, after what came before it');
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 2, 'and nothing is written twice');
});

test('batched stderr: 64 KB of lines go out without waiting', () => {
  const writes: string[] = [];
  const write = batchedStderr((text) => writes.push(text));
  const line = 'x'.repeat(1023);
  for (let i = 0; i < 64; i++) write(line, false);
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.length, 65_536);
});
