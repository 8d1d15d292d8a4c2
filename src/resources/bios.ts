import * as v from 'valibot';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { randomToken } from '../random.ts';
import type { StoreReads, StoredRecord } from '../store/store.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { urlOrEmpty } from './domains.ts';
import { httpUrl } from './fields.ts';
import { date, int, str } from './shapes.ts';

/** The looks a bio page may take (src/bios/bio-page.ts draws each). */
export const BIO_THEMES = ['light', 'dark', 'ocean', 'sunset'] as const;

/** One link of a bio page: what its button says, and where it goes. */
const bioLink = v.object({
  title: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(100, 'A bio link title must be at most 100 characters.')), ''),
  url: httpUrl,
});

/** Request fields of bio pages. */
export const bioFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(2, 'Bio page name must be 2 to 100 characters.'), v.maxLength(100, 'Bio page name must be 2 to 100 characters.')),
  alias: v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9_-]{3,64}$/, 'Alias must be 3 to 64 letters, digits, dashes or underscores.')),
  description: v.pipe(v.string(), v.trim(), v.maxLength(1000, 'Bio page description must be at most 1000 characters.')),
  avatar: urlOrEmpty('Avatar'),
  theme: v.picklist(BIO_THEMES, `Invalid theme: must be one of ${BIO_THEMES.join(', ')}.`),
  links: v.pipe(v.array(bioLink, 'Links must be a list of {title, url}.'), v.maxLength(50, 'A bio page has at most 50 links.')),
};

/** One link of a stored bio page. */
export type BioLink = v.InferOutput<typeof bioLink>;

/**
 * A stored bio page; `channels` lists the channels it is in. Pages stored before description,
 * avatar, theme and links existed (or imported without them) lack them: readers take them as empty.
 */
export type Bio = StoredRecord & { name: string; alias: string; description?: string; avatar?: string; theme?: string; links?: BioLink[]; channels: number[]; date: string };

/** The public URL of a bio page. */
export function bioUrl(config: Config, b: { alias: string }): string {
  return `${config.baseUrl}/u/${b.alias}`;
}

/** True when a bio page other than `selfId` already has this alias (case-insensitive: /u/ is one namespace). */
export async function bioAliasTaken(reads: StoreReads, alias: string, selfId?: number): Promise<boolean> {
  const other = await reads.lookup<Bio>('bios', 'alias', alias.toLowerCase());
  return other !== undefined && other.id !== selfId;
}

/** A random alias no bio page has; longer after repeated collisions. */
async function freeAlias(ctx: HookContext): Promise<string> {
  for (let i = 0; ; i++) {
    const alias = randomToken(ctx.random, 6 + Math.floor(i / 10));
    if (!(await bioAliasTaken(ctx.store, alias))) return alias;
  }
}

const BIO_ALIAS_TAKEN = () => new ApiError(400, 'That alias is taken. Please choose another one.');

/** Bio pages: an extension (the reference has none) so that channels can hold `bio` items. */
export const bios = defineResource<typeof bioFields, Bio>({
  name: 'bio',
  collection: 'bios',
  api: 'link',
  scope: 'bios',
  owned: true,
  extension: true,
  fields: bioFields,
  create: { required: ['name'], defaults: { description: '', avatar: '', theme: 'light', links: [] } },
  update: { required: [] },
  paths: { list: '/api/bio', get: '/api/bio/:id', create: '/api/bio/add', update: '/api/bio/:id/update', remove: '/api/bio/:id/delete' },
  listKey: 'bios',
  shapes: {
    entry: { id: int, name: str, alias: str, link: str, date },
    single: {
      data: v.strictObject({ id: int, name: str, alias: str, link: str, description: str, avatar: str, theme: str, links: v.array(v.strictObject({ title: str, url: str })), date }),
    },
    created: { id: int, link: str },
  },
  references: { channels: { collection: 'channels', many: true } },
  searchable: ['name', 'alias'],
  indexes: { alias: (b) => b.alias.toLowerCase() },
  unique: { alias: BIO_ALIAS_TAKEN },
  messages: { notFound: 'Bio page does not exist.', updated: 'Bio page has been updated successfully.', deleted: 'Bio page has been deleted successfully.' },
  example: (n) => ({
    name: `Bio ${n}`,
    alias: `bio-${n}`,
    description: `Links of bio ${n}.`,
    avatar: `https://example.com/avatar-${n}.png`,
    theme: BIO_THEMES[n % BIO_THEMES.length],
    links: [{ title: 'Shop', url: `https://example.com/shop-${n}` }],
  }),
  entry: (b, ctx) => ({ id: b.id, name: b.name, alias: b.alias, link: bioUrl(ctx.config, b), date: b.date }),
  single: (b, ctx) => ({
    data: { id: b.id, name: b.name, alias: b.alias, link: bioUrl(ctx.config, b), description: b.description ?? '', avatar: b.avatar ?? '', theme: b.theme ?? 'light', links: b.links ?? [], date: b.date },
  }),
  async prepare(input, ctx, existing) {
    if (existing) return { fields: input };
    return { fields: { ...input, alias: input.alias ?? (await freeAlias(ctx)), channels: [] } };
  },
  async check(fields, _ctx, tx, existing) {
    if (typeof fields.alias === 'string' && (await bioAliasTaken(tx, fields.alias, existing?.id))) throw BIO_ALIAS_TAKEN();
  },
  created: (b, ctx) => ({ id: b.id, link: bioUrl(ctx.config, b) }),
});
