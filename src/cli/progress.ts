/** Where progress goes: a stream and whether it is a terminal. */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Counts work done out of a total and shows it. */
export interface Progress {
  /** `n` more items done. */
  tick(n?: number): void;
  /** All done: the final state and a line break. */
  done(): void;
}

/** A progress that shows nothing. */
export const NO_PROGRESS: Progress = { tick: () => {}, done: () => {} };

/**
 * A progress indicator on `sink`: on a terminal one line redrawn at most every 100 ms; elsewhere
 * (forced with --progress) one line per tenth, so logs stay readable.
 */
export function progressOn(sink: ProgressSink, label: string, total: number, now: () => number = Date.now): Progress {
  let count = 0;
  let shownAt = -Infinity;
  let shownTenth = -1;
  const line = () => `${label} ${count}/${total} (${total === 0 ? 100 : Math.floor((count / total) * 100)}%)`;
  const show = (final: boolean) => {
    if (sink.isTTY) {
      if (!final && now() - shownAt < 100) return;
      shownAt = now();
      sink.write(`\r\x1b[2K${line()}${final ? '\n' : ''}`);
      return;
    }
    const tenth = total === 0 ? 10 : Math.floor((count / total) * 10);
    if (tenth === shownTenth) return;
    shownTenth = tenth;
    sink.write(`${line()}\n`);
  };
  show(false);
  return {
    tick(n = 1) {
      count = Math.min(total, count + n);
      show(false);
    },
    done() {
      count = total;
      show(true);
    },
  };
}
