import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from './helpers.ts';
import { outsideStoreDeadline } from '../src/store/deadline.ts';
import { withWorkMark, withWorkMarks } from '../src/store/work-marks.ts';
import type { StoredRecord } from '../src/store/store.ts';

test('a work mark is set by the work\'s write transactions only, in them, and not by work started outside it or after it', async () => {
  const inner = await openTestStore();
  const store = withWorkMarks(inner);
  const user = await store.transaction((tx) => tx.insert('users', { username: 'marker', email: 'marker@example.com', keyHash: 'not-a-key' }));
  const userId = user.id;
  const target = await store.transaction((tx) => tx.insert('channels', { userId, name: 'the mark', marks: 0 }));
  let n = 0;
  const mark = { collection: 'channels', id: target.id, fields: () => ({ marks: ++n }), open: true };
  const marks = async () => (await inner.get<StoredRecord & { marks: number }>('channels', target.id))!.marks;
  let later: Promise<unknown> = Promise.resolve();
  await withWorkMark(mark, async () => {
    await store.transaction((tx) => tx.get('channels', target.id));
    assert.equal(await marks(), 0, 'a read-only transaction marks nothing');
    await outsideStoreDeadline(() => store.transaction((tx) => tx.insert('campaigns', { userId, name: 'a flush of nobody\'s' })));
    assert.equal(await marks(), 0, 'work started outside the mark marks nothing');
    await assert.rejects(store.transaction(async (tx) => {
      await tx.insert('campaigns', { userId, name: 'rolled back' });
      throw new Error('no');
    }));
    assert.equal(await marks(), 0, 'a rolled-back write leaves no mark');
    await store.transaction((tx) => tx.insert('campaigns', { userId, name: 'the work\'s own' }));
    assert.equal(await marks(), 1, 'a write marks in its transaction');
    later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => store.transaction((tx) => tx.insert('campaigns', { userId, name: 'a timer after the work' })));
  });
  await later;
  assert.equal(await marks(), 1, 'work left running after the mark is over marks nothing');
  assert.equal((await inner.find('campaigns')).total, 3);
});
