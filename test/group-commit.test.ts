import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit, Spoiled } from '../src/store/postgres/group-commit.ts';
import type { GroupDeps, TxDone } from '../src/store/postgres/group-commit.ts';
import type { Db } from '../src/store/postgres/reads.ts';
import { StoreUnavailableError } from '../src/store/store.ts';

/**
 * The group's decisions at each point of failure, on a fake connection (the same decisions on a
 * real database: pg-group-commit.test.ts). `failAt` says where the fake's next group transaction fails.
 */
function fakeDeps(failAt: { phase: 'work' | 'commit' | null; err?: unknown }) {
  const log: string[] = [];
  let open = 0;
  let most = 0;
  const db = (async () => ({ rows: [], rowCount: 0 })) as unknown as Db;
  const deps: GroupDeps = {
    placeEvents: async () => {},
    async inTransaction(work, lastWords) {
      open++;
      most = Math.max(most, open);
      try {
        const r = await work(db);
        log.push(`alone commit ${lastWords(r) ?? ''}`.trim());
        return r;
      } finally {
        open--;
      }
    },
    async inTransactionOnce(work, lastWords) {
      const r = await work(db);
      if (failAt.phase === 'work') {
        failAt.phase = null;
        throw failAt.err;
      }
      const last = lastWords(r);
      if (failAt.phase === 'commit') {
        failAt.phase = null;
        throw failAt.err;
      }
      log.push(`group commit ${last ?? ''}`.trim());
      return r;
    },
    notice: (touched) => (touched.size > 0 ? `notify ${[...touched].sort().join(',')}` : null),
    isUnavailable: (err) => err instanceof StoreUnavailableError,
    isLost: (err) => err instanceof StoreUnavailableError && !err.timedOut,
    mapError: (err) => err,
  };
  return { deps, log, most: () => most };
}

/** Work that records its runs and writes `name`. */
function member(runs: string[], name: string, fail?: unknown) {
  return async (): Promise<TxDone<string>> => {
    runs.push(name);
    if (fail) throw fail;
    return { result: name, touched: new Set([name]), cascaded: false };
  };
}

/** Starts one holder and `names` behind it (they form a group), then lets the holder go. */
async function groupOf(group: GroupCommit, runs: string[], names: string[], fail: Record<string, unknown> = {}) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const holder = group.run(async () => {
    await held;
    return { result: 'holder', touched: new Set(['holder']), cascaded: false };
  });
  const members = names.map((n) => group.run(member(runs, n, fail[n])));
  release();
  await holder;
  return Promise.allSettled(members);
}

const lost = new StoreUnavailableError('the connection was lost');
const timedOut = new StoreUnavailableError('a statement timed out', true);

test('group commit: one COMMIT and one notification for the group; a member that fails before writing is rejected alone', async () => {
  const { deps, log } = fakeDeps({ phase: null });
  const group = new GroupCommit(deps, 1);
  const runs: string[] = [];
  const settled = await groupOf(group, runs, ['a', 'b', 'c'], { b: new Error('refused') });
  assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual(log, ['alone commit notify holder', 'group commit notify a,c']);
  assert.deepEqual(runs, ['a', 'b', 'c']);
});

test('group commit: a connection lost while the COMMIT is under way rejects every member and runs none again (the outcome is unknown)', async () => {
  const { deps, log } = fakeDeps({ phase: 'commit', err: lost });
  const runs: string[] = [];
  const settled = await groupOf(new GroupCommit(deps, 1), runs, ['a', 'b']);
  assert.deepEqual(settled.map((s) => (s.status === 'rejected' ? s.reason : s.status)), [lost, lost]);
  assert.deepEqual(runs, ['a', 'b']);
  assert.deepEqual(log, ['alone commit notify holder']);
});

test('group commit: a lost connection before the COMMIT rejects them all; a wait that ran out, a failed last statement or a deadlock runs each again alone', async () => {
  const cases: [string, 'work' | 'commit', unknown, boolean][] = [
    ['lost before the COMMIT', 'work', lost, false],
    ['a timeout', 'work', timedOut, true],
    ['the notification statement failing (before its COMMIT)', 'commit', Object.assign(new Error('bad notify'), { code: '42883' }), true],
    ['a deadlock', 'work', new Spoiled(Object.assign(new Error('deadlock detected'), { code: '40P01' })), true],
  ];
  for (const [what, phase, err, again] of cases) {
    const { deps, log } = fakeDeps({ phase, err });
    const runs: string[] = [];
    const settled = await groupOf(new GroupCommit(deps, 1), runs, ['a', 'b']);
    if (again) {
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled'], what);
      assert.deepEqual(runs, ['a', 'b', 'a', 'b'], what);
      assert.deepEqual(log, ['alone commit notify holder', 'alone commit notify a', 'alone commit notify b'], what);
    } else {
      assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected'], what);
      assert.deepEqual(runs, ['a', 'b'], what);
    }
  }
});

test('group commit: the members of a rolled-back group run again through the runners, one at a time each, not all at once', async () => {
  const { deps, most } = fakeDeps({ phase: 'work', err: timedOut });
  const runs: string[] = [];
  const names = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const settled = await groupOf(new GroupCommit(deps, 2), runs, names);
  assert.ok(settled.every((s) => s.status === 'fulfilled'));
  assert.ok(most() <= 2, `at most the 2 runners' transactions at once, saw ${most()}`);
});

test('group commit: a member that outlives the deadline gives its group up; the others commit alone', async () => {
  const { deps, log } = fakeDeps({ phase: null });
  const group = new GroupCommit(deps, 1, 50);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const holder = group.run(async () => {
    await held;
    return { result: 'holder', touched: new Set(['holder']), cascaded: false };
  });
  let slowRuns = 0;
  const slow = group.run(async () => {
    slowRuns++;
    if (slowRuns === 1) await new Promise((r) => setTimeout(r, 200));
    return { result: 'slow', touched: new Set(['slow']), cascaded: false };
  });
  const quick = group.run(async () => ({ result: 'quick', touched: new Set(['quick']), cascaded: false }));
  release();
  await holder;
  assert.deepEqual([(await slow).result, (await quick).result], ['slow', 'quick']);
  assert.equal(slowRuns, 2);
  assert.deepEqual(log, ['alone commit notify holder', 'alone commit notify slow', 'alone commit notify quick']);
});
