import * as v from 'valibot';
import { ApiError } from '../errors.ts';
import { clickTotals, subjectOf, visitStats } from '../links/stats.ts';
import { parseRgb } from '../qr/color.ts';
import { QR_TYPES, parseQrData } from '../qr/data.ts';
import type { QrDataByType, QrType } from '../qr/data.ts';
import { buildQrPayload } from '../qr/payload.ts';
import { MAX_LOGO_BYTES, parseDataUri } from '../qr/logo.ts';
import { randomToken } from '../random.ts';
import { awayFromStore } from '../store/deadline.ts';
import type { StoredRecord } from '../store/store.ts';
import { qrEventData } from '../events/event-data.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { date, int, str, visitStatsShape } from './shapes.ts';

const ALIAS_LENGTH = 8;
const LOGO_MESSAGE = 'Logo must be either a PNG or a JPEG (Max 500kb).';

const colour = (field: string) =>
  v.pipe(v.string(), v.trim(), v.check((s) => parseRgb(s) !== null, `Invalid ${field}: use a colour like rgb(255,255,255) with components 0 to 255.`));

/** A logo: an http(s) URL of a .png/.jpg/.jpeg file, or a data: URI of a PNG/JPEG up to 500 KB. */
export const logoField = v.pipe(
  v.string(),
  v.trim(),
  v.check((s) => {
    if (s.startsWith('data:')) {
      const logo = parseDataUri(s);
      return logo !== null && logo.bytes.length <= MAX_LOGO_BYTES;
    }
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && /\.(png|jpe?g)$/i.test(u.pathname) && s.length <= 2048;
    } catch {
      return false;
    }
  }, LOGO_MESSAGE),
);

/** Request fields of QR codes (the reference's "QR codes"). */
export const qrFields = {
  type: v.picklist(QR_TYPES, `Invalid type: must be one of ${QR_TYPES.join(', ')}.`),
  // Checked by type in parseQrData; described here for the docs, which cannot derive it from the type alone.
  data: v.pipe(
    v.unknown(),
    v.description(
      'What the code holds, by `type`: `text`, `link` (an http(s) URL) and `phone`: a string; `email`: `{email, subject?, body?}` or the address alone; ' +
        '`sms`: `{phone, message?}` or the number alone; `wifi`: `{ssid, password?, encryption?, hidden?}`; `vcard`: `{name, phone?, email?, company?, website?, …}`. ' +
        "The real product's keys are taken too (`pass`, `fname`, `lname`, `org`, `site`, …).",
    ),
  ),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'QR name cannot be empty.'), v.maxLength(100, 'QR name must be at most 100 characters.')),
  background: colour('background'),
  foreground: colour('foreground'),
  logo: logoField,
};

/** A stored QR code. */
export interface Qr extends StoredRecord {
  userId: number;
  name: string;
  alias: string;
  type: (typeof QR_TYPES)[number];
  data: unknown;
  background: string;
  foreground: string;
  logo: string | null;
  channels: number[];
  date: string;
}

/** All-time scans of a QR code. */
async function scansOf(ctx: HookContext, q: Qr): Promise<number> {
  const subject = subjectOf('qr', q.id);
  return (await clickTotals(ctx, [subject])).get(subject)!.clicks;
}

/** `BASE_URL/qr/<alias>`: the QR image. */
export function qrLink(qr: Qr, ctx: Pick<HookContext, 'config'>): string {
  return `${ctx.config.baseUrl}/qr/${qr.alias}`;
}

/** The text a QR code encodes; a link QR encodes our scan-counting URL, which then redirects. */
export function qrPayloadOf(s: Pick<HookContext, 'config'>, qr: Pick<Qr, 'type' | 'data' | 'alias'>): string {
  return buildQrPayload(qr.type as QrType, qr.data as QrDataByType[QrType], { trackingUrl: `${s.config.baseUrl}/qr/${qr.alias}/scan` });
}

function checkedData(type: string, data: unknown): unknown {
  const parsed = parseQrData(type, data);
  if (!parsed.ok) throw new ApiError(400, parsed.message);
  return parsed.value.data;
}

/** QR codes: list, get with statistics, add, update, delete. */
export const qrs = defineResource<typeof qrFields, Qr>({
  name: 'qr',
  collection: 'qrs',
  api: 'link',
  scope: 'qr',
  owned: true,
  fields: qrFields,
  events: { created: 'qr.created', data: qrEventData },
  create: { required: ['type', 'data'], defaults: { background: 'rgb(255,255,255)', foreground: 'rgb(0,0,0)' } },
  update: { required: ['data'] },
  paths: { list: '/api/qr', get: '/api/qr/:id', create: '/api/qr/add', update: '/api/qr/:id/update', remove: '/api/qr/:id/delete' },
  listKey: 'qrs',
  shapes: {
    entry: { id: int, link: str, scans: int, name: str, date },
    single: { details: v.strictObject({ id: int, name: str, link: str, scans: int, date }), data: visitStatsShape },
    created: { id: int, link: str },
  },
  searchable: ['name'],
  references: { channels: { collection: 'channels', many: true } },
  indexes: { alias: (q) => q.alias },
  unique: { alias: () => new ApiError(503, 'Please try again.') },
  messages: { notFound: 'QR does not exist.', updated: 'QR has been updated successfully.', deleted: 'QR has been deleted successfully.' },
  example: (n) => ({ type: 'text', data: `Hello ${n}`, name: `QR ${n}`, foreground: `rgb(${n % 256},0,0)` }),
  entry: async (q, ctx) => ({ id: q.id, link: qrLink(q, ctx), scans: await scansOf(ctx, q), name: q.name, date: q.date }),
  entries: async (records, ctx) => {
    const totals = await clickTotals(ctx, records.map((q) => subjectOf('qr', q.id)));
    return records.map((q) => ({ id: q.id, link: qrLink(q, ctx), scans: totals.get(subjectOf('qr', q.id))!.clicks, name: q.name, date: q.date }));
  },
  single: async (q, ctx) => ({
    details: { id: q.id, name: q.name, link: qrLink(q, ctx), scans: await scansOf(ctx, q), date: q.date },
    data: await visitStats(ctx, subjectOf('qr', q.id)),
  }),
  created: (q, ctx) => ({ id: q.id, link: qrLink(q, ctx) }),
  async prepare(input, ctx, existing) {
    const type = (input.type as string | undefined) ?? existing?.type ?? 'text';
    const f: Record<string, unknown> = { ...input, data: checkedData(type, input.data) };
    const logo = input.logo ?? existing?.logo;
    const payload = qrPayloadOf(ctx, { type: type as QrType, data: f.data, alias: existing?.alias ?? 'x'.repeat(ALIAS_LENGTH) });
    // A long payload's symbol costs up to ~0.2 s of CPU to build: asked of the render threads, whose
    // queue (RENDER_QUEUE) bounds the wait; the wait is not the database's (DATABASE_TIMEOUT).
    if (!(await awayFromStore(ctx.renderer.fits(payload, logo ? 'H' : 'M')))) throw new ApiError(400, `Invalid data: the content is too long to fit in a QR code${logo ? ' with a logo' : ''}.`);
    if (!existing) {
      f.name ??= `${type.toUpperCase()} QR code`;
      f.logo ??= null;
      f.channels = [];
    }
    return { fields: f };
  },
  async onDelete(tx, qr, ctx) {
    await ctx.counters.dropSubject(tx, subjectOf('qr', qr.id));
  },
  madeUp: {
    index: 'alias',
    make(f, ctx) {
      f.alias = randomToken(ctx.random, ALIAS_LENGTH);
    },
  },
});
