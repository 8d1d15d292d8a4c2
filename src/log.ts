import type { LogLevel } from './config.ts';

/** A leveled logger writing one line per call; never given keys or passwords. */
export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  /** Whether lines at `level` are written (so hot paths can skip building them). */
  enabled(level: LogLevel): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

/**
 * Lines for stderr, written in batches: a write to stderr blocks until the kernel takes it, and one
 * per request (the access log) halved the throughput of a cached list. Lines wait at most until
 * the event loop has finished its current round of I/O (or 64 KB); warnings and errors go out at
 * once with everything before them, and whatever is left goes out when the process exits.
 */
export function batchedStderr(out: (text: string) => void = (t) => process.stderr.write(t)): (line: string, urgent: boolean) => void {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out(text);
  };
  process.on('exit', flush);
  return (line, urgent) => {
    pending += line + '\n';
    if (urgent || pending.length >= 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

// One batch for the process's stderr, shared by every logger writing there, made at its first line.
let stderrBatch: ((line: string, urgent: boolean) => void) | null = null;

/** A logger that prints lines at or above `level` through `write` (batched stderr by default), each after `[tag]` when given (which process of a cluster). */
export function createLogger(level: LogLevel, write?: (line: string) => void, tag?: string): Logger {
  const head = tag ? ` [${tag}]` : '';
  const emit = (at: LogLevel) => (msg: string, extra?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return;
    const tail = extra ? ' ' + JSON.stringify(extra) : '';
    const line = `${new Date().toISOString()} ${at.toUpperCase()}${head} ${msg}${tail}`;
    if (write) write(line);
    else (stderrBatch ??= batchedStderr())(line, RANK[at] >= RANK.warn);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), enabled: (at) => RANK[at] >= RANK[level] && level !== 'silent' };
}

/** A logger that drops everything, for tests. */
export const silentLogger: Logger = createLogger('silent');
