import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { ALL_EVENTS, EVENT_TYPES } from '../events/event-types.ts';
import { DELIVERIES_COLLECTION } from '../store/store.ts';
import type { StoredRecord } from '../store/store.ts';
import { refusedTarget } from '../webhooks/targets.ts';
import { defineResource } from './define.ts';
import { urlChecks } from './fields.ts';
import { date, int, str } from './shapes.ts';

/** What a webhook's `events` may hold: every event type, and `*` for all of them (those added later too). */
export const WEBHOOK_EVENTS = [...EVENT_TYPES, ALL_EVENTS] as const;

/** Webhooks a user may have: each event is routed to each of them, so their number bounds the work one write makes. */
export const MAX_WEBHOOKS_PER_USER = 20;

const SECRET = /^[\x21-\x7e]{16,200}$/;

/** Request fields of webhooks. */
export const webhookFields = {
  url: v.pipe(v.string(), v.trim(), ...urlChecks({ scheme: 'Invalid url: it must start with http:// or https://.', invalid: 'Invalid url: it must be an http:// or https:// URL with a host.' })),
  events: v.pipe(
    v.array(v.picklist(WEBHOOK_EVENTS, `Invalid events: each must be one of ${WEBHOOK_EVENTS.join(', ')}.`), 'Invalid events: it must be a list of event types.'),
    v.minLength(1, 'Invalid events: name at least one event type, or "*" for all.'),
    v.maxLength(WEBHOOK_EVENTS.length * 2, 'Invalid events: too many entries.'),
  ),
  secret: v.pipe(v.string('Invalid secret: it must be a string.'), v.regex(SECRET, 'Invalid secret: 16 to 200 printable characters without spaces.')),
  active: v.boolean('Invalid active: it must be true or false.'),
};

/** A stored webhook; its secret signs every delivery and is shown only when the server made it. */
export type Webhook = StoredRecord & {
  userId: number;
  url: string;
  events: string[];
  secret: string;
  active: boolean;
  /** Why it is not active: deliveries failed for 24 hours, or its owner turned it off; null while active. */
  disabledReason: string | null;
  disabledAt: string | null;
  date: string;
};

/** A new signing secret: `whsec_` and 32 random URL-safe characters. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Whether a webhook asks for events of `type`. */
export function wants(webhook: Pick<Webhook, 'events'>, type: string): boolean {
  return webhook.events.includes(ALL_EVENTS) || webhook.events.includes(type);
}

/** A webhook as the API shows it: never its secret. */
export function webhookEntry(w: Webhook): Record<string, unknown> {
  return { id: w.id, url: w.url, events: w.events, active: w.active !== false, disabled: w.disabledReason ? { reason: w.disabledReason, at: w.disabledAt ?? '' } : null, date: w.date };
}

/** Webhooks: where a user's events are sent, signed with the webhook's secret (src/webhooks/). */
export const webhooks = defineResource<typeof webhookFields, Webhook>({
  name: 'webhook',
  collection: 'webhooks',
  api: 'link',
  owned: true,
  extension: true,
  scope: 'webhooks',
  fields: webhookFields,
  create: { required: ['url', 'events'], defaults: { active: true } },
  update: { required: [] },
  paths: { list: '/api/webhooks', get: '/api/webhooks/:id', create: '/api/webhooks', update: '/api/webhooks/:id/update', remove: '/api/webhooks/:id/delete' },
  listKey: 'webhooks',
  shapes: {
    entry: { id: int, url: str, events: v.array(v.picklist(WEBHOOK_EVENTS)), active: v.boolean(), disabled: v.nullable(v.strictObject({ reason: str, at: str })), date },
    created: { id: int, secret: str },
  },
  searchable: ['url'],
  messages: { notFound: 'Webhook does not exist.', updated: 'Webhook has been updated successfully.', deleted: 'Webhook has been deleted successfully.' },
  example: (n) => ({ url: `https://hooks.example.com/receive/${n}`, events: ['link.created', 'link.clicked'] }),
  entry: webhookEntry,
  // The secret the server made is shown here, once; one the client chose it knows already.
  created: (w, _ctx, extra) => ({ id: w.id, secret: (extra.secret as string | undefined) ?? w.secret }),
  prepare(input, ctx, existing) {
    const f: Record<string, unknown> = { ...input };
    if (typeof input.url === 'string') {
      const refused = refusedTarget(input.url, ctx.config.webhookPrivateTargets);
      if (refused) throw new ApiError(400, refused);
    }
    if (Array.isArray(input.events)) f.events = [...new Set(input.events as string[])];
    if (input.active === true) Object.assign(f, { disabledReason: null, disabledAt: null });
    if (input.active === false && existing?.active !== false) Object.assign(f, { disabledReason: 'Turned off by its owner.', disabledAt: formatDateTime(ctx.clock.now()) });
    if (existing) return { fields: f };
    if (input.active === undefined || input.active === true) Object.assign(f, { active: true, disabledReason: null, disabledAt: null });
    if (input.secret !== undefined) return { fields: f };
    const secret = newWebhookSecret();
    return { fields: { ...f, secret }, extra: { secret } };
  },
  async check(_f, ctx, tx, existing) {
    if (!existing && (await tx.count('webhooks', { owner: ctx.user.id })) >= MAX_WEBHOOKS_PER_USER) {
      throw new ApiError(400, `A user may have at most ${MAX_WEBHOOKS_PER_USER} webhooks: delete one first.`);
    }
  },
  async onDelete(tx, w) {
    await tx.removeWhere(DELIVERIES_COLLECTION, { owner: w.userId, conditions: [{ field: 'webhookId', equals: w.id }] });
  },
});
