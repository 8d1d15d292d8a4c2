import type { Store } from '../store/store.ts';
import { parseIpRanges } from '../visits/ip-range.ts';
import type { IpRange } from '../visits/ip-range.ts';
import type { Website } from './websites.ts';
import { receivingWebsite } from './website-ownership.ts';

/** Finds the website receiving a domain's events (the row's `receiving` index) for ingestion and the stats page, and caches their parsed IP exclusions. */
export class WebsiteIndex {
  // Keyed by the record object: an update stores a new object, so stale ranges are never used.
  private ranges = new WeakMap<Website, IpRange[]>();

  constructor(private readonly store: Store) {}

  /** The website receiving a domain's events (the domain already normalised, without `www.`), or undefined. */
  find(domain: string): Promise<Website | undefined> {
    return receivingWebsite<Website>(this.store, domain);
  }

  /** The parsed `exclude_ips` of a website. */
  excludedIps(website: Website): IpRange[] {
    let ranges = this.ranges.get(website);
    if (!ranges) this.ranges.set(website, (ranges = parseIpRanges(website.exclude_ips).ranges));
    return ranges;
  }
}
