import { defineResource } from '../resources/define.ts';
import type { StoredRecord } from '../store/store.ts';
import type { DayCounts } from './counts.ts';

/** A stored day of counters: one per subject ('website:3', 'link:7') and UTC day. */
export type StatsDay = StoredRecord & { subject: string; day: string; counts: DayCounts };

/**
 * The `stats` collection as a row without routes: it gives the store its collection, and being
 * owned (records carry the subject owner's `userId`) lets deleting a user remove its statistics.
 */
export const statsDays = defineResource<Record<string, never>, StatsDay>({
  name: 'stats',
  collection: 'stats',
  api: 'analytics',
  owned: true,
  extension: true,
  fields: {},
  paths: {},
  listKey: 'stats',
  messages: { notFound: 'Resource not found.', updated: '', deleted: '' },
  example: () => ({}),
  entry: (r) => ({ subject: r.subject, day: r.day, counts: r.counts }),
});
