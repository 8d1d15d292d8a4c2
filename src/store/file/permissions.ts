import { chmod, lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../log.ts';

/** Mode of the data directory the store creates: its files hold password and key hashes. */
export const DIR_MODE = 0o700;

/** Mode of every file the store writes (collection files, journal segments, temp files, the lock). */
export const FILE_MODE = 0o600;

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
