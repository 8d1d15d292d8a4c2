import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../log.ts';

/** Mode of the data directory the store creates: its files hold password and key hashes. */
export const DIR_MODE = 0o700;

/** Mode of every file the store writes (collection files, journal segments, temp files, the lock). */
export const FILE_MODE = 0o600;

/** The data directory cannot be made or written by this user; the message names the setting and the path, and says why. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

const WHY: Record<string, string> = {
  EACCES: 'this user may not write there',
  EPERM: 'this user may not write there',
  EROFS: 'it is on a read-only file system',
  ENOTDIR: 'part of the path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  ENOSPC: 'the disk is full',
};

/**
 * Creates the data directory (0700, with any parent it needs) and checks this user can write in it,
 * so that a start that cannot keep its data fails at once, in one line, before anything else is done.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = WHY[code];
    if (!why) throw err;
    throw new DataDirError(`DATA_DIR ${resolve(dir)} cannot be used: ${why} (${code}). Set DATA_DIR (--data-dir) to a directory this user can write.`);
  }
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/**
 * Takes group and other access away from the store's own files, which an older version wrote
 * 0644, and from the directory when it holds nothing else (a fresh Docker volume, a directory the
 * store made). A directory that also holds other things (a home, a shared folder) keeps its mode,
 * with a warning: it may be open to others on purpose, and the files in it are 0600 anyway.
 */
export async function tightenDataDir(dir: string, isStoreFile: (name: string) => boolean, log: Logger): Promise<void> {
  const names = await readdir(dir);
  let foreign = false;
  for (const name of names) {
    if (!isStoreFile(name)) {
      foreign = true;
      continue;
    }
    const st = await lstat(join(dir, name));
    // A symlink is the operator's doing: chmod would change its target.
    if (!st.isSymbolicLink() && (st.mode & 0o077) !== 0) await chmod(join(dir, name), FILE_MODE);
  }
  const mode = (await stat(dir)).mode;
  if ((mode & 0o077) === 0) return;
  if (!foreign) {
    try {
      await chmod(dir, DIR_MODE);
      return;
    } catch {
      // not ours to change (a mount point owned by another user): say so below
    }
  }
  log.warn(`data directory ${dir} is open to other users (mode ${octal(mode)}); the store's files in it are ${octal(FILE_MODE)}`);
}
