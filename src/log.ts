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

/** A logger that prints lines at or above `level` through `write` (stderr by default). */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const emit = (at: LogLevel) => (msg: string, extra?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return;
    const tail = extra ? ' ' + JSON.stringify(extra) : '';
    write(`${new Date().toISOString()} ${at.toUpperCase()} ${msg}${tail}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), enabled: (at) => RANK[at] >= RANK[level] && level !== 'silent' };
}

/** A logger that drops everything, for tests. */
export const silentLogger: Logger = createLogger('silent');
