import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FileStore } from '../src/store/file/file-store.ts';

// A full garbage collection on demand, without starting the test process with --expose-gc.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function released(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    collectGarbage();
  }
  return ref.deref() === undefined;
}

test('the store holds each record once: neither a loaded file nor a snapshot keeps a copy of the records', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'store-memory-'));
  try {
    let store = await FileStore.open({ dir, collections: ['stats'] });
    await store.transaction(async (tx) => {
      for (let i = 0; i < 100; i++) await tx.insert('stats', { subject: `link:${i}`, counts: { clicks: i } });
    });
    await store.snapshot();
    let before = new WeakRef((await store.get('stats', 1))!);
    await store.transaction((tx) => tx.put('stats', { id: 1, subject: 'link:0', counts: { clicks: 1 } }));
    assert.deepEqual((await store.get('stats', 1))?.counts, { clicks: 1 });
    assert.ok(await released(before), 'the version replaced after a snapshot is not held by the snapshot');
    await store.close();

    store = await FileStore.open({ dir, collections: ['stats'] });
    assert.equal((await store.count('stats')), 100, 'everything was read back');
    before = new WeakRef((await store.get('stats', 2))!);
    await store.transaction((tx) => tx.put('stats', { id: 2, subject: 'link:1', counts: { clicks: 2 } }));
    assert.ok(await released(before), 'a record replaced after the start is not held by the file that was read');
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
