import * as v from 'valibot';
import { ApiError } from '../errors.ts';
import type { StoredRecord } from '../store/store.ts';
import { defineResource } from './define.ts';
import { int, str } from './shapes.ts';

/** A HEX colour `#RRGGBB` (channel badges, overlays). */
export const hexColor = v.pipe(v.string(), v.trim(), v.regex(/^#[0-9A-Fa-f]{6}$/, 'Colours must be HEX strings of the form #RRGGBB.'));

/** Request fields of channels. */
export const channelFields = {
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(2, 'Channel name cannot be empty and must have at least 2 characters.'),
    v.maxLength(100, 'Channel name must be at most 100 characters.'),
  ),
  description: v.pipe(v.string(), v.trim(), v.maxLength(500, 'Channel description must be at most 500 characters.')),
  color: hexColor,
  starred: v.boolean(),
};

/** A stored channel. Its items hold its id in their own `channels` list; the channel holds none. */
export type Channel = StoredRecord & { name: string; description: string; color: string; starred: boolean; date: string };

/** The colour of a channel created without one. */
export const DEFAULT_CHANNEL_COLOR = '#000000';


const channelShape = { id: int, name: str, description: str, color: str, starred: v.boolean() };

/** Channels: user-made folders holding links, bio pages and QR codes; an item may be in several. */
export const channels = defineResource<typeof channelFields, Channel>({
  name: 'channel',
  collection: 'channels',
  api: 'link',
  scope: 'channels',
  owned: true,
  fields: channelFields,
  create: { required: ['name'], defaults: { description: '', color: DEFAULT_CHANNEL_COLOR, starred: false } },
  update: { required: [] },
  // No generic get: GET /api/channel/:id lists the channel's items (src/routes/link-api/channels.ts).
  paths: { list: '/api/channels', create: '/api/channel/add', update: '/api/channel/:id/update', remove: '/api/channel/:id/delete' },
  listKey: 'channels',
  shapes: { entry: channelShape, created: channelShape },
  searchable: ['name', 'description'],
  // One name per user, whatever the letter case.
  indexes: { name: (c) => `${c.userId}\n${c.name.toLowerCase()}` },
  unique: { name: () => new ApiError(400, 'You already have a channel with this name.') },
  messages: { notFound: 'Channel does not exist.', updated: 'Channel has been updated successfully.', deleted: 'Channel has been deleted successfully.' },
  example: (n) => ({ name: `Channel ${n}`, description: `Things about ${n}`, color: `#${(0x102030 + n).toString(16).toUpperCase()}`, starred: n % 2 === 1 }),
  entry: (c) => ({ id: c.id, name: c.name, description: c.description, color: c.color, starred: c.starred }),
  created: (c) => ({ id: c.id, name: c.name, description: c.description, color: c.color, starred: c.starred }),
  async check(fields, ctx, tx, existing) {
    if (typeof fields.name !== 'string') return;
    const same = await tx.find<Channel>('channels', { owner: ctx.user.id, conditions: [{ field: 'name', equalsIgnoringCase: fields.name }] });
    if (same.items.some((c) => c.id !== existing?.id)) throw new ApiError(400, 'You already have a channel with this name.');
  },
});
