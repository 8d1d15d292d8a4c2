import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../src/log.ts';
import { silentLogger } from '../src/log.ts';
import { AtomicJsonFile } from '../src/store/file/atomic-file.ts';
import { FileStore } from '../src/store/file/file-store.ts';

// The usual umask: without explicit modes, files would be created 0644 and directories 0755.
process.umask(0o022);

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/** Every entry of `dir` with its mode, as `name 0600`, sorted. */
async function modes(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).sort();
  return Promise.all(names.map(async (n) => `${n} ${octal(await modeOf(join(dir, n)))}`));
}

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (msg: string) => void warnings.push(msg), warnings };
}

test('a new data directory is created 0700 and every file the store writes is 0600', async () => {
  const root = await mkdtemp(join(tmpdir(), 'perm-test-'));
  const dir = join(root, 'nested', 'data');
  try {
    const s = await FileStore.open({ dir, collections: ['users', 'links'] });
    await s.transaction((tx) => tx.insert('users', { email: 'a@example.com', password: 'scrypt$hash' }));
    await s.transaction((tx) => tx.insert('links', { url: 'https://example.com/' }));
    await s.snapshot();
    await s.transaction((tx) => tx.insert('links', { url: 'https://example.com/2' })); // into the fresh segment
    assert.equal(await modeOf(dir), 0o700, 'the data directory');
    assert.equal(await modeOf(join(root, 'nested')), 0o700, 'a parent created on the way');
    const open = await modes(dir);
    assert.ok(open.some((e) => e.startsWith('journal-')), `a journal segment exists: ${open}`);
    assert.ok(open.includes('users.json 0600') && open.includes('links.json 0600'), `${open}`);
    assert.deepEqual(open.filter((e) => !e.endsWith(' 0600')), [], 'every entry, the lock included, is 0600 while the server runs');
    await s.close();
    assert.deepEqual((await modes(dir)).filter((e) => !e.endsWith(' 0600')), [], 'and after a clean stop');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('the temp file of an atomic write is 0600 while it is being written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'perm-test-'));
  try {
    const file = join(dir, 'things.json');
    const seen: number[] = [];
    const adapter = new AtomicJsonFile<string>(
      file,
      function* (text) {
        yield text.slice(0, 3);
        // Between two pieces the first is on disk in the temp file: its mode is what others could read.
        const tmp = readdirTmp(dir);
        seen.push(statSync(join(dir, tmp)).mode & 0o777);
        yield text.slice(3);
      },
      async () => '',
    );
    await adapter.write('"secret hashes"');
    assert.deepEqual(seen, [0o600]);
    assert.equal(await modeOf(file), 0o600);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// Sync on purpose: called from inside the serializer, between two written pieces.
function readdirTmp(dir: string): string {
  const names = readdirSync(dir).filter((n) => n.endsWith('.tmp'));
  assert.equal(names.length, 1, `one temp file: ${names}`);
  return names[0]!;
}

test('data files left 0644 by an older version are tightened to 0600 at start, and their directory to 0700', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'perm-test-'));
  try {
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'users.json'), '{"collection":"users","seq":1,"nextId":2,"records":[\n{"id":1,"password":"scrypt$hash"}\n]}\n', { mode: 0o644 });
    await writeFile(join(dir, 'journal-0000000000000002.ndjson'), '{"s":2,"ops":[{"c":"users","op":"put","r":{"id":2,"apikey":"hash"}}]}\n', { mode: 0o644 });
    const log = recordingLog();
    const s = await FileStore.open({ dir, collections: ['users'], log });
    assert.equal((await s.count('users')), 2, 'the data was read');
    assert.equal(await modeOf(dir), 0o700);
    assert.deepEqual((await modes(dir)).filter((e) => !e.endsWith(' 0600')), []);
    assert.deepEqual(log.warnings, []);
    await s.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a directory that also holds files that are not the store’s keeps its mode (with a warning); the store’s files are 0600', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'perm-test-'));
  try {
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'www'), { mode: 0o755 });
    await writeFile(join(dir, 'notes.txt'), 'mine', { mode: 0o644 });
    await writeFile(join(dir, 'package.json'), '{}', { mode: 0o644 });
    await writeFile(join(dir, 'users.json'), '{"collection":"users","seq":0,"nextId":1,"records":[]}\n', { mode: 0o644 });
    const log = recordingLog();
    const s = await FileStore.open({ dir, collections: ['users'], log });
    await s.close();
    assert.equal(await modeOf(dir), 0o755, 'a shared directory is not changed');
    assert.equal(await modeOf(join(dir, 'notes.txt')), 0o644, 'nor a file that is not the store’s');
    assert.equal(await modeOf(join(dir, 'package.json')), 0o644, 'a .json file that is no collection is not the store’s');
    assert.equal(await modeOf(join(dir, 'www')), 0o755);
    assert.equal(await modeOf(join(dir, 'users.json')), 0o600);
    assert.equal(log.warnings.length, 1, `${log.warnings}`);
    assert.match(log.warnings[0]!, new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*0755`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
