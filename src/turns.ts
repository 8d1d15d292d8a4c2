/**
 * Long work in JavaScript, given to the event loop in slices: a loop asks `due()` as it goes (a clock
 * read, no promise) and, when its slice has run `sliceMs`, awaits `next()` (a setImmediate: the
 * requests waiting on the loop are answered in between). A statistics flush of a busy second held the
 * event loop for 25-40 ms in one piece, and every request that came in meanwhile waited for all of it.
 */
let turnSliceMs = 4;

/** The slice of the Turns made from now on, ms (tests set 0: every check gives a turn). */
export function setTurnSlice(ms: number): void {
  turnSliceMs = ms;
}

/** One loop's slices (see above). */
export class Turns {
  private since = performance.now();

  constructor(private readonly sliceMs = turnSliceMs) {}

  /** Whether the current slice has run its time. */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  /** Gives the event loop a turn; the next slice starts after it. */
  async next(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/**
 * `items` as the elements of one JSON array text (`[` and `]` left to the caller), each made by
 * `shape`, stringified in slices of `Turns`: the same text as JSON.stringify(items.map(shape)).slice(1, -1).
 */
export async function jsonElements<T>(items: readonly T[], shape: (item: T) => unknown, turns: Turns, per = 250): Promise<string> {
  const parts: string[] = [];
  for (let at = 0; at < items.length; at += per) {
    if (turns.due()) await turns.next();
    const text = JSON.stringify(items.slice(at, at + per).map(shape));
    parts.push(text.slice(1, -1));
  }
  return parts.join(',');
}

/**
 * `items` sorted by `compare` (a new array, stable), in slices of `Turns`: runs of `per` sorted
 * each in one piece, then merged pairwise a few thousand elements at a time. A year of a busy
 * link's referrers (hundreds of thousands of labels) held the event loop for seconds in one sort.
 */
export async function sortInTurns<T>(items: readonly T[], compare: (a: T, b: T) => number, turns: Turns, per = 4096): Promise<T[]> {
  per = Math.max(1, Math.floor(per));
  let runs: T[][] = [];
  for (let at = 0; at < items.length; at += per) {
    if (turns.due()) await turns.next();
    runs.push(items.slice(at, at + per).sort(compare));
  }
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) next.push(i + 1 < runs.length ? await mergeRuns(runs[i]!, runs[i + 1]!, compare, turns) : runs[i]!);
    runs = next;
  }
  return runs[0] ?? [];
}

// Two sorted runs as one, the left one's first on ties (stable).
async function mergeRuns<T>(a: readonly T[], b: readonly T[], compare: (a: T, b: T) => number, turns: Turns): Promise<T[]> {
  const out: T[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    if ((k & 1023) === 0 && turns.due()) await turns.next();
    out[k++] = compare(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
