import { bios } from './bios.ts';
import { campaigns } from './campaigns.ts';
import { channels } from './channels.ts';
import type { CollectionSchema, StoredRecord } from '../store/store.ts';
import type { Resource } from './define.ts';
import { domains } from './domains.ts';
import { files } from './files.ts';
import { links } from './links.ts';
import { overlays } from './overlays.ts';
import { pixels } from './pixels.ts';
import { qrs } from './qrs.ts';
import { splash } from './splash.ts';
import { users } from './users.ts';
import { websites } from '../analytics/websites.ts';
import { apiKeys } from './api-keys.ts';
import { audit } from './audit.ts';
import { statsDays } from '../stats/stats-row.ts';
import { importJobs, importParts, importResults } from '../imports/job-rows.ts';
import { IDEMPOTENCY_SCHEMA } from '../idempotency/keys.ts';
import { webhooks } from './webhooks.ts';
import { deliveriesRow, eventsRow } from './outbox-rows.ts';
import { sessions } from './sessions.ts';

/** The resource table: every resource of both APIs, one row each. */
export const RESOURCES: readonly Resource[] = [users, links, qrs, pixels, campaigns, channels, bios, domains, overlays, splash, files, websites, apiKeys, audit, webhooks, eventsRow, deliveriesRow, statsDays, importJobs, importParts, importResults, sessions];

/** The store collections the table needs. */
export function collectionsOf(rows: readonly Resource[]): string[] {
  return [...new Set(rows.map((r) => r.collection))];
}

/** The collections exports carry (`export --all`, and what `import --all` takes): all but the transient ones (the event outbox). */
export function exportedCollections(rows: readonly Resource[]): string[] {
  return collectionsOf(rows.filter((r) => !r.transient));
}

/** Collections the store keeps beside the table's: no resource (no routes, no user export, left out of `export --all`). */
export const SERVICE_COLLECTIONS: readonly CollectionSchema[] = [IDEMPOTENCY_SCHEMA];

/** What the store keeps of each collection of the table (its indexes, unique or not), and the service collections. */
export function storeSchema(rows: readonly Resource[]): CollectionSchema[] {
  const table = collectionsOf(rows).map((name) => {
    const row = rows.find((r) => r.collection === name)!;
    const indexes = Object.entries(row.indexes ?? {}).map(([index, key]) => [index, { key: key as (r: StoredRecord) => string | null, unique: row.unique?.[index] !== undefined }]);
    return { name, indexes: Object.fromEntries(indexes) };
  });
  return [...table, ...SERVICE_COLLECTIONS];
}
