import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { findVisible } from '../crud.ts';
import { pageQuery, paginate } from '../../http/pagination.ts';
import { shortUrlOf } from '../../links/shape.ts';
import type { Link } from '../../links/shape.ts';
import { bioUrl } from '../../resources/bios.ts';
import type { Bio } from '../../resources/bios.ts';
import { channels } from '../../resources/channels.ts';
import type { Channel } from '../../resources/channels.ts';
import type { Services } from '../../resources/define.ts';
import { qrLink } from '../../resources/qrs.ts';
import type { Qr } from '../../resources/qrs.ts';
import type { StoredRecord } from '../../store/store.ts';
import { findItem } from './find-item.ts';

/** What a channel can hold: per `:type`, the collection, the not-found message and the item's title and URLs. */
interface ItemKind {
  collection: string;
  missing: string;
  title(r: StoredRecord): string;
  link(r: StoredRecord, s: Services): string | Promise<string>;
  preview(r: StoredRecord, s: Services): string;
}

/** The item kinds of channels, keyed by the `type` the API uses; membership is stored on the item (`channels: [ids]`). */
export const ITEM_KINDS: Readonly<Record<string, ItemKind>> = {
  links: {
    collection: 'links',
    missing: 'Link does not exist. Please try again.',
    title: (r) => (r as Link).title || (r as Link).url,
    link: (r, s) => shortUrlOf(r as Link, s),
    preview: (r) => (r as Link).url,
  },
  bio: {
    collection: 'bios',
    missing: 'Bio Page does not exist. Please try again.',
    title: (r) => (r as Bio).name,
    link: (r, s) => bioUrl(s.config, r as Bio),
    preview: (r, s) => bioUrl(s.config, r as Bio),
  },
  qr: {
    collection: 'qrs',
    missing: 'QR Code does not exist. Please try again.',
    title: (r) => (r as Qr).name,
    link: (r, s) => qrLink(r as Qr, s),
    preview: (r, s) => qrLink(r as Qr, s),
  },
};

/** The channel ids an item is in. */
function channelsOf(r: StoredRecord): number[] {
  return Array.isArray(r.channels) ? (r.channels as number[]) : [];
}

/** The items of a user's channel, newest first, in the reference's channel-item shape. */
export async function channelItems(s: Services, userId: number, channelId: number): Promise<Record<string, unknown>[]> {
  const found: { type: string; record: StoredRecord }[] = [];
  for (const [type, kind] of Object.entries(ITEM_KINDS)) {
    if (!s.resources.some((r) => r.collection === kind.collection)) continue;
    const { items } = await s.store.find(kind.collection, { owner: userId, conditions: [{ field: 'channels', holds: channelId }] });
    for (const record of items) found.push({ type, record });
  }
  const date = (r: StoredRecord) => String(r.date ?? '');
  found.sort((a, b) => date(b.record).localeCompare(date(a.record)) || a.type.localeCompare(b.type) || b.record.id - a.record.id);
  return Promise.all(
    found.map(async ({ type, record }) => {
      const kind = ITEM_KINDS[type] as ItemKind;
      return { type, id: record.id, title: kind.title(record), preview: kind.preview(record, s), link: await kind.link(record, s), date: date(record).slice(0, 10) };
    }),
  );
}

/** The answer to an item added to a channel. */
export const ASSIGNED = 'Item successfully added to the channel.';

/**
 * Adds the user's item (`type`: a key of ITEM_KINDS, `rawItem` its id) to the user's channel
 * `rawChannel`, as the assign route does; throws the API's 400/404 ApiError.
 */
export async function assignItem(s: Services, userId: number, rawChannel: string | undefined, type: string, rawItem: string | undefined): Promise<{ channel: Channel; kind: string; itemId: number }> {
  const channel = await findVisible<Channel>(s, channels, rawChannel, userId);
  const kind = Object.hasOwn(ITEM_KINDS, type) ? ITEM_KINDS[type] : undefined;
  if (!kind) throw new ApiError(400, `Invalid type: must be one of ${Object.keys(ITEM_KINDS).join(', ')}.`);
  const found = await findItem(s, kind.collection, rawItem, userId, kind.missing);
  // Read again inside the transaction: a concurrent assignment must not be written over.
  await s.store.transaction(async (tx) => {
    // Both locked: a concurrent assignment waits for this one (else both would grow the list they
    // read, and the later write would drop the other's channel), and the channel cannot go meanwhile.
    if (!(await tx.getForUpdate('channels', channel.id))) throw new ApiError(404, channels.messages.notFound);
    const item = await tx.getForUpdate(kind.collection, found.id);
    if (!item) throw new ApiError(404, kind.missing);
    if (channelsOf(item).includes(channel.id)) throw new ApiError(400, 'This item is already added to the selected channel.');
    await tx.update(kind.collection, item.id, { channels: [...channelsOf(item), channel.id] });
  });
  return { channel, kind: kind.collection, itemId: found.id };
}

/** What channels do beyond the generic routes: listing a channel's items and assigning an item. */
export function channelRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/api/channel/:id', async (c) => {
    const userId = c.get('user').id;
    const channel = await findVisible<Channel>(s, channels, c.req.param('id'), userId);
    const { page, limit } = pageQuery(c.req.query());
    const { items, ...meta } = paginate(await channelItems(s, userId, channel.id), page, limit);
    return c.json({ error: '0', data: { ...meta, items } });
  });

  routes.post('/api/channel/:channelid/assign/:type/:itemid', async (c) => {
    await assignItem(s, c.get('user').id, c.req.param('channelid'), c.req.param('type'), c.req.param('itemid'));
    return c.json({ error: 0, message: ASSIGNED });
  });
  return routes;
}
