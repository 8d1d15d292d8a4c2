/**
 * `npm run bench -- --compare <checkout>`: every scenario of the real server also runs against
 * another build (`<checkout>/dist/main.js`, built beforehand with `npm run build`), in the same
 * rounds, right next to its twin and in alternating order, so the machine's changing load hits
 * both builds alike. A table then shows each pair: req/s and server CPU µs per request.
 */
import { join } from 'node:path';
import { median } from './load.ts';
import type { ScenarioResult } from './report.ts';
import type { Scenario } from './scenarios.ts';

/** The suffix of a twin's scenario id and server name. */
export const OTHER = '@other';

/** Whether a server name runs the other build. */
export const isOther = (server: string) => server.endsWith(OTHER);

/** The server name without the twin suffix. */
export const ownServer = (server: string) => (isOther(server) ? server.slice(0, -OTHER.length) : server);

/** The other build's entry point. */
export const otherMain = (checkout: string) => join(checkout, 'dist', 'main.js');

/** `list` with a twin after each scenario that `twinned` accepts (the real server on the file store). */
export function withTwins(list: readonly Scenario[], twinned: (s: Scenario) => boolean): Scenario[] {
  return list.flatMap((s) => (twinned(s) ? [s, { ...s, id: s.id + OTHER, label: `${s.label} [other build]`, server: s.server + OTHER }] : [s]));
}

/** The order of one round: a twin goes first in even rounds, so neither build always follows the other. */
export function roundOrder(list: readonly Scenario[], round: number): number[] {
  const order = list.map((_, i) => i);
  if (round % 2 === 1) return order;
  for (let i = 0; i + 1 < order.length; i++) {
    if (list[i + 1]!.id === list[i]!.id + OTHER) {
      [order[i], order[i + 1]] = [order[i + 1]!, order[i]!];
      i++;
    }
  }
  return order;
}

const µsPerReq = (r: { cpu: number; rps: number }) => (r.cpu * 1e4) / r.rps;

/** One line per pair: this build against the other, from medians and per-round ratios; more than 10% slower is flagged. */
export function compareTable(results: readonly ScenarioResult[]): string {
  const head = ['Scenario', 'req/s this', 'req/s other', 'this/other', 'per-round median', 'CPU µs/req this', 'CPU µs/req other', 'CPU other/this', 'Verdict'];
  const rows: string[][] = [];
  for (const a of results) {
    const b = results.find((r) => r.id === a.id + OTHER);
    if (!b || a.rounds.length === 0 || b.rounds.length === 0) continue;
    const rpsA = median(a.rounds.map((x) => x.rps));
    const rpsB = median(b.rounds.map((x) => x.rps));
    const paired = median(a.rounds.slice(0, b.rounds.length).map((x, i) => x.rps / b.rounds[i]!.rps));
    const cpuA = median(a.rounds.map(µsPerReq));
    const cpuB = median(b.rounds.map(µsPerReq));
    // Slower by more than 10% on both the req/s and the CPU per request: a regression, not noise in one of them.
    const slower = rpsA / rpsB < 0.9 && paired < 0.9 && cpuB / cpuA < 0.9;
    rows.push([`${a.label} (${a.records})`, rpsA.toFixed(0), rpsB.toFixed(0), `${((rpsA / rpsB) * 100).toFixed(0)}%`, `${(paired * 100).toFixed(0)}%`, cpuA.toFixed(1), cpuB.toFixed(1), `${((cpuB / cpuA) * 100).toFixed(0)}%`, slower ? 'SLOWER' : 'ok']);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
