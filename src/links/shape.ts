import type { HookContext } from '../resources/define.ts';
import type { StoredRecord } from '../store/store.ts';
import { countryName } from '../visits/country.ts';
import { clickTotals, subjectOf, visitStats } from './stats.ts';

/** A stored short link. */
export interface Link extends StoredRecord {
  userId: number;
  alias: string;
  url: string;
  title: string;
  description?: string;
  metadescription?: string;
  domainId: number | null;
  type: 'direct' | 'frame' | 'splash' | 'overlay';
  splashId: number | null;
  overlayId: number | null;
  password: string | null;
  expiry?: string;
  campaign: number | null;
  channels: number[];
  pixels: number[];
  status: 'public' | 'private';
  geotarget?: { location: string; link: string }[];
  devicetarget?: { device: string; link: string }[];
  languagetarget?: { language: string; link: string }[];
  deeplink?: { auto?: boolean; apple?: string; google?: string };
  parameters?: { name: string; value: string }[];
  date: string;
}

/** The origins of the branded domains some links use, by domain id, in one read. */
export async function originsOf(links: readonly Pick<Link, 'domainId'>[], ctx: Pick<HookContext, 'store'>): Promise<Map<number, string>> {
  const ids = [...new Set(links.map((l) => l.domainId).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const { items } = await ctx.store.find<StoredRecord & { domain: string }>('domains', { ids });
  return new Map(items.map((d) => [d.id, d.domain]));
}

/** The origin short URLs of a link use: its branded domain's, or BASE_URL's. */
export async function originOf(link: Pick<Link, 'domainId'>, ctx: Pick<HookContext, 'store' | 'config'>): Promise<string> {
  return (await originsOf([link], ctx)).get(link.domainId ?? -1) ?? ctx.config.baseUrl;
}

/** `BASE_URL/<alias>`, or the branded domain's origin + `/<alias>`. */
export async function shortUrlOf(link: Link, ctx: Pick<HookContext, 'store' | 'config'>): Promise<string> {
  return `${await originOf(link, ctx)}/${link.alias}`;
}

/** The fields list entries and single-link details share; as the real product, `title` and `description` are the meta title and description. */
function common(link: Link, origin: string) {
  return { id: link.id, alias: link.alias, shorturl: `${origin}/${link.alias}`, longurl: link.url, title: link.title, description: link.metadescription ?? '' };
}

/**
 * Targeting rules as the real product answers them: a map from what is targeted to its link
 * (`{"canada": "https://…"}`); countries by their lowercase English name, as the product keys them.
 * The first rule for a key is the one redirects follow, so it is the one shown.
 */
function targetMap<K extends string>(rules: readonly ({ [P in K]: string } & { link: string })[] | undefined, key: K, label: (value: string) => string = (x) => x): Record<string, string> {
  const out = new Map<string, string>();
  for (const rule of rules ?? []) {
    const name = label(rule[key]);
    if (!out.has(name)) out.set(name, rule.link);
  }
  return Object.fromEntries(out);
}

const countryKey = (code: string) => {
  const name = countryName(code);
  return name === 'Unknown' ? code.toLowerCase() : name.toLowerCase();
};

/** A page of links in lists (the real product's entry shape), with one read of their domains and one of their totals. */
export async function linkEntries(links: readonly Link[], ctx: HookContext): Promise<Record<string, unknown>[]> {
  const [origins, totals] = await Promise.all([originsOf(links, ctx), clickTotals(ctx, links.map((l) => subjectOf('link', l.id)))]);
  return links.map((link) => {
    const origin = origins.get(link.domainId ?? -1) ?? ctx.config.baseUrl;
    const stats = totals.get(subjectOf('link', link.id));
    return {
      ...common(link, origin),
      clicks: stats?.clicks ?? 0,
      uniqueclicks: stats?.uniqueClicks ?? 0,
      domain: origin,
      campaign: link.campaign,
      channel: link.channels,
      date: link.date,
    };
  });
}

/** A link in lists. */
export async function linkEntry(link: Link, ctx: HookContext): Promise<Record<string, unknown>> {
  return (await linkEntries([link], ctx))[0]!;
}

/** The single-link response: details and statistics. */
export async function linkSingle(link: Link, ctx: HookContext): Promise<Record<string, unknown>> {
  return {
    id: link.id,
    details: {
      ...common(link, await originOf(link, ctx)),
      location: targetMap(link.geotarget, 'location', countryKey),
      device: targetMap(link.devicetarget, 'device'),
      language: targetMap(link.languagetarget, 'language'),
      expiry: link.expiry ?? null,
      password: link.password !== null,
      type: link.type,
      pixels: link.pixels,
      campaign: link.campaign,
      channel: link.channels,
      status: link.status,
      date: link.date,
    },
    data: await visitStats(ctx, subjectOf('link', link.id), Number),
  };
}
