import { openSync, writeSync, closeSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Raised when another live server holds the data directory. */
export class LockedError extends Error {}

function alive(pid: number): boolean {
  if (pid === process.pid) return false; // a restarted container may reuse our pid: the lock is our own stale one
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `<dir>/.lock` for this process; a lock left by a dead process is taken over. Returns the release function. */
export function acquireLock(dir: string): () => void {
  const file = join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          // already gone: nothing to release
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new LockedError(`Data directory ${dir} is in use by another server (pid ${pid}, lock file ${file}).`);
      }
      unlinkSync(file);
    }
  }
  throw new LockedError(`Could not lock data directory ${dir}.`);
}
