import { allOf } from './helpers.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Resource } from '../src/resources/define.ts';
import { channels } from '../src/resources/channels.ts';
import { links } from '../src/resources/links.ts';
import { pixels } from '../src/resources/pixels.ts';
import { qrs } from '../src/resources/qrs.ts';
import { FileStore } from '../src/store/file/file-store.ts';
import { PROCESS_ADMIN_KEY, startProcess } from './process-helpers.ts';
import { prng } from './seeded-prng.ts';

const SEED = 0x5eed7;
// Two kills under each snapshot setting below (each restart costs a server start, most of this test).
const KILLS = 6;
const CLIENTS = 4;
/** Journal entries between snapshots per run: small ones make kills land during snapshots too. */
const SNAPSHOT_EVERY = ['50', '20000', '5'];

/**
 * The kinds under load. `sig`: stored field → request field, set by every create and update body
 * (`row.example(n)` makes each of them unique to its request). `view`: stored field → list entry field.
 */
const KINDS: { row: Resource; sig: Record<string, string>; view: Record<string, string> }[] = [
  { row: links, sig: { url: 'url', alias: 'custom', description: 'description' }, view: { url: 'longurl', alias: 'alias' } },
  { row: qrs, sig: { data: 'data', name: 'name', foreground: 'foreground' }, view: { name: 'name' } },
  { row: pixels, sig: { name: 'name', tag: 'tag' }, view: { name: 'name', tag: 'tag' } },
  { row: channels, sig: { name: 'name', description: 'description', color: 'color', starred: 'starred' }, view: { name: 'name', description: 'description', color: 'color', starred: 'starred' } },
];
type Kind = (typeof KINDS)[number];
type Rec = Record<string, unknown>;

/** A record's content as one comparable string; null: absent. */
type Sig = string | null;
const storedSig = (k: Kind, r: Rec | undefined): Sig => (r ? JSON.stringify(Object.keys(k.sig).map((f) => r[f])) : null);
const requestSig = (k: Kind, body: Rec): string => JSON.stringify(Object.values(k.sig).map((f) => body[f]));

/** What the clients know of one record: its confirmed content, and what an unacknowledged write may have made it. */
interface Tracked {
  state: Sig;
  maybe: Sig[];
  client: number;
}
/** Client-side knowledge of one collection. */
interface Model {
  known: Map<number, Tracked>;
  unackedCreates: Set<string>;
  seen: Set<number>;
  /** Every id acknowledged or found before this run: new ids must be greater. */
  floor: number;
}

const at = (path: string, id: number) => path.replace(':id', String(id));

/** One request; the body of a 200, or null when the server went away. Any other answer is a failure. */
async function send(url: string, method: string, path: string, body: Rec | undefined, errors: string[]): Promise<Rec | null> {
  try {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (res.status !== 200) errors.push(`${method} ${path}: ${res.status} ${text}`);
    return res.status === 200 ? (JSON.parse(text) as Rec) : null;
  } catch {
    return null; // killed mid-request: unacknowledged
  }
}

/** One client: sequential creates, updates and deletes on the records it made, until the server is gone. */
async function client(url: string, c: number, seed: number, models: Map<Kind, Model>, counter: { n: number; acked: number }, errors: string[]): Promise<void> {
  const rand = prng(seed);
  for (;;) {
    const kind = rand.pick(KINDS);
    const m = models.get(kind)!;
    const mine = [...m.known].filter(([, t]) => t.client === c && t.state !== null);
    const roll = rand.next();
    if (mine.length > 0 && roll < 0.6) {
      const body = roll < 0.35 ? kind.row.example(counter.n++) : undefined;
      // Deleting the newest record half the time: a snapshot must still remember its id was used.
      const [id, t] = !body && rand.next() < 0.5 ? mine[mine.length - 1]! : rand.pick(mine);
      t.maybe = [body ? requestSig(kind, body) : null];
      const r = await send(url, body ? 'PUT' : 'DELETE', at(body ? kind.row.paths.update! : kind.row.paths.remove!, id), body, errors);
      if (!r) return;
      counter.acked++;
      t.state = t.maybe[0]!;
      t.maybe = [];
    } else {
      const body = kind.row.example(counter.n++);
      const sig = requestSig(kind, body);
      m.unackedCreates.add(sig);
      const r = await send(url, 'POST', kind.row.paths.create!, body, errors);
      if (!r) return;
      counter.acked++;
      const id = r.id as number;
      if (m.seen.has(id) || id <= m.floor) errors.push(`${kind.row.collection}: new id ${id} repeats or is not above ${m.floor}`);
      m.unackedCreates.delete(sig);
      m.seen.add(id);
      m.known.set(id, { state: sig, maybe: [], client: c });
    }
  }
}

/** The data directory as a restart must see it: every file parses, the journal replayed over the files. */
async function readDisk(dir: string): Promise<Map<string, Map<number, Rec>>> {
  const names = (await readdir(dir)).sort();
  const collections = new Map<string, { seq: number; records: Map<number, Rec> }>();
  for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    const text = await readFile(join(dir, name), 'utf8');
    let file: { collection: string; seq: number; records: Rec[] } | undefined;
    assert.doesNotThrow(() => (file = JSON.parse(text)), `${name} parses as JSON`);
    collections.set(file!.collection, { seq: file!.seq, records: new Map(file!.records.map((r) => [r.id as number, r])) });
  }
  for (const name of names.filter((n) => n.startsWith('journal-'))) {
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      let entry: { s: number; ops: { c: string; op: 'put' | 'del'; r?: Rec; id?: number }[] };
      try {
        entry = JSON.parse(line);
      } catch {
        // Only a final line without its newline can be torn (a kill mid-append).
        assert.equal(i, lines.length - 1, `${name} line ${i + 1} is corrupt: ${line.slice(0, 80)}`);
        return;
      }
      for (const op of entry.ops) {
        const col = collections.get(op.c) ?? { seq: 0, records: new Map() };
        collections.set(op.c, col);
        if (entry.s <= col.seq) continue;
        if (op.op === 'put') col.records.set(op.r!.id as number, op.r!);
        else col.records.delete(op.id!);
      }
    });
  }
  return new Map([...collections].map(([c, { records }]) => [c, records]));
}

/** Checks the disk against what the clients know, then takes the disk as the truth (a survivor is now durable). */
function verify(kind: Kind, m: Model, records: Map<number, Rec>, label: string): void {
  for (const [id, t] of m.known) {
    const found = storedSig(kind, records.get(id));
    assert.ok([t.state, ...t.maybe].includes(found), `${label}: ${kind.row.collection} ${id} is ${found}; acked ${t.state}, maybe ${JSON.stringify(t.maybe)}`);
  }
  for (const [id, r] of records) {
    if (m.known.has(id)) continue;
    const sig = storedSig(kind, r)!;
    assert.ok(m.unackedCreates.delete(sig), `${label}: ${kind.row.collection} ${id} holds ${sig}, which no create asked for`);
    m.known.set(id, { state: sig, maybe: [], client: id % CLIENTS });
  }
  for (const [id, t] of m.known) {
    t.state = storedSig(kind, records.get(id));
    t.maybe = [];
  }
  m.unackedCreates.clear();
  for (const id of records.keys()) m.seen.add(id);
  m.floor = Math.max(m.floor, ...m.seen);
}

/** The restarted server lists exactly the records on disk, with their content. */
async function compareServer(url: string, kind: Kind, records: Map<number, Rec>, label: string): Promise<void> {
  const listed = new Map<number, Rec>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}${kind.row.paths.list}?limit=100&page=${page}`, { headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}` } });
    const body = (await res.json()) as { data: Rec & { nextpage: number | null } };
    assert.equal(res.status, 200, label);
    for (const e of body.data[kind.row.listKey] as Rec[]) listed.set(e.id as number, e);
    if (body.data.nextpage === null) break;
  }
  assert.deepEqual([...listed.keys()].sort((a, b) => a - b), [...records.keys()].sort((a, b) => a - b), `${label}: ${kind.row.collection} ids`);
  for (const [id, r] of records) {
    for (const [stored, shown] of Object.entries(kind.view)) assert.deepEqual(listed.get(id)![shown], r[stored], `${label}: ${kind.row.collection} ${id}.${stored}`);
  }
}

test('SIGKILL at random moments under concurrent writes: acked writes survive whole, nothing half-present, files parse, ids never repeat', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'crash-test-'));
  const rand = prng(SEED);
  const models = new Map<Kind, Model>(KINDS.map((k) => [k, { known: new Map(), unackedCreates: new Set(), seen: new Set(), floor: 0 }]));
  const counter = { n: 1, acked: 0 };
  let server = await startProcess(dir, { SNAPSHOT_EVERY: SNAPSHOT_EVERY[0]! });
  try {
    for (let kill = 1; kill <= KILLS; kill++) {
      const label = `kill ${kill}`;
      const errors: string[] = [];
      const before = counter.acked;
      const loops = Array.from({ length: CLIENTS }, (_, c) => client(server.url, c, SEED + kill * 100 + c, models, counter, errors));
      // The random moment counts from the 20th acknowledged write of this round, so the kill lands under load and the
      // run has acknowledged writes to check even on a slow, loaded machine (one CI run had 63 in all after waiting for the first).
      for (const start = Date.now(); counter.acked < before + 20 && errors.length === 0 && Date.now() - start < 15_000; ) await sleep(5);
      await sleep(rand.int(50, 600));
      server.child.kill('SIGKILL');
      await server.exit;
      await Promise.all(loops);
      assert.deepEqual(errors, [], label);
      assert.ok(counter.acked > before, `${label}: writes were acknowledged before the kill`);
      const disk = await readDisk(dir);
      for (const kind of KINDS) verify(kind, models.get(kind)!, disk.get(kind.row.collection) ?? new Map(), label);
      server = await startProcess(dir, { SNAPSHOT_EVERY: SNAPSHOT_EVERY[kill % SNAPSHOT_EVERY.length]! });
      for (const kind of KINDS) await compareServer(server.url, kind, disk.get(kind.row.collection) ?? new Map(), label);
    }
    assert.ok(counter.acked > 100, `enough writes were acknowledged (${counter.acked})`);
    // The newest record of each kind deleted, a clean stop (a full snapshot), a restart: its id stays used.
    for (const kind of KINDS) {
      const m = models.get(kind)!;
      const newest = Math.max(0, ...[...m.known].filter(([, t]) => t.state !== null).map(([id]) => id));
      if (newest > 0 && newest === m.floor) assert.equal((await send(server.url, 'DELETE', at(kind.row.paths.remove!, newest), undefined, []))?.error, 0);
    }
    server.child.kill('SIGTERM');
    assert.equal(await server.exit, 0);
    server = await startProcess(dir);
    for (const kind of KINDS) {
      const errors: string[] = [];
      const r = await send(server.url, 'POST', kind.row.paths.create!, kind.row.example(counter.n++), errors);
      assert.deepEqual(errors, []);
      assert.ok((r!.id as number) > models.get(kind)!.floor, `${kind.row.collection}: an id after the last restart is new`);
    }
    server.child.kill('SIGTERM');
    assert.equal(await server.exit, 0);
  } finally {
    server.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

// A restart reopens the segment named after the next sequence number in append mode: when a kill
// tore that segment's first line, the torn bytes must be cut off before the next entry is appended.
test('a kill that tears the first line of a fresh journal segment loses nothing acknowledged later', async () => {
  const root = await mkdtemp(join(tmpdir(), 'torn-segment-'));
  const open = (dir: string) => FileStore.open({ dir, collections: ['pixels'] });
  // What a kill leaves for the restart: the files as they are now (the lock dies with its process).
  const afterKill = async (dir: string, restart: string) => {
    await cp(dir, join(root, restart), { recursive: true, filter: (src) => !basename(src).startsWith('.lock') });
    return join(root, restart);
  };
  try {
    const first = await open(join(root, 'first'));
    await first.transaction((tx) => tx.insert('pixels', { name: 'one' }));
    await first.snapshot(); // the next segment starts, empty, at sequence 2
    const segment = (await readdir(join(root, 'first'))).filter((n) => n.startsWith('journal-')).sort().at(-1)!;
    await appendFile(join(root, 'first', segment), '{"s":2,"ops":[{"c":"pixels","op":"put","r":{"id":2,"na'); // killed mid-append
    const second = await open(await afterKill(join(root, 'first'), 'second')); // restart
    await second.transaction((tx) => tx.insert('pixels', { name: 'two' }));
    await second.transaction((tx) => tx.insert('pixels', { name: 'three' }));
    const third = await open(await afterKill(join(root, 'second'), 'third')); // another kill, another restart
    assert.deepEqual((await allOf<{ id: number; name: string }>(third, 'pixels')).map((p) => p.name), ['one', 'two', 'three']);
    await Promise.all([first.close(), second.close(), third.close()]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
