import type { StoredRecord } from '../store/store.ts';
import type { AttemptResult } from './send.ts';

/** The event a delivery sends, as it was when it happened. */
export interface SentEvent {
  id: string;
  type: string;
  created: string;
  data: Record<string, unknown>;
}

/** One attempt as the delivery log shows it. */
export interface Attempt {
  /** When it was made, ISO 8601. */
  at: string;
  status: number | null;
  error: string | null;
  /** The start of the receiver's answer (LOGGED_BODY_CHARS at most). */
  body: string;
  ms: number;
}

/** A stored delivery: one event to one webhook (see Outbox in store.ts for the fields the queue reads). */
export type Delivery = StoredRecord & {
  userId: number;
  webhookId: number;
  queue: string;
  state: 'pending' | 'delivered' | 'failed';
  /** A test event or a redelivery: sent at once, outside the webhook's order, tried once. */
  manual: boolean;
  event: SentEvent;
  created: string;
  /** When it may be tried (next), epoch ms of the server's clock. */
  nextAt: number;
  attempts: number;
  /** When retrying ends (24 hours after the first failure); null before one. */
  retryUntil: number | null;
  /** The last attempts, oldest first. */
  log: Attempt[];
  deliveredAt?: string | null;
  lease?: string | null;
};

/** Attempts a delivery's log keeps (the first ones make way for later ones). */
export const LOGGED_ATTEMPTS = 10;

/** A new pending delivery of `event` to webhook `webhookId` of `userId`, due at `now`; `manual` ones have a queue of their own. */
export function newDelivery(userId: number, webhookId: number, event: SentEvent, now: number, manual = false): Omit<Delivery, 'id'> {
  const queue = manual ? `m${webhookId}:${event.id}:${now}:${Math.random().toString(36).slice(2)}` : `w${webhookId}`;
  return { userId, webhookId, queue, state: 'pending', manual, event, created: new Date(now).toISOString(), nextAt: now, attempts: 0, retryUntil: null, log: [], deliveredAt: null };
}

/** An attempt's entry in the log. */
export function attemptOf(result: AttemptResult, now: number): Attempt {
  return { at: new Date(now).toISOString(), status: result.status, error: result.error, body: result.body, ms: result.ms };
}

/** A delivery as the API shows it (`GET /api/webhooks/:id/deliveries`). */
export function deliveryEntry(d: Delivery): Record<string, unknown> {
  const last = d.log.at(-1) ?? null;
  return {
    id: d.id,
    event: d.event.id,
    type: d.event.type,
    status: d.state,
    manual: d.manual,
    created: d.created,
    attempts: d.attempts,
    next_attempt: d.state === 'pending' ? new Date(d.nextAt).toISOString() : null,
    delivered: d.deliveredAt ?? null,
    last_attempt: last,
    log: d.log,
  };
}
