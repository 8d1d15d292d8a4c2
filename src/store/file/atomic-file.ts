import { open, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { FILE_MODE } from './permissions.ts';

/** A data file that exists but cannot be used; the server refuses to start and names it. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`Data file ${file} is unreadable: ${problem}. It was left untouched; fix or move it away and start again.`);
  }
}

/** fsyncs a directory so that a rename or a new file inside it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * A lowdb adapter for one JSON file, written crash-safely: temp file, fsync, rename over the
 * target, fsync the directory. A crash at any instant leaves the old or the new content.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  constructor(
    readonly file: string,
    /** The file's text, whole or in pieces written one after the other. */
    private readonly serialize: (data: T) => string | Iterable<string>,
    /** Parses the file from its bytes as they are read: a file may be longer than the longest string. */
    private readonly parse: (bytes: AsyncIterable<Buffer>) => Promise<T>,
  ) {}

  /** The parsed file, or null when there is none; DataFileError when it does not parse. */
  async read(): Promise<T | null> {
    let fh;
    try {
      fh = await open(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new DataFileError(this.file, (err as Error).message);
    }
    try {
      // The stream closes the file when it ends or when the parser stops reading it.
      return await this.parse(fh.createReadStream({ highWaterMark: 1 << 20 }));
    } catch (err) {
      throw new DataFileError(this.file, (err as Error).message);
    }
  }

  /** Replaces the file's content atomically and durably. */
  async write(data: T): Promise<void> {
    const text = this.serialize(data);
    await writeAtomically(this.file, typeof text === 'string' ? [text] : text);
  }
}

/** Replaces `file` with `pieces`, written one after the other, crash-safely: temp file, fsync, rename, fsync of the directory. */
export async function writeAtomically(file: string, pieces: Iterable<string | Uint8Array>): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fh = await open(tmp, 'w', FILE_MODE);
  try {
    await fh.chmod(FILE_MODE); // a temp file left by a crash keeps its old mode when reopened
    // writeFile on an open handle writes from the current position, whole (partial writes retried).
    for (const piece of pieces) await fh.writeFile(piece);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fh.close();
  await rename(tmp, file);
  await syncDir(dirname(file));
}
