import type { HookContext } from '../resources/define.ts';
import type { StoredRecord } from '../store/store.ts';
import { clickTotals, subjectOf, visitStats } from './stats.ts';

/** A stored short link. */
export interface Link extends StoredRecord {
  userId: number;
  alias: string;
  url: string;
  title: string;
  description?: string;
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

/** The origin short URLs of a link use: its branded domain's, or BASE_URL's. */
export function originOf(link: Pick<Link, 'domainId'>, ctx: Pick<HookContext, 'store' | 'config'>): string {
  const domain = link.domainId === null ? undefined : ctx.store.get<StoredRecord & { domain: string }>('domains', link.domainId);
  return domain?.domain ?? ctx.config.baseUrl;
}

/** `BASE_URL/<alias>`, or the branded domain's origin + `/<alias>`. */
export function shortUrlOf(link: Link, ctx: Pick<HookContext, 'store' | 'config'>): string {
  return `${originOf(link, ctx)}/${link.alias}`;
}

/** The fields list entries and single-link details share. */
function common(link: Link, ctx: HookContext) {
  return { id: link.id, alias: link.alias, shorturl: shortUrlOf(link, ctx), longurl: link.url, title: link.title, description: link.description ?? '' };
}

/** A link in lists (the real product's entry shape). */
export function linkEntry(link: Link, ctx: HookContext): Record<string, unknown> {
  const stats = clickTotals(ctx, subjectOf('link', link.id));
  return {
    ...common(link, ctx),
    clicks: stats.clicks,
    uniqueclicks: stats.uniqueClicks,
    domain: originOf(link, ctx),
    campaign: link.campaign,
    channel: link.channels,
    date: link.date,
  };
}

/** The single-link response: details and statistics. */
export function linkSingle(link: Link, ctx: HookContext): Record<string, unknown> {
  return {
    id: link.id,
    details: {
      ...common(link, ctx),
      location: link.geotarget ?? [],
      device: link.devicetarget ?? [],
      language: link.languagetarget ?? [],
      expiry: link.expiry ?? null,
      password: link.password !== null,
      type: link.type,
      pixels: link.pixels,
      campaign: link.campaign,
      channel: link.channels,
      status: link.status,
      date: link.date,
    },
    data: visitStats(ctx, subjectOf('link', link.id)),
  };
}
