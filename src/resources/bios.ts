import * as v from 'valibot';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { randomToken } from '../random.ts';
import type { StoreReads, StoredRecord } from '../store/store.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { date, int, str } from './shapes.ts';

/** Request fields of bio pages. */
export const bioFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(2, 'Bio page name must be 2 to 100 characters.'), v.maxLength(100, 'Bio page name must be 2 to 100 characters.')),
  alias: v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9_-]{3,64}$/, 'Alias must be 3 to 64 letters, digits, dashes or underscores.')),
};

/** A stored bio page; `channels` lists the channels it is in. */
export type Bio = StoredRecord & { name: string; alias: string; channels: number[]; date: string };

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
  owned: true,
  extension: true,
  fields: bioFields,
  create: { required: ['name'] },
  update: { required: [] },
  paths: { list: '/api/bio', get: '/api/bio/:id', create: '/api/bio/add', update: '/api/bio/:id/update', remove: '/api/bio/:id/delete' },
  listKey: 'bios',
  shapes: { entry: { id: int, name: str, alias: str, link: str, date }, created: { id: int, link: str } },
  references: { channels: { collection: 'channels', many: true } },
  searchable: ['name', 'alias'],
  indexes: { alias: (b) => b.alias.toLowerCase() },
  unique: { alias: BIO_ALIAS_TAKEN },
  messages: { notFound: 'Bio page does not exist.', updated: 'Bio page has been updated successfully.', deleted: 'Bio page has been deleted successfully.' },
  example: (n) => ({ name: `Bio ${n}`, alias: `bio-${n}` }),
  entry: (b, ctx) => ({ id: b.id, name: b.name, alias: b.alias, link: bioUrl(ctx.config, b), date: b.date }),
  async prepare(input, ctx, existing) {
    if (existing) return { fields: input };
    return { fields: { ...input, alias: input.alias ?? (await freeAlias(ctx)), channels: [] } };
  },
  async check(fields, _ctx, tx, existing) {
    if (typeof fields.alias === 'string' && (await bioAliasTaken(tx, fields.alias, existing?.id))) throw BIO_ALIAS_TAKEN();
  },
  created: (b, ctx) => ({ id: b.id, link: bioUrl(ctx.config, b) }),
});
