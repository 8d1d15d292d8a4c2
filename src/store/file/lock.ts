import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen, probe, shortPathTo } from './lock-socket.ts';
import { FILE_MODE } from './permissions.ts';

/** Raised when another live server holds the data directory. */
export class LockedError extends Error {}

const LOCK = '.lock';
const KEY = '.lock-key';
/** How long a holder that accepts but does not answer (a process being killed, or busy loading) is waited for. */
const GRACE_MS = 3000;

/** Whether a file name in the data directory belongs to the lock (the socket, its key, their temp files). */
export function isLockFile(name: string): boolean {
  return name === LOCK || name === KEY || (name.startsWith('.lock') && name.endsWith('.tmp'));
}

/**
 * Takes the data directory for this process. The lock is a listening Unix socket, `<dir>/.lock`:
 * the kernel closes it when its process dies however it dies, so a dead holder is told apart from
 * a live one by connecting (refused: dead), never by a pid that a zombie or an unrelated process
 * may still carry. On Linux an abstract socket named after the directory is taken first: it is
 * freed with its process too, and binding it is atomic, so two servers starting at the same
 * moment cannot both take over a dead holder's socket file. Returns the release function.
 */
export async function acquireLock(dir: string): Promise<() => void> {
  const real = realpathSync(dir);
  // Windows has no socket files for Node, but a named pipe is freed with its process and bound by
  // one process at a time, like an abstract socket (not tried on Windows: nobody here runs it).
  const windows = process.platform === 'win32';
  const namespace = process.platform === 'linux' || windows ? await namespaceLock(dir, real) : null;
  try {
    const file = windows ? null : await fileLock(dir, real);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (file) {
        try {
          if (statSync(join(real, LOCK)).ino === file.ino) unlinkSync(join(real, LOCK));
        } catch {
          // already gone: nothing to remove
        }
        file.server.close();
      }
      namespace?.close(); // last: while it is held, no server of this machine can bind the socket file
    };
  } catch (err) {
    namespace?.close();
    throw err;
  }
}

function locked(dir: string, pid: number | null): LockedError {
  const lock = join(dir, LOCK);
  return new LockedError(
    pid === null
      ? `Data directory ${dir} is in use by another server (lock ${lock}): it accepts connections but did not answer within ${GRACE_MS / 1000} s.`
      : `Data directory ${dir} is in use by another server (pid ${pid}${pid === process.pid ? ', this process' : ''}, lock ${lock}).`,
  );
}

/** The abstract socket of this directory: its name hashes the directory's identity and a key only its owner can read. */
async function namespaceLock(dir: string, real: string): Promise<Server> {
  const st = statSync(real, { bigint: true });
  // The key keeps other local users, who can stat the directory but not read inside it, from
  // binding the name first and so keeping the server from starting.
  const id = createHash('sha256').update(`${lockKey(real)}:${st.dev}:${st.ino}`).digest('hex').slice(0, 40);
  const name = process.platform === 'win32' ? `\\\\.\\pipe\\shortlink-server-lock-${id}` : `\0shortlink-server-lock-${id}`;
  const deadline = Date.now() + GRACE_MS;
  for (;;) {
    try {
      return await listen(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
    const p = await probe(name);
    if (p.held && (p.pid !== null || Date.now() >= deadline)) throw locked(dir, p.pid);
    await sleep(50);
  }
}

/** The directory's lock key, made once (written and synced under a temp name, then linked, so it is never read half-made). */
function lockKey(real: string): string {
  const file = join(real, KEY);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = join(real, `${KEY}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', FILE_MODE);
  try {
    writeSync(fd, randomBytes(16).toString('hex'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another server made it first: theirs is the key
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(file, 'utf8');
}

/**
 * The socket file `<dir>/.lock`, also seen by servers in other network namespaces (containers
 * sharing the volume). It is bound under a temp name and linked into place only once it listens,
 * so a prober never finds a lock socket that refuses because it is not listening yet.
 */
async function fileLock(dir: string, real: string): Promise<{ server: Server; ino: number }> {
  const tmpName = `.lock.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const reach = shortPathTo(real, tmpName);
  try {
    const server = await listen(join(reach.base, tmpName));
    try {
      chmodSync(join(real, tmpName), FILE_MODE);
      const deadline = Date.now() + GRACE_MS;
      for (let attempt = 0; ; attempt++) {
        try {
          linkSync(join(real, tmpName), join(real, LOCK));
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const p = await probe(join(reach.base, LOCK));
        if (p.held) {
          if (p.pid !== null || Date.now() >= deadline) throw locked(dir, p.pid);
          await sleep(50);
        } else if (!p.gone) {
          // Nobody listens: its holder died. (Holding the abstract lock, no other server of this machine is here.)
          try {
            unlinkSync(join(real, LOCK));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          }
        }
        if (attempt > 100) throw new LockedError(`Could not lock data directory ${dir}: ${join(dir, LOCK)} keeps changing.`);
      }
      const ino = statSync(join(real, tmpName)).ino;
      unlinkSync(join(real, tmpName));
      removeOldTempFiles(real);
      return { server, ino };
    } catch (err) {
      server.close();
      try {
        unlinkSync(join(real, tmpName));
      } catch {
        // not linked yet or already removed
      }
      throw err;
    }
  } finally {
    reach.cleanup();
  }
}

// A kill while taking the lock leaves a temp socket or key file behind. One a minute old is
// nobody's: taking the lock takes milliseconds.
function removeOldTempFiles(real: string): void {
  for (const name of readdirSync(real)) {
    if (!/^\.lock(-key)?\.\d+\.[0-9a-f]+\.tmp$/.test(name)) continue;
    try {
      if (Date.now() - statSync(join(real, name)).mtimeMs > 60_000) unlinkSync(join(real, name));
    } catch {
      // removed meanwhile
    }
  }
}

