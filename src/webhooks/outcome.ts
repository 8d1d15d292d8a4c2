import type { Clock } from '../clock.ts';
import { formatDateTime } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Webhook } from '../resources/webhooks.ts';
import { DELIVERIES_COLLECTION } from '../store/store.ts';
import type { Store } from '../store/store.ts';
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
 */
export async function recordRun(deps: { store: Store; clock: Clock; log: Logger }, run: readonly RunEntry[], gone: boolean): Promise<void> {
  const { store, clock, log } = deps;
  await store.transaction(async (tx) => {
    for (const { d, result, at } of run) {
      const current = await tx.getForUpdate<Delivery>(DELIVERIES_COLLECTION, d.id);
      if (!current || current.lease !== d.lease || current.state !== 'pending') return;
      const released = { lease: null, leaseUntil: null, leaseOwner: null };
      if (!result) {
        await tx.update(DELIVERIES_COLLECTION, d.id, released);
        continue;
      }
      const now = at ?? clock.now();
      const attempts = current.attempts + 1;
      const base = { attempts, log: [...current.log, attemptOf(result, now)].slice(-LOGGED_ATTEMPTS), ...released };
      if (result.ok) {
        await tx.update(DELIVERIES_COLLECTION, d.id, { ...base, state: 'delivered', deliveredAt: new Date(now).toISOString() });
        continue;
      }
      if (current.manual || gone) {
        await tx.update(DELIVERIES_COLLECTION, d.id, { ...base, state: 'failed' });
        continue;
      }
      const next = afterFailure(now, attempts, current.retryUntil);
      if (next.retry) {
        await tx.update(DELIVERIES_COLLECTION, d.id, { ...base, retryUntil: next.until, nextAt: next.at });
        continue;
      }
      await tx.update(DELIVERIES_COLLECTION, d.id, { ...base, state: 'failed', retryUntil: next.until });
      const hook = await tx.getForUpdate<Webhook>('webhooks', current.webhookId);
      if (hook && hook.active !== false) {
        const reason = `Deliveries failed for 24 hours (the last: ${result.error ?? 'failed'}); turned off. Turn it on again with "active": true.`;
        await tx.update('webhooks', hook.id, { active: false, disabledReason: reason, disabledAt: formatDateTime(now) });
        log.warn('a webhook was turned off: its deliveries failed for 24 hours', { webhook: hook.id, user: hook.userId });
      }
    }
  });
}
