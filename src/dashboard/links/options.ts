import type { StoredRecord } from '../../store/store.ts';
import type { Services } from '../../resources/define.ts';

/** One choice of a select: its value and what it shows. */
export interface Choice {
  value: string;
  label: string;
}

/** What a link may point to among the user's other records, for the link form's selects and the list's filters. */
export interface LinkChoices {
  domains: Choice[];
  campaigns: Choice[];
  channels: Choice[];
  pixels: Choice[];
  splash: Choice[];
  overlays: Choice[];
}

// A select lists at most this many of each: a user with more types the id (the API takes any).
const MAX_CHOICES = 500;

/** The user's branded domains, campaigns, channels, pixels, splash pages and overlays, by name, read at once. */
export async function linkChoices(s: Pick<Services, 'store'>, userId: number): Promise<LinkChoices> {
  const read = (collection: string) => s.store.find<StoredRecord>(collection, { owner: userId, sort: { field: 'id', direction: 'desc' }, limit: MAX_CHOICES }).then((f) => f.items);
  const [domains, campaigns, channels, pixels, splash, overlays] = await Promise.all(['domains', 'campaigns', 'channels', 'pixels', 'splash', 'overlays'].map(read)) as StoredRecord[][];
  const named = (records: StoredRecord[], label: (r: StoredRecord) => string, value = (r: StoredRecord) => String(r.id)) => records.map((r) => ({ value: value(r), label: label(r) }));
  const nameOr = (r: StoredRecord, kind: string) => (typeof r.name === 'string' && r.name !== '' ? r.name : `${kind} ${r.id}`);
  return {
    // A link names its branded domain by host name, as the API's `domain` field takes it.
    domains: named(domains!, (r) => String(r.domain).replace(/^https?:\/\//, ''), (r) => String(r.domain).replace(/^https?:\/\//, '')),
    campaigns: named(campaigns!, (r) => nameOr(r, 'Campaign')),
    channels: named(channels!, (r) => nameOr(r, 'Channel')),
    pixels: named(pixels!, (r) => `${nameOr(r, 'Pixel')} (${String(r.type)})`),
    splash: named(splash!, (r) => nameOr(r, 'Splash page')),
    overlays: named(overlays!, (r) => nameOr(r, 'Overlay'), (r) => `overlay-${r.id}`),
  };
}
