import { defineResource } from '../resources/define.ts';
import type { StatsDay } from './counts.ts';

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
