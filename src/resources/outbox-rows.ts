import { defineResource } from './define.ts';
import { DELIVERIES_COLLECTION, EVENTS_COLLECTION, OUTBOX_SCHEMAS } from '../store/store.ts';
import type { EventRecord, StoredRecord } from '../store/store.ts';

/** The index keys the stores keep for an outbox collection (OUTBOX_SCHEMAS), as a row's `indexes`. */
function keysOf(collection: string): Record<string, (r: StoredRecord) => string | null> {
  const schema = OUTBOX_SCHEMAS.find((s) => s.name === collection);
  return Object.fromEntries(Object.entries(schema?.indexes ?? {}).map(([name, index]) => [name, index.key]));
}

/**
 * The outbox's events as a row without routes: owned (deleting a user deletes them) and transient
 * (no export carries them). Streams and webhooks read them through the store's outbox.
 */
export const eventsRow = defineResource<Record<string, never>, EventRecord>({
  name: 'event',
  collection: EVENTS_COLLECTION,
  api: 'link',
  owned: true,
  extension: true,
  transient: true,
  fields: {},
  paths: {},
  listKey: 'events',
  indexes: keysOf(EVENTS_COLLECTION),
  messages: { notFound: 'Event does not exist.', updated: '', deleted: '' },
  example: () => ({}),
  entry: (e) => ({ id: e.eventId, type: e.type, created: e.created, data: e.data }),
});

/** Webhook deliveries as a row without routes of its own (src/routes/link-api/webhooks.ts serves them): owned and transient. */
export const deliveriesRow = defineResource<Record<string, never>, StoredRecord>({
  name: 'delivery',
  collection: DELIVERIES_COLLECTION,
  api: 'link',
  owned: true,
  extension: true,
  transient: true,
  fields: {},
  paths: {},
  listKey: 'deliveries',
  indexes: keysOf(DELIVERIES_COLLECTION),
  messages: { notFound: 'Delivery does not exist.', updated: '', deleted: '' },
  example: () => ({}),
  entry: (d) => ({ id: d.id }),
});
