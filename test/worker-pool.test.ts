import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PoolFullError, TaskError, WorkerPool } from '../src/threads/worker-pool.ts';
import { siblingModule } from '../src/threads/start-thread.ts';
import { eventually } from './helpers.ts';
import type { PoolTestTask } from './pool-worker.ts';

const pool = (threads: number, maxQueued: number, idleMs?: number) =>
  new WorkerPool<PoolTestTask, unknown>({ name: 'test', entry: new URL('./pool-worker.ts', import.meta.url), threads, maxQueued, idleMs });

test('a task runs on a thread while the event loop goes on: a timer set after it fires before it answers', async () => {
  const p = pool(1, 4);
  try {
    const order: string[] = [];
    const busy = p.run({ op: 'busy', ms: 300, value: 'done' }).then((v) => order.push(`task ${String(v)}`));
    setTimeout(() => order.push('timer'), 0);
    await busy;
    assert.deepEqual(order, ['timer', 'task done']);
    assert.equal(p.started, 1);
  } finally {
    await p.close();
  }
});

test('threads at most, the rest wait in order; one more than maxQueued is refused at once with PoolFullError', async () => {
  const p = pool(1, 2);
  try {
    const first = p.run({ op: 'busy', ms: 200, value: 1 });
    const waiting = [p.run({ op: 'echo', value: 2 }), p.run({ op: 'echo', value: 3 })];
    assert.deepEqual([p.running, p.queued, p.size], [1, 2, 1]);
    const refused = await p.run({ op: 'echo', value: 4 }).then(() => null, (err: unknown) => err);
    assert.ok(refused instanceof PoolFullError);
    assert.equal(refused.pool, 'test');
    assert.ok(Number.isInteger(refused.retryAfter) && refused.retryAfter >= 1, String(refused.retryAfter));
    assert.deepEqual(await Promise.all([first, ...waiting]), [1, 2, 3]);
    assert.equal(p.started, 3, 'the refused task never reached a thread');
  } finally {
    await p.close();
  }
});

test('two threads run two tasks at once', async () => {
  const p = pool(2, 0);
  try {
    const both = Promise.all([p.run({ op: 'busy', ms: 100, value: 'a' }), p.run({ op: 'busy', ms: 100, value: 'b' })]);
    assert.deepEqual([p.running, p.queued, p.size], [2, 0, 2]);
    assert.deepEqual(await both, ['a', 'b']);
  } finally {
    await p.close();
  }
});

test("what a task throws comes back with its name; a thread that dies takes only its task, and the next one gets a new thread", async () => {
  const p = pool(1, 4);
  try {
    await assert.rejects(p.run({ op: 'throw' }), (err: unknown) => err instanceof TaskError && err.name === 'RangeError' && err.message === 'out of range here');
    const dying = p.run({ op: 'exit' });
    const after = p.run({ op: 'echo', value: 'still served' });
    await assert.rejects(dying, (err: unknown) => err instanceof TaskError && err.name === 'ThreadError' && /exited with code 3/.test(err.message));
    assert.equal(await after, 'still served');
    assert.equal(p.size, 1);
  } finally {
    await p.close();
  }
});

test('byte results arrive whole, whether the thread moved them or had to copy them', async () => {
  const p = pool(1, 4);
  try {
    const big = (await p.run({ op: 'bytes', n: 100_000 })) as Uint8Array;
    assert.equal(big.byteLength, 100_000);
    assert.ok(big.every((b) => b === 7));
    const small = (await p.run({ op: 'small-bytes' })) as Uint8Array;
    assert.equal(Buffer.from(small).toString(), 'abc');
    assert.equal(small.buffer.byteLength, 3, 'only the value crossed, not the pool slab around it');
  } finally {
    await p.close();
  }
});

test('an idle thread ends after idleMs, and a later task starts another', async () => {
  const p = pool(1, 4, 50);
  try {
    assert.equal(await p.run({ op: 'echo', value: 1 }), 1);
    assert.equal(p.size, 1);
    assert.ok(await eventually(() => p.size === 0, 5000), 'the idle thread ended');
    assert.equal(await p.run({ op: 'echo', value: 2 }), 2);
  } finally {
    await p.close();
  }
});

test('close rejects the running and waiting tasks, and any later one', async () => {
  const p = pool(1, 4);
  const outcome = (task: Promise<unknown>) => task.then(() => 'answered', (err: Error) => err.message);
  const running = outcome(p.run({ op: 'busy', ms: 2000, value: 1 }));
  const waiting = outcome(p.run({ op: 'echo', value: 2 }));
  await p.close();
  assert.deepEqual(await Promise.all([running, waiting]), ['The test pool is closed.', 'The test pool is closed.']);
  await assert.rejects(p.run({ op: 'echo', value: 3 }), /closed/);
  assert.equal(p.size, 0);
});

test('siblingModule names the module in the language of the one asking: .ts from the sources, .js from the build', () => {
  assert.equal(siblingModule('render-worker', 'file:///app/src/qr/renderer.ts').href, 'file:///app/src/qr/render-worker.ts');
  assert.equal(siblingModule('render-worker', 'file:///app/dist/qr/renderer.js').href, 'file:///app/dist/qr/render-worker.js');
  // tsx's tsImport adds a query to the module's URL.
  assert.equal(siblingModule('render-worker', 'file:///app/src/qr/renderer.ts?tsx-namespace=1').href, 'file:///app/src/qr/render-worker.ts');
});
