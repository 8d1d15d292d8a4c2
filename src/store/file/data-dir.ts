import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, Memory } from 'lowdb';
import type { Logger } from '../../log.ts';
import { FILES_COLLECTION } from '../store.ts';
import type { CollectionSchema } from '../store.ts';
import { AtomicJsonFile } from './atomic-file.ts';
import { Collection, collectionFileChunks } from './collection.ts';
import type { CollectionFile } from './collection.ts';
import { readCollectionFile } from './collection-reader.ts';
import { FILES_DIR, FileContents } from './file-contents.ts';
import { Journal, isJournalSegment } from './journal.ts';
import type { JournalEntry } from './journal.ts';
import { KEPT_VALUES_FILE, KeptValues } from './kept-values.ts';
import { KeptLedger, LEDGER_FILE } from './ledger-file.ts';
import { acquireLock, isLockFile } from './lock.ts';
import { prepareDataDir, tightenDataDir } from './permissions.ts';

/** What a file store holds once open: its collections as the files and the journal left them, and the parts beside them. */
export interface LoadedData {
  collections: Map<string, Collection>;
  /** The journal, started after the last entry (null in memory). */
  journal: Journal | null;
  /** The sequence number of the last change the collections hold. */
  seq: number;
  /** Journal entries replayed into the collections (no file holds them yet). */
  replayed: number;
  contents: FileContents;
  ledger: KeptLedger;
  kept: KeptValues;
  /** Releases the directory's lock (nothing in memory). */
  release: () => void;
}

/** Empty collections in memory only (`:memory:`). */
export async function loadInMemory(schemas: readonly CollectionSchema[], changes: { count: number }, log: Logger): Promise<LoadedData> {
  const collections = new Map(schemas.map((s) => [s.name, new Collection(s.name, new Low<CollectionFile>(new Memory(), emptyFile(s.name)), changes)]));
  return { collections, journal: null, seq: 0, replayed: 0, contents: new FileContents(null), ledger: await KeptLedger.open(null, log), kept: await KeptValues.open(null), release: () => {} };
}

/**
 * Opens (or creates) a data directory: locks it, tightens its permissions, loads every
 * collection's file, replays the journal entries the files lack, sweeps file bytes no record
 * names, and starts the journal after the last entry. The lock is released again if any of it fails.
 */
export async function loadDataDir(dir: string, schemas: readonly CollectionSchema[], changes: { count: number }, log: Logger): Promise<LoadedData> {
  await prepareDataDir(dir);
  const release = await acquireLock(dir);
  try {
    await removeStaleTempFiles(dir);
    const own = new Set(schemas.map((c) => `${c.name}.json`));
    await tightenDataDir(dir, (name) => own.has(name) || isJournalSegment(name) || isLockFile(name) || name === LEDGER_FILE || name === KEPT_VALUES_FILE || name === FILES_DIR, log);
    const loaded = await Journal.open(dir);
    const collections = new Map<string, Collection>();
    let seq = 0;
    for (const { name } of schemas) {
      const adapter = new AtomicJsonFile<CollectionFile>(join(dir, `${name}.json`), (data) => collectionFileChunks(data), readCollectionFile);
      const db = new Low<CollectionFile>(adapter, emptyFile(name));
      await db.read();
      const col = new Collection(name, db, changes);
      col.load();
      collections.set(name, col);
      seq = Math.max(seq, col.fileSeq);
    }
    seq = Math.max(seq, replay(collections, loaded.entries));
    const contents = new FileContents(join(dir, FILES_DIR));
    await contents.sweep((id) => collections.get(FILES_COLLECTION)?.records.has(id) ?? false);
    await loaded.journal.start(seq + 1);
    return { collections, journal: loaded.journal, seq, replayed: loaded.entries.length, contents, ledger: await KeptLedger.open(dir, log), kept: await KeptValues.open(dir), release };
  } catch (err) {
    release();
    throw err;
  }
}

// Applies the entries a collection's file lacks; the last entry's sequence number.
function replay(collections: ReadonlyMap<string, Collection>, entries: readonly JournalEntry[]): number {
  let seq = 0;
  for (const entry of entries) {
    for (const op of entry.ops) {
      const col = collections.get(op.c);
      if (!col || entry.s <= col.fileSeq) continue;
      col.dirty = true; // the file lacks this change: the next snapshot must write it before the journal goes
      if (op.op === 'put') col.put(op.r);
      else col.delete(op.id);
    }
    seq = Math.max(seq, entry.s);
  }
  return seq;
}

// A crash during a snapshot leaves its temp file behind; with the lock held, none is in use.
async function removeStaleTempFiles(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (/^\..+\.(json|bin)\.\d+\.tmp$/.test(name)) await unlink(join(dir, name)).catch(() => {});
  }
}

function emptyFile(name: string): CollectionFile {
  return { collection: name, seq: 0, nextId: 1, records: [] };
}
