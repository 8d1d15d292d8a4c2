import { bios } from './bios.ts';
import { campaigns } from './campaigns.ts';
import { channels } from './channels.ts';
import type { Resource } from './define.ts';
import { domains } from './domains.ts';
import { links } from './links.ts';
import { overlays } from './overlays.ts';
import { pixels } from './pixels.ts';
import { qrs } from './qrs.ts';
import { splash } from './splash.ts';
import { users } from './users.ts';
import { websites } from '../analytics/websites.ts';
import { statsDays } from '../stats/stats-row.ts';

/** The resource table: every resource of both APIs, one row each. */
export const RESOURCES: readonly Resource[] = [users, links, qrs, pixels, campaigns, channels, bios, domains, overlays, splash, websites, statsDays];

/** The store collections the table needs. */
export function collectionsOf(rows: readonly Resource[]): string[] {
  return [...new Set(rows.map((r) => r.collection))];
}
