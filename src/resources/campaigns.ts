import * as v from 'valibot';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { clickTotals, subjectOf } from '../links/stats.ts';
import type { StoredRecord, Tx } from '../store/store.ts';
import { defineResource } from './define.ts';
import type { HookContext } from './define.ts';
import { int, str } from './shapes.ts';

const NAME_RULE = 'Campaign name cannot be empty and must have at least 2 characters.';

/** Request fields of campaigns. */
export const campaignFields = {
  // An absent name counts as an empty one, so both get the real product's message (compat-notes.md).
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(2, NAME_RULE), v.maxLength(100, 'Campaign name must be at most 100 characters.')), ''),
  // '' on update removes the rotator.
  slug: v.pipe(v.string(), v.trim(), v.regex(/^(?:[A-Za-z0-9_-]{3,64})?$/, 'Slug must be 3 to 64 letters, digits, dashes or underscores.')),
  public: v.boolean(),
};

/** A stored campaign; `views` counts rotator visits. */
export type Campaign = StoredRecord & { name: string; slug: string | null; public: boolean; views: number; date: string };

/** The rotator URL of a campaign, or false when it has no slug (as the reference shows). */
export function rotatorUrl(config: Config, c: Campaign): string | false {
  return c.slug ? `${config.baseUrl}/r/${c.slug}` : false;
}

/** The readable part of a campaign's page URL: its slug, else its name in lower-case ASCII words ("Spring Sale 2027" → "spring-sale-2027"), else ''. */
export function campaignRefSlug(c: Pick<Campaign, 'slug' | 'name'>): string {
  const words = (c.slug ?? c.name).normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  return words.replace(/[^a-z0-9_]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '');
}

/** The path of a campaign's public page, as the real product builds it: `/u/<username>/<slug or name>-<id>`, or `/u/<username>/<id>` when nothing readable is left. */
export function campaignListPath(c: Pick<Campaign, 'id' | 'slug' | 'name'>, username: string): string {
  return `/u/${encodeURIComponent(username)}/${campaignPageRef(c)}`;
}

/** The last segment of a campaign page's path: `<slug or name>-<id>`, or the id alone. */
export function campaignPageRef(c: Pick<Campaign, 'id' | 'slug' | 'name'>): string {
  const readable = campaignRefSlug(c);
  return readable ? `${readable}-${c.id}` : String(c.id);
}

/** The URL of a campaign's public page listing its links (`username`: its owner's). */
export function campaignListUrl(config: Config, c: Campaign, username: string): string {
  return config.baseUrl + campaignListPath(c, username);
}

/** The body of create and update responses: the name under `domain` as the reference says, and under `name`. */
function campaignBody(c: Campaign, ctx: HookContext): Record<string, unknown> {
  return { id: c.id, domain: c.name, name: c.name, public: c.public, rotator: rotatorUrl(ctx.config, c), list: campaignListUrl(ctx.config, c, ctx.user.username) };
}

/** Throws when the user has another campaign of this name, or any user another campaign with this slug. */
async function checkCampaignUnique(fields: Record<string, unknown>, ctx: HookContext, tx: Tx, selfId?: number): Promise<void> {
  if (typeof fields.name === 'string') {
    const mine = await tx.find<Campaign>('campaigns', { owner: ctx.user.id, conditions: [{ field: 'name', equalsIgnoringCase: fields.name }] });
    if (mine.items.some((c) => c.id !== selfId)) throw new ApiError(400, 'You already have a campaign with that name.');
  }
  if (typeof fields.slug === 'string') {
    const slug = fields.slug.toLowerCase();
    // Rotator slugs share one namespace (/r/<slug>) across every user of the server.
    const other = await tx.lookup<Campaign>('campaigns', 'slug', slug);
    if (other && other.id !== selfId) throw SLUG_TAKEN();
  }
}

const SLUG_TAKEN = () => new ApiError(400, 'This slug is currently not available. Please choose another one.');


const campaignShape = { id: int, domain: str, name: str, public: v.boolean(), rotator: v.union([str, v.literal(false)]), list: str };

/** Campaigns: named groups of links, with an optional rotator and a public page. */
export const campaigns = defineResource<typeof campaignFields, Campaign>({
  name: 'campaign',
  collection: 'campaigns',
  api: 'link',
  scope: 'campaigns',
  owned: true,
  fields: campaignFields,
  create: { required: ['name'], defaults: { public: false } },
  update: { required: ['name'] },
  paths: { list: '/api/campaigns', create: '/api/campaign/add', update: '/api/campaign/:id/update', remove: '/api/campaign/:id/delete' },
  listKey: 'campaigns',
  shapes: { entry: { ...campaignShape, views: int }, created: campaignShape, updated: campaignShape },
  searchable: ['name', 'slug'],
  // Case-insensitive: /r/Promo and /r/promo are one rotator.
  indexes: { slug: (c) => c.slug?.toLowerCase() ?? null, name: (c) => `${c.userId}\n${c.name.toLowerCase()}` },
  unique: { slug: SLUG_TAKEN, name: () => new ApiError(400, 'You already have a campaign with that name.') },
  messages: { notFound: 'Campaign not found. Please try again.', updated: 'Campaign has been updated successfully.', deleted: 'Campaign has been deleted successfully.' },
  example: (n) => ({ name: `Campaign ${n}`, slug: `camp-${n}`, public: n % 2 === 0 }),
  // Rotator visits are counted with the click statistics; the record's `views` is the base they add to.
  entry: async (c, ctx) => {
    const subject = subjectOf('campaign', c.id);
    return { ...campaignBody(c, ctx), views: c.views + (await clickTotals(ctx, [subject])).get(subject)!.clicks };
  },
  prepare(input, _ctx, existing) {
    const fields: Record<string, unknown> = { ...input };
    if (input.slug === '') fields.slug = null;
    if (!existing) Object.assign(fields, { slug: fields.slug ?? null, views: 0 });
    return { fields };
  },
  check: (fields, ctx, tx, existing) => checkCampaignUnique(fields, ctx, tx, existing?.id),
  created: campaignBody,
  updated: campaignBody,
});
