import * as v from 'valibot';
import type { StoredRecord } from '../store/store.ts';
import { defineResource } from './define.ts';
import { urlOrEmpty } from './domains.ts';
import { date, int, str } from './shapes.ts';

/** Request fields of custom splash pages. */
export const splashFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Splash page name cannot be empty.'), v.maxLength(100, 'Splash page name must be at most 100 characters.')),
  title: v.pipe(v.string(), v.trim(), v.maxLength(200, 'Splash page title must be at most 200 characters.')),
  text: v.pipe(v.string(), v.trim(), v.maxLength(2000, 'Splash page text must be at most 2000 characters.')),
  image: urlOrEmpty('Splash page image'),
  // Seconds the page shows before moving on to the link's target.
  countdown: v.pipe(v.number(), v.integer('Countdown must be a whole number of seconds from 0 to 60.'), v.minValue(0, 'Countdown must be a whole number of seconds from 0 to 60.'), v.maxValue(60, 'Countdown must be a whole number of seconds from 0 to 60.')),
};

/** A stored splash page. */
export type Splash = StoredRecord & { name: string; title: string; text: string; image: string; countdown: number; date: string };

/**
 * Custom splash pages shown before a link's target. Only the list (`/api/splash`, key `splash`) is
 * in the reference; get, add, update and delete are our extension.
 */
export const splash = defineResource<typeof splashFields, Splash>({
  name: 'splash',
  collection: 'splash',
  api: 'link',
  scope: 'splash',
  owned: true,
  extension: true,
  fields: splashFields,
  create: { required: ['name'], defaults: { title: '', text: '', image: '', countdown: 5 } },
  update: { required: [] },
  paths: { list: '/api/splash', get: '/api/splash/:id', create: '/api/splash/add', update: '/api/splash/:id/update', remove: '/api/splash/:id/delete' },
  listKey: 'splash',
  shapes: {
    entry: { id: int, name: str, date },
    single: { data: v.strictObject({ id: int, name: str, title: str, text: str, image: str, countdown: int, date }) },
  },
  searchable: ['name', 'title'],
  messages: { notFound: 'Splash page does not exist.', updated: 'Splash page has been updated successfully.', deleted: 'Splash page has been deleted successfully.' },
  example: (n) => ({ name: `Splash ${n}`, title: `Welcome ${n}`, text: `Read this first (${n}).`, image: `https://example.com/banner-${n}.png`, countdown: n % 61 }),
  entry: (p) => ({ id: p.id, name: p.name, date: p.date }),
  single: (p) => ({ data: { id: p.id, name: p.name, title: p.title, text: p.text, image: p.image, countdown: p.countdown, date: p.date } }),
});
