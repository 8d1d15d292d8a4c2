/**
 * Edits that turn `a` into `b`: insertions, deletions, substitutions, and swaps of two neighbours
 * (optimal string alignment), so a typed `--prot` is one edit from `--port`, not two. Past
 * `atMost` edits it stops and answers `atMost + 1`.
 */
export function editDistance(a: string, b: string, atMost = Infinity): number {
  // Three rows of the table (the swap looks two rows back), not the whole of it.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    [before, prev, row] = [prev, row, before];
    // A row's smallest entry never shrinks further down: past `atMost`, the answer is too.
    if (Math.min(...prev) > atMost) return atMost + 1;
  }
  return Math.min(prev[b.length]!, atMost + 1);
}

/**
 * The candidate nearest to `name` when it is at most `maxDistance` edits away (the first of equals,
 * in the candidates' order), else undefined: a suggestion for a mistyped name, never a wild guess.
 */
export function closestName(name: string, candidates: readonly string[], maxDistance: number): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    // At least one edit per letter of length between them: most candidates need no table at all
    // (a server checks every variable of its environment against every setting as it starts).
    if (Math.abs(name.length - candidate.length) >= bestDistance) continue;
    const d = editDistance(name, candidate, bestDistance - 1);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
