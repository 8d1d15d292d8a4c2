import type { Clock } from '../clock.ts';
import { formatDateTime } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Webhook } from '../resources/webhooks.ts';
import { DELIVERIES_COLLECTION } from '../store/store.ts';
import type { RecordChange, Store } from '../store/store.ts';
import { afterFailure } from './backoff.ts';
import { attemptOf, LOGGED_ATTEMPTS } from './deliveries.ts';
import type { Delivery } from './deliveries.ts';
import type { AttemptResult } from './send.ts';

/** A delivery of a run and its attempt's result and end (the app's clock); none when it was not sent (the run stopped before it). */
export interface RunEntry {
  d: Delivery;
  result?: AttemptResult;
  at?: number;
}

/**
 * Keeps a run's outcomes in the delivery log in one transaction, in order, as long as each delivery
 * is still the run's (its lease unchanged: a lease that ran out may have been taken by another
 * process meanwhile, and what follows it with it): delivered; failed (a manual delivery, tried
 * once, or one whose webhook is gone); due again after its backoff; or, 24 hours after its first
 * failure, failed with its webhook turned off and why. One not sent is given back (its lease cleared).
 * The run's deliveries are read (locked) in one go and written in one go: on PostgreSQL three
 * statements a run, not three a delivery.
 */
export async function recordRun(deps: { store: Store; clock: Clock; log: Logger }, run: readonly RunEntry[], gone: boolean): Promise<void> {
  const { store, clock, log } = deps;
  await store.transaction(async (tx) => {
    const held = await tx.getManyForUpdate<Delivery>(DELIVERIES_COLLECTION, run.map((e) => e.d.id));
    const changes: RecordChange<Delivery>[] = [];
    let turnOff: { webhookId: number; reason: string; at: number } | null = null;
    for (const { d, result, at } of run) {
      const current = held.get(d.id);
      if (!current || current.lease !== d.lease || current.state !== 'pending') break;
      const released = { lease: null, leaseUntil: null, leaseOwner: null };
      if (!result) {
        changes.push({ id: d.id, patch: released });
        continue;
      }
      const now = at ?? clock.now();
      const attempts = current.attempts + 1;
      const base = { attempts, log: [...current.log, attemptOf(result, now)].slice(-LOGGED_ATTEMPTS), ...released };
      if (result.ok) changes.push({ id: d.id, patch: { ...base, state: 'delivered', deliveredAt: new Date(now).toISOString() } });
      else if (current.manual || gone) changes.push({ id: d.id, patch: { ...base, state: 'failed' } });
      else {
        const next = afterFailure(now, attempts, current.retryUntil);
        if (next.retry) changes.push({ id: d.id, patch: { ...base, retryUntil: next.until, nextAt: next.at } });
        else {
          changes.push({ id: d.id, patch: { ...base, state: 'failed', retryUntil: next.until } });
          turnOff = { webhookId: current.webhookId, reason: result.error ?? 'failed', at: now };
        }
      }
    }
    await tx.updateMany(DELIVERIES_COLLECTION, changes);
    if (!turnOff) return;
    const hook = await tx.getForUpdate<Webhook>('webhooks', turnOff.webhookId);
    if (hook && hook.active !== false) {
      const reason = `Deliveries failed for 24 hours (the last: ${turnOff.reason}); turned off. Turn it on again with "active": true.`;
      await tx.update('webhooks', hook.id, { active: false, disabledReason: reason, disabledAt: formatDateTime(turnOff.at) });
      log.warn('a webhook was turned off: its deliveries failed for 24 hours', { webhook: hook.id, user: hook.userId });
    }
  });
}
