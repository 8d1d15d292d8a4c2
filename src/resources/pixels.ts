import * as v from 'valibot';
import { defineResource } from './define.ts';
import type { StoredRecord } from '../store/store.ts';
import { date, int, str } from './shapes.ts';

/** Pixel types the reference allows. */
export const PIXEL_TYPES = ['gtmpixel', 'gapixel', 'fbpixel', 'adwordspixel', 'linkedinpixel', 'twitterpixel', 'adrollpixel', 'quorapixel', 'pinterest', 'bing', 'snapchat', 'reddit', 'tiktok'] as const;

/** Request fields of tracking pixels. */
export const pixelFields = {
  type: v.picklist(PIXEL_TYPES, `Invalid type: must be one of ${PIXEL_TYPES.join(', ')}.`),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Pixel name cannot be empty.'), v.maxLength(100, 'Pixel name must be at most 100 characters.')),
  tag: v.pipe(v.string(), v.trim(), v.minLength(1, 'Pixel tag cannot be empty.'), v.maxLength(255, 'Pixel tag must be at most 255 characters.')),
};

/** A stored pixel. */
export type Pixel = StoredRecord & { type: (typeof PIXEL_TYPES)[number]; name: string; tag: string; date: string };

/** Tracking pixels: fired on a link's interstitial page. */
export const pixels = defineResource<typeof pixelFields, Pixel>({
  name: 'pixel',
  collection: 'pixels',
  api: 'link',
  scope: 'pixels',
  owned: true,
  fields: pixelFields,
  create: { required: ['type', 'name', 'tag'] },
  update: { required: ['tag'], fields: ['name', 'tag'] },
  paths: { list: '/api/pixels', get: '/api/pixel/:id', create: '/api/pixel/add', update: '/api/pixel/:id/update', remove: '/api/pixel/:id/delete' },
  listKey: 'pixels',
  shapes: { entry: { id: int, type: v.picklist(PIXEL_TYPES), name: str, tag: str, date } },
  searchable: ['name', 'tag'],
  messages: { notFound: 'Pixel does not exist.', updated: 'Pixel has been updated successfully.', deleted: 'Pixel has been deleted successfully.' },
  example: (n) => ({ type: PIXEL_TYPES[n % PIXEL_TYPES.length], name: `Pixel ${n}`, tag: `TAG-${1000 + n}` }),
  entry: (p) => ({ id: p.id, type: p.type, name: p.name, tag: p.tag, date: p.date }),
});
