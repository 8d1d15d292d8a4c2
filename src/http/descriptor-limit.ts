import { readFileSync } from 'node:fs';

/** Descriptors a process needs beside its connections: the pool, data files, journal, logs, Redis, the change feed. */
export function reservedDescriptors(databasePool: number): number {
  return databasePool + 64;
}

/** The process's open-file limit (soft), or null where it cannot be read (not Linux). */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  try {
    const line = read().split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** Where the open-file limit is unknown, `auto` caps connections here. */
const UNKNOWN_LIMIT_CAP = 4096;
/** Past this many connections per process, a higher limit buys nothing: the cap stops here. */
const AUTO_CEILING = 65_536;
/** A limit that allows fewer connections than this deserves a word at start. */
const LOW_CAP = 4096;

/**
 * The connection cap of MAX_CONNECTIONS for a process with `limit` open files, and a warning when
 * the limit is below what the cap needs (an explicit cap the limit cannot hold) or holds the `auto`
 * cap low. The answer never lets connections use up the descriptors the server needs for itself.
 */
export function connectionCap(setting: number | 'auto', limit: number | null, reserved: number): { cap: number; warning: string | null } {
  const raise = 'raise it (LimitNOFILE=65536 in the systemd unit, `ulimit -n 65536`, or `--ulimit nofile=65536` for Docker)';
  if (limit === null) return { cap: setting === 'auto' ? UNKNOWN_LIMIT_CAP : setting, warning: null };
  const room = Math.max(16, limit - reserved);
  if (setting === 'auto') {
    const cap = Math.min(AUTO_CEILING, room);
    const warning = cap < LOW_CAP ? `The open-file limit (${limit}) allows only ${cap} connections per process: ${raise}.` : null;
    return { cap, warning };
  }
  if (setting <= room) return { cap: setting, warning: null };
  return { cap: room, warning: `The open-file limit (${limit}) is below what MAX_CONNECTIONS=${setting} needs (${setting + reserved}): at most ${room} connections are kept; ${raise}.` };
}
