import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import { eventId, PING } from '../../events/event-types.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { pageMeta, pageQuery } from '../../http/pagination.ts';
import { pathId } from '../../http/validate.ts';
import type { Services } from '../../resources/define.ts';
import { webhooks } from '../../resources/webhooks.ts';
import type { Webhook } from '../../resources/webhooks.ts';
import { DELIVERIES_COLLECTION } from '../../store/store.ts';
import type { Condition } from '../../store/store.ts';
import { deliveryEntry, newDelivery } from '../../webhooks/deliveries.ts';
import type { Delivery, SentEvent } from '../../webhooks/deliveries.ts';
import { findVisible, hookContext, transact } from '../crud.ts';
import { applyUpdate, prepareUpdate, updatedBody } from '../change-many.ts';
import { readJson } from '../../http/validate.ts';

/** The paths of a webhook's own operations beyond the table's, for the OpenAPI document. */
export const WEBHOOK_PATHS = {
  /** The update's path, which takes POST as well as the table's PUT (clients that only POST). */
  update: webhooks.paths.update!,
  test: '/api/webhooks/:id/test',
  deliveries: '/api/webhooks/:id/deliveries',
  redeliver: '/api/webhooks/:id/deliveries/:deliveryId/redeliver',
} as const;

/** The states a delivery log may be filtered by (`?status=`). */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

const NO_DELIVERY = 'Delivery does not exist.';

/** Queues a manual delivery of `event` to `hook` (sent at once, outside the webhook's order, tried once) and wakes the deliveries. */
async function sendNow(s: Services, hook: Webhook, event: SentEvent): Promise<Delivery> {
  const delivery = await s.store.transaction((tx) => tx.insert(DELIVERIES_COLLECTION, newDelivery(hook.userId, hook.id, event, s.clock.now(), true)));
  s.webhooks.kick();
  return delivery as Delivery;
}

/** Sends the test event (PING) to `hook` alone: `POST /api/webhooks/:id/test` and the dashboard's "Send a test event". */
export async function sendTestEvent(s: Services, hook: Webhook): Promise<{ delivery: Delivery; event: SentEvent }> {
  const event: SentEvent = { id: eventId(), type: PING, created: new Date(s.clock.now()).toISOString(), data: { webhook: hook.id, url: hook.url } };
  return { delivery: await sendNow(s, hook, event), event };
}

/** A webhook's update by POST, test event, delivery log and redeliveries. */
export function webhookRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  // The same update as the table's PUT route, by POST.
  routes.post(WEBHOOK_PATHS.update, async (c) => {
    const ctx = hookContext(s, c);
    const existing = await findVisible(s, webhooks, c.req.param('id'), ctx.user.id);
    const fields = await prepareUpdate(webhooks, ctx, existing, await readJson(c));
    const record = await transact(s, webhooks, (tx) => applyUpdate(webhooks, ctx, tx, existing, fields));
    return c.json(await updatedBody(webhooks, ctx, record));
  });

  routes.post(WEBHOOK_PATHS.test, async (c) => {
    const hook = await findVisible<Webhook>(s, webhooks, c.req.param('id'), c.get('user').id);
    const { delivery, event } = await sendTestEvent(s, hook);
    return c.json({ error: 0, id: delivery.id, event: event.id, message: 'The test event is on its way: its outcome is in the delivery log.' }, 202);
  });

  routes.get(WEBHOOK_PATHS.deliveries, async (c) => {
    const user = c.get('user');
    const hook = await findVisible<Webhook>(s, webhooks, c.req.param('id'), user.id);
    const query = c.req.query();
    const { page, limit } = pageQuery(query);
    const conditions: Condition[] = [{ field: 'webhookId', equals: hook.id }];
    if (query.status !== undefined) {
      if (!(DELIVERY_STATES as readonly string[]).includes(query.status)) throw new ApiError(400, `Invalid status: must be one of ${DELIVERY_STATES.join(', ')}.`);
      conditions.push({ field: 'state', equals: query.status });
    }
    const found = await s.store.find<Delivery>(DELIVERIES_COLLECTION, { owner: user.id, conditions, offset: (page - 1) * limit, limit });
    return c.json({ error: '0', data: { ...pageMeta(found.total, page, limit), deliveries: found.items.map(deliveryEntry) } });
  });

  routes.post(WEBHOOK_PATHS.redeliver, async (c) => {
    const user = c.get('user');
    const hook = await findVisible<Webhook>(s, webhooks, c.req.param('id'), user.id);
    const id = pathId(c.req.param('deliveryId'));
    const original = id === null ? undefined : await s.store.get<Delivery>(DELIVERIES_COLLECTION, id);
    if (!original || original.userId !== user.id || original.webhookId !== hook.id) throw new ApiError(404, NO_DELIVERY);
    const d = await sendNow(s, hook, original.event);
    return c.json({ error: 0, id: d.id, event: original.event.id, message: 'The event is sent again: its outcome is in the delivery log.' }, 202);
  });
  return routes;
}
