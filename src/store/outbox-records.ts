/** The outbox's collections and events as the storage interface (store.ts) hands them out. */
import type { CollectionSchema, StoredRecord } from './record.ts';

/** The outbox's collections: events (one per change), webhook deliveries, and where routing stands. */
export const EVENTS_COLLECTION = 'events';
export const DELIVERIES_COLLECTION = 'deliveries';
export const OUTBOX_COLLECTION = 'outbox';

/** How both backends keep the outbox's collections, whether or not the resource table names them (rows that do use these keys). */
export const OUTBOX_SCHEMAS: readonly CollectionSchema[] = [
  {
    name: EVENTS_COLLECTION,
    indexes: { eventId: { key: (r) => (typeof r.eventId === 'string' ? r.eventId : null) }, created: { key: (r) => (typeof r.created === 'string' ? r.created : null) } },
  },
  {
    name: DELIVERIES_COLLECTION,
    indexes: {
      // Set while a delivery waits: the queues' heads are found without reading what was delivered.
      queue: { key: (r) => (r.state === 'pending' && typeof r.queue === 'string' ? r.queue : null) },
      created: { key: (r) => (typeof r.created === 'string' ? r.created : null) },
    },
  },
  { name: OUTBOX_COLLECTION },
];

/** `schemas` with the outbox's collections added where missing. */
export function withOutbox(schemas: readonly CollectionSchema[]): CollectionSchema[] {
  const named = new Set(schemas.map((s) => s.name));
  return [...schemas, ...OUTBOX_SCHEMAS.filter((s) => !named.has(s.name))];
}

/** An event as it is appended: what happened to one user's records, in the form webhooks and streams send. */
export interface NewEvent {
  userId: number;
  /** `evt_…`: unique across processes, restarts and servers (receivers deduplicate by it). */
  eventId: string;
  type: string;
  /** When it happened, ISO 8601. */
  created: string;
  data: Record<string, unknown>;
}

/** A stored event. */
export type EventRecord = StoredRecord & NewEvent;

/** An event and where it stands in the outbox's order (a cursor: opaque, compared only by the store). */
export interface PlacedEvent {
  cursor: string;
  event: EventRecord;
}
