import type { Config } from '../config.ts';
import type { Link } from '../links/shape.ts';
import type { StoreReads, StoredRecord } from '../store/store.ts';

/** The origin of a link's short URL: its branded domain's, or BASE_URL's (read inside the write's transaction). */
async function originIn(reads: StoreReads, link: Pick<Link, 'domainId'>, config: Config): Promise<string> {
  if (link.domainId === null || link.domainId === undefined) return config.baseUrl;
  const domain = await reads.get<StoredRecord & { domain: string }>('domains', link.domainId);
  return domain?.domain ?? config.baseUrl;
}

/** A link as its events show it: what the list entry shows, without the statistics. */
export function linkEventData(link: Link, reads: StoreReads, config: Config): Record<string, unknown> | Promise<Record<string, unknown>> {
  // On the main host no read and no promise: a bulk create makes a thousand of these.
  if (link.domainId === null || link.domainId === undefined) return linkData(link, config.baseUrl);
  return originIn(reads, link, config).then((origin) => linkData(link, origin));
}

function linkData(link: Link, origin: string): Record<string, unknown> {
  return {
    id: link.id,
    alias: link.alias,
    shorturl: `${origin}/${link.alias}`,
    longurl: link.url,
    title: link.title ?? '',
    description: link.metadescription ?? '',
    status: link.status,
    campaign: link.campaign ?? null,
    channel: link.channels ?? [],
    date: link.date,
  };
}

/** A QR code as its events show it. */
export function qrEventData(qr: StoredRecord & { name?: string; type?: string; alias?: string; date?: string }, _reads: StoreReads, config: Config): Record<string, unknown> {
  return { id: qr.id, name: qr.name ?? '', type: qr.type ?? '', link: `${config.baseUrl}/qr/${qr.alias ?? ''}`, date: qr.date ?? '' };
}

/** A website as its events show it. */
export function websiteEventData(site: StoredRecord & { domain?: string; created_at?: string }): Record<string, unknown> {
  return { id: site.id, domain: site.domain ?? '', created_at: site.created_at ?? '' };
}
