import * as v from 'valibot';
import { EVENT_TYPES, PING } from '../events/event-types.ts';
import { webhooks } from '../resources/webhooks.ts';
import { int, str } from '../resources/shapes.ts';
import { EVENT_STREAM_PATH } from '../routes/link-api/event-stream.ts';
import { DELIVERY_STATES, WEBHOOK_PATHS } from '../routes/link-api/webhooks.ts';
import { REPLAY_WINDOW_SECONDS } from '../webhooks/signature.ts';
import type { Components } from './components.ts';
import { headerRef, linkListSchema, linkSuccessSchema, ref } from './components.ts';
import { bodySchema, shapeSchema } from './json-schema.ts';
import { PAGE_PARAMS, titleOf, updateExample } from './link-operations.ts';
import type { OpSpec } from './operation.ts';

const attempt = v.strictObject({ at: str, status: v.nullable(int), error: v.nullable(str), body: str, ms: int });

const delivery = v.strictObject({
  id: int,
  event: str,
  type: str,
  status: v.picklist(DELIVERY_STATES),
  manual: v.boolean(),
  created: str,
  attempts: int,
  next_attempt: v.nullable(str),
  delivered: v.nullable(str),
  last_attempt: v.nullable(attempt),
  log: v.array(attempt),
});

const SIGNING =
  `Each delivery is a POST of \`{id, type, created, data}\` (JSON) with \`X-Webhook-Id\`, \`X-Event-Id\`, \`X-Event-Type\`, \`X-Delivery-Id\` and ` +
  '`X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the webhook\'s secret, as Stripe signs. ' +
  `Receivers check the HMAC over the body as received and refuse a \`t\` more than ${REPLAY_WINDOW_SECONDS} seconds from their clock (a replay), and deduplicate by event id: delivery is at least once.`;

/** A webhook's operations beyond the table's (test event, delivery log, redelivery) and the live event stream. */
export function webhookOperations(c: Components): OpSpec[] {
  const { tag } = titleOf(webhooks);
  const sent = c.schema('WebhookSent', () => linkSuccessSchema({ id: int, event: str, message: str }));
  const entry = c.schema('DeliveryEntry', () => shapeSchema(delivery));
  const list = c.schema('DeliveryList', () => linkListSchema('deliveries', entry));
  const noDelivery = { description: 'Webhook does not exist. / Delivery does not exist.', schema: ref('LinkError') };
  const updateBody = { ...c.body('WebhookUpdate', () => bodySchema(webhooks, 'update')), example: updateExample(webhooks, 2) };
  return [
    {
      tag,
      dialect: 'link',
      operationId: 'updateWebhookByPost',
      method: 'post',
      path: WEBHOOK_PATHS.update,
      summary: 'Update a webhook (POST)',
      description: 'The same as `PUT` on this path, for clients that only send POST. Fields left out keep their values; `"active": true` turns a webhook that was turned off on again, `false` turns it off.',
      body: updateBody,
      responses: { '200': { description: `"${webhooks.messages.updated}"`, schema: ref('Message') } },
    },
    {
      tag,
      dialect: 'link',
      operationId: 'testWebhook',
      method: 'post',
      path: WEBHOOK_PATHS.test,
      summary: 'Send a test event to a webhook',
      description: `Queues a \`${PING}\` event for this webhook alone (never for streams), sent at once whatever the webhook's queue holds, and tried once; also to a webhook that is turned off. ${SIGNING}`,
      responses: { '202': { description: 'The delivery (`id`) and its event id: its outcome comes in the delivery log.', schema: sent } },
    },
    {
      tag,
      dialect: 'link',
      operationId: 'listWebhookDeliveries',
      method: 'get',
      path: WEBHOOK_PATHS.deliveries,
      summary: "A webhook's delivery log",
      description:
        'Newest first, under `data.deliveries`: each event sent (or to send) to the webhook, its status (`pending`, `delivered`, `failed`), attempts, when it is tried next, and its last ten attempts with the HTTP status, the error and the first 1,024 characters of the answer. ' +
        'A failed attempt is retried after 30 s, 1 min, 2 min… doubling to an hour, for 24 hours; then the delivery fails and the webhook is turned off (`active: false`, `disabled.reason`), its later events kept for when it is turned on again. ' +
        'Deliveries of one webhook go in the order of their events: one failing holds back the next. Kept EVENT_RETENTION_DAYS.',
      query: [...PAGE_PARAMS, { name: 'status', description: 'Only the deliveries in this state.', schema: { type: 'string', enum: [...DELIVERY_STATES] } }],
      responses: { '200': { description: 'A page of the log.', schema: list } },
    },
    {
      tag,
      dialect: 'link',
      operationId: 'redeliverWebhookDelivery',
      method: 'post',
      path: WEBHOOK_PATHS.redeliver,
      summary: 'Send a delivered or failed event again',
      description: 'Queues the same event (same id) once more, sent at once and tried once, as a new delivery of the log.',
      responses: { '202': { description: 'The new delivery and the event id.', schema: sent }, '404': noDelivery },
    },
    {
      tag: 'Events',
      dialect: 'link',
      operationId: 'streamEvents',
      method: 'get',
      path: EVENT_STREAM_PATH,
      summary: "A live stream of the key's user's events",
      description:
        `Server-Sent Events (\`text/event-stream\`): each event is \`id: <event id>\` and \`data: {id, type, created, data}\`, the webhooks' payload, for every type (${EVENT_TYPES.join(', ')}). ` +
        'A comment line (`: heartbeat`) comes every 15 seconds. Send `Last-Event-ID` (an EventSource does on reconnecting; or `?last_event_id=`) to resume after that event while it is kept (EVENT_RETENTION_DAYS); ' +
        'an id no longer kept starts the stream from now. Events written by any process sharing the database come. At most EVENT_STREAMS_PER_USER streams per user and process (429 past it).',
      query: [{ name: 'last_event_id', description: 'Resume after this event (in place of the `Last-Event-ID` header).', schema: { type: 'string' }, lenient: true }],
      responses: {
        '200': { description: 'The stream, open until the client closes it.', type: 'text/event-stream', schema: { type: 'string' } },
        '429': { description: 'Too many streams of this user are open, or the rate limit.', schema: ref('LinkError'), headers: { 'Retry-After': headerRef('Retry-After') } },
      },
    },
  ];
}
