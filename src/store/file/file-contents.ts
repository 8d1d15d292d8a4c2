import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from './atomic-file.ts';
import { DIR_MODE } from './permissions.ts';

/** The folder of the data directory that holds uploaded files' bytes, one `<id>.bin` per `files` record. */
export const FILES_DIR = 'files';

const CONTENT = /^(\d+)\.bin$/;

/**
 * The bytes of uploaded files for the file store: in `<DATA_DIR>/files/<id>.bin`, each written
 * atomically (temp file, fsync, rename), or in memory for `:memory:`. The store writes one inside
 * the transaction that inserts its record and removes it once the record's removal is durable; a
 * crash between the two leaves a file no record names, which `sweep` removes at the next open.
 */
export class FileContents {
  private readonly memory = new Map<number, Uint8Array>();

  /** `dir` is the files folder, or null to keep the bytes in memory. */
  constructor(private readonly dir: string | null) {}

  private path(id: number): string {
    return join(this.dir!, `${id}.bin`);
  }

  /** Keeps `bytes` as file `id`'s, durably. */
  async write(id: number, bytes: Uint8Array): Promise<void> {
    if (!this.dir) {
      this.memory.set(id, bytes.slice());
      return;
    }
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    await writeAtomically(this.path(id), [bytes]);
  }

  /** File `id`'s bytes, or undefined. */
  async read(id: number): Promise<Uint8Array | undefined> {
    if (!this.dir) return this.memory.get(id);
    try {
      return new Uint8Array(await readFile(this.path(id)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Forgets file `id`'s bytes (none: nothing to do). */
  async remove(id: number): Promise<void> {
    if (!this.dir) {
      this.memory.delete(id);
      return;
    }
    await unlink(this.path(id)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /** Removes every content whose id `keep` refuses, and temp files a crash left behind (the store's lock is held). */
  async sweep(keep: (id: number) => boolean): Promise<void> {
    if (!this.dir) {
      for (const id of [...this.memory.keys()]) if (!keep(id)) this.memory.delete(id);
      return;
    }
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      const m = CONTENT.exec(name);
      if (m ? !keep(Number(m[1])) : /^\..+\.tmp$/.test(name)) await unlink(join(this.dir, name)).catch(() => {});
    }
  }
}
