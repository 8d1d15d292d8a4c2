import type { Fixtures } from '../fixtures/prepare.ts';
import type { Resource, UserRecord } from '../resources/define.ts';
import { FILES_COLLECTION, STATS_COLLECTION } from '../store/store.ts';
import { SHORT_ALIAS_COLLECTIONS } from '../links/alias-taken.ts';
import { splitContent } from './file-contents.ts';
import type { DayCounts, StoredRecord, Store, Tx } from '../store/store.ts';
import type { Progress } from './progress.ts';
import { NO_PROGRESS } from './progress.ts';
import { isFirstOfDomain } from '../analytics/website-ownership.ts';
import { ownDomainKey } from '../analytics/websites.ts';
import { systemClock } from '../clock.ts';
import { newEvent } from '../events/event-types.ts';

/** Kinds of counter subject and the collection their ids belong to ('link:7' counts links 7). */
export const SUBJECT_KINDS: Readonly<Record<string, string>> = { link: 'links', qr: 'qrs', campaign: 'campaigns', website: 'websites', file: 'files' };

/** Fields that must be unique server-wide and may be changed on a clash: a suffix `-2`, `-3`... is added. */
const RENAMEABLE: Readonly<Record<string, string>> = { links: 'alias', qrs: 'alias', campaigns: 'slug', bios: 'alias', files: 'alias' };

/** Names unique per user: a clash with the target user's own gets ` (2)`, ` (3)`... */
const NAMED: Readonly<Record<string, string>> = { channels: 'name', campaigns: 'name' };

/** What an import did: records stored per collection, and what had to change or be left out. */
export interface ImportReport {
  imported: Record<string, number>;
  notes: string[];
}

/** Owned rows a user's export carries, in an order where every row comes after the rows it refers to; statistics last. */
export function importOrder(resources: readonly Resource[]): Resource[] {
  // Keys, the audit log and the event outbox never come with one user's export (export.ts, ownedCollections).
  const rows = resources.filter((r) => r.owned && !r.wholeStoreOnly && !r.transient);
  const names = new Set(rows.map((r) => r.collection));
  const out: Resource[] = [];
  const placed = new Set<string>([STATS_COLLECTION]);
  while (out.length < rows.length - (names.has(STATS_COLLECTION) ? 1 : 0)) {
    const next = rows.find(
      (r) => !placed.has(r.collection) && Object.values(r.references ?? {}).every((ref) => placed.has(ref.collection) || !names.has(ref.collection)),
    );
    if (!next) throw new Error('the resource table has a reference cycle');
    out.push(next);
    placed.add(next.collection);
  }
  const stats = rows.find((r) => r.collection === STATS_COLLECTION);
  return stats ? [...out, stats] : out;
}

/** A store lookup by every unique index of a row: the record `candidate` would clash with, if any. */
async function clashOf(tx: Tx, row: Resource, candidate: StoredRecord, resources: readonly Resource[]): Promise<StoredRecord | undefined> {
  for (const [index, keyOf] of Object.entries(row.indexes ?? {})) {
    // A plain index (a link's `same`, a website's `domain`) refuses nothing: taking it for a clash
    // renamed an alias for ever when the target already had an identical link.
    if (!row.unique?.[index]) continue;
    const key = keyOf(candidate);
    if (key === null) continue;
    // Links and files share `/<alias>`: an alias of either clashes with both.
    const shared = index === 'alias' && (SHORT_ALIAS_COLLECTIONS as readonly string[]).includes(row.collection);
    const collections = shared ? SHORT_ALIAS_COLLECTIONS.filter((c) => resources.some((r) => r.collection === c)) : [row.collection];
    for (const c of collections) {
      const other = await tx.lookup(c, index, key);
      if (other) return other;
    }
  }
  return undefined;
}

/**
 * Imports validated records into `target` in one transaction: every record gets a fresh id and
 * the target as owner; references between imported records (a link's campaign, pixels,
 * channels, domain, splash page, overlay; a QR code's channels; statistics subjects like
 * 'link:7') follow their records to the new ids. Clashes with what the server already holds are
 * resolved and reported: aliases and slugs get a suffix, a branded domain or website the target
 * already has is reused, a branded domain another user has is left out (its links move to the main
 * host), a website of a domain another website has is imported without receiving its events.
 * An `import.finished` event for the target ends the transaction.
 */
export async function importInto(store: Store, data: Fixtures, target: UserRecord, resources: readonly Resource[], progress: Progress = NO_PROGRESS): Promise<ImportReport> {
  const report: ImportReport = { imported: {}, notes: [] };
  // collection → old id → new id (null: left out, references to it are dropped)
  const ids = new Map<string, Map<number, number | null>>();
  const statsless = new Set<string>();
  await store.transaction(async (tx) => {
    for (const row of importOrder(resources)) {
      const map = new Map<number, number | null>();
      ids.set(row.collection, map);
      for (const r of data[row.collection] ?? []) {
        if (row.collection === STATS_COLLECTION) await importStats(tx, r, target, ids, statsless, report);
        else map.set(r.id, await importRecord(tx, { row, resources }, r, target, ids, statsless, report));
        progress.tick();
      }
    }
    // After the records' own events (link.created…, when the store appends them), in the same transaction.
    await tx.appendEvents([newEvent(target.id, 'import.finished', { source: 'export', imported: report.imported, notes: report.notes.slice(0, 100) }, systemClock)]);
  });
  progress.done();
  return report;
}

function remapReferences(row: Resource, record: StoredRecord, ids: Map<string, Map<number, number | null>>, report: ImportReport): void {
  for (const [field, ref] of Object.entries(row.references ?? {})) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    const map = ids.get(ref.collection);
    const newId = (old: unknown) => (typeof old === 'number' ? (map?.get(old) ?? null) : null);
    if (Array.isArray(value)) {
      record[field] = value.map(newId).filter((id): id is number => id !== null);
      if ((record[field] as number[]).length < value.length) report.notes.push(`${row.collection} ${record.id}: ${field} lost ids that were not imported`);
    } else {
      record[field] = newId(value);
      if (record[field] === null) report.notes.push(`${row.collection} ${record.id}: ${field} ${JSON.stringify(value)} was not imported; set to none`);
    }
  }
}

async function importRecord(
  tx: Tx,
  { row, resources }: { row: Resource; resources: readonly Resource[] },
  original: StoredRecord,
  target: UserRecord,
  ids: Map<string, Map<number, number | null>>,
  statsless: Set<string>,
  report: ImportReport,
): Promise<number | null> {
  const record: StoredRecord = { ...structuredClone(original), userId: target.id };
  remapReferences(row, record, ids, report);
  // A website joins its domain as a new one would: it receives the events only if it is the
  // domain's first, and a proof of ownership made elsewhere (another user, another server) stays there.
  if (row.collection === 'websites' && typeof record.domain === 'string') {
    record.receives = await isFirstOfDomain(tx, record.domain);
    record.verified_at = null;
    if (!record.receives && !(await tx.lookup(row.collection, 'ownDomain', ownDomainKey(target.id, record.domain)))) {
      report.notes.push(`websites ${original.id}: another website has ${record.domain}: imported, but it receives no events until its ownership is proven (POST /api/v1/websites/{id}/verify)`);
    }
  }
  const nameField = NAMED[row.collection];
  if (nameField && typeof record[nameField] === 'string') {
    const mine = await tx.find(row.collection, { owner: target.id });
    const taken = new Set(mine.items.map((r) => String(r[nameField]).toLowerCase()));
    const name = record[nameField] as string;
    for (let n = 2; taken.has(String(record[nameField]).toLowerCase()); n++) record[nameField] = `${name} (${n})`;
    if (record[nameField] !== name) report.notes.push(`${row.collection} ${original.id}: name "${name}" is taken; now "${String(record[nameField])}"`);
  }
  let clash = await clashOf(tx, row, record, resources);
  const field = RENAMEABLE[row.collection];
  if (clash && field && typeof record[field] === 'string') {
    const value = record[field] as string;
    for (let n = 2; clash; n++) {
      record[field] = `${value}-${n}`;
      clash = await clashOf(tx, row, record, resources);
    }
    report.notes.push(`${row.collection} ${original.id}: ${field} "${value}" is taken; now "${String(record[field])}"`);
  }
  if (clash) {
    // A branded domain can belong to one user only; a user has one website per domain.
    statsless.add(`${row.collection}:${original.id}`);
    const mine = clash.userId === target.id;
    const outcome = mine ? 'the user already has it: the existing one is used' : 'another user has it: left out';
    const consequence = row.collection === 'domains' ? (mine ? 'its links use it' : 'its links use the main host') : 'the statistics in the file are not imported';
    report.notes.push(`${row.collection} ${original.id}: ${outcome}; ${consequence}`);
    return mine ? clash.id : null;
  }
  const { record: stored, bytes } = row.collection === FILES_COLLECTION ? splitContent(record) : { record, bytes: undefined };
  const { id: _old, ...fields } = stored;
  report.imported[row.collection] = (report.imported[row.collection] ?? 0) + 1;
  const id = (await tx.insert(row.collection, fields)).id;
  if (bytes) await tx.putFileContent(id, bytes);
  return id;
}

async function importStats(
  tx: Tx,
  original: StoredRecord,
  target: UserRecord,
  ids: Map<string, Map<number, number | null>>,
  statsless: Set<string>,
  report: ImportReport,
): Promise<void> {
  const [kind, rawId] = String(original.subject).split(':');
  const collection = SUBJECT_KINDS[kind ?? ''];
  const oldId = Number(rawId);
  const newId = collection && !statsless.has(`${collection}:${oldId}`) ? ids.get(collection)?.get(oldId) : null;
  if (newId === null || newId === undefined) {
    if (!collection || !statsless.has(`${collection}:${oldId}`)) report.notes.push(`stats ${original.id}: subject "${String(original.subject)}" was not imported; left out`);
    return;
  }
  report.imported[STATS_COLLECTION] = (report.imported[STATS_COLLECTION] ?? 0) + 1;
  // No cap on labels: the file holds what was counted, already capped when it was.
  await tx.addCounts([{ subject: `${kind}:${newId}`, day: String(original.day), owner: target.id, counts: structuredClone(original.counts) as DayCounts }], Infinity);
}
