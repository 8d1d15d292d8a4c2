import type { Clock } from '../clock.ts';
import type { CountsDelta, NewEvent } from '../store/store.ts';
import { newEvent } from './event-types.ts';

/** Which counted subjects report their visits, as which event, under which name for the count. */
const COUNTED: Readonly<Record<string, { type: string; count: string }>> = {
  link: { type: 'link.clicked', count: 'clicks' },
  qr: { type: 'qr.scanned', count: 'scans' },
};

/**
 * The events of one statistics flush: per link (and QR code) with clicks (scans) in it, one event
 * with how many since the previous flush, not one per click. Unique visitors are left out: on a
 * store several processes share they are settled only in the flush's own write.
 */
export function countEvents(deltas: readonly CountsDelta[], clock: Clock): NewEvent[] {
  const totals = new Map<string, { owner: number; kind: string; id: number; n: number }>();
  for (const d of deltas) {
    const [kind = '', rawId = ''] = d.subject.split(':');
    const clicks = d.counts.clicks;
    if (!COUNTED[kind] || d.owner === undefined || typeof clicks !== 'number' || clicks <= 0 || !/^\d+$/.test(rawId)) continue;
    const entry = totals.get(d.subject) ?? { owner: d.owner, kind, id: Number(rawId), n: 0 };
    entry.n += clicks;
    totals.set(d.subject, entry);
  }
  return [...totals.values()].map((t) => newEvent(t.owner, COUNTED[t.kind]!.type, { id: t.id, [COUNTED[t.kind]!.count]: t.n }, clock));
}
