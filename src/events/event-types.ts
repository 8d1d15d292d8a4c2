import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { NewEvent } from '../store/store.ts';

/** Every event type a webhook may ask for and a stream sends. */
export const EVENT_TYPES = ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'qr.created', 'qr.scanned', 'website.created', 'import.finished'] as const;

/** One of EVENT_TYPES. */
export type EventType = (typeof EVENT_TYPES)[number];

/** What a webhook's `events` may name: a type, or `*` for all of them. */
export const ALL_EVENTS = '*';

/** The type of the test event `POST /api/webhooks/:id/test` sends (to that webhook only, never to streams). */
export const PING = 'webhook.ping';

const ID_BYTES = 12;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** A new event id: `evt_` and 24 random hex digits, from the system's random source even in test mode, so no two processes or servers ever make the same one. */
export function eventId(): string {
  // One read of the system's source per 341 ids: a bulk create of 1,000 links makes 1,000 events.
  if (poolAt + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * 341);
    poolAt = 0;
  }
  poolAt += ID_BYTES;
  return `evt_${pool.toString('hex', poolAt - ID_BYTES, poolAt)}`;
}

/** An event of `userId`'s, happening now by `clock`. */
export function newEvent(userId: number, type: string, data: Record<string, unknown>, clock: Clock): NewEvent {
  return { userId, eventId: eventId(), type, created: isoTime(clock.now()), data };
}

// The last moment written, as a bulk create's thousand events mostly share one.
let lastMs = Number.NaN;
let lastIso = '';
const isoTime = (ms: number): string => (ms === lastMs ? lastIso : ((lastMs = ms), (lastIso = new Date(ms).toISOString())));

/** The JSON an event is sent as, by webhooks and streams alike: `{id, type, created, data}`. */
export function eventBody(event: Pick<NewEvent, 'eventId' | 'type' | 'created' | 'data'>): string {
  return JSON.stringify({ id: event.eventId, type: event.type, created: event.created, data: event.data });
}
