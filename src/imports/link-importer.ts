import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { aliasKey } from '../links/alias.ts';
import { subjectOf } from '../links/stats.ts';
import type { HookContext } from '../resources/define.ts';
import type { Prepared } from '../resources/define.ts';
import { domainHostname } from '../resources/domains.ts';
import { links } from '../resources/links.ts';
import { conflictAnswer, insertChecked, prepareCreate } from '../routes/crud.ts';
import type { CountsDelta, StoredRecord, Tx } from '../store/store.ts';
import { dayOf } from '../visits/visitor.ts';
import { ALREADY_IMPORTED, aliasTakenBy, rowResult } from './outcome.ts';
import type { RowResult } from './outcome.ts';
import type { ImportRow, SourceRow } from './row-values.ts';

/**
 * Rows per write transaction: each link insert is a savepoint on PostgreSQL, and a transaction past
 * 64 of them slows every other session's snapshots while it runs.
 */
export const BATCH_ROWS = 50;

/** The longest title the link API takes (its meta title); a longer one is cut, not refused. */
const MAX_TITLE = 200;

/** What a batch writes beside its links, in the same transaction (an import job's progress and report). */
export type BatchHook = (tx: Tx, results: readonly RowResult[]) => Promise<void>;

/** What makes two alias-less rows the same link to the link API (its create-or-return rule): the domain and the URL. */
const sameKey = (row: ImportRow) => `${row.domain ?? ''}\n${row.url}`;

/**
 * The rows in batches of at most `size`. A batch ends before an alias-less row whose URL an earlier
 * alias-less row of it has: the link API finds an identical link outside the write transaction,
 * so that row must come after the other's commit to be seen as the same link.
 */
export async function* batchesOf(rows: AsyncIterable<SourceRow>, size = BATCH_ROWS): AsyncGenerator<SourceRow[]> {
  let batch: SourceRow[] = [];
  let same = new Set<string>();
  for await (const r of rows) {
    const key = r.row && r.row.alias === undefined ? sameKey(r.row) : null;
    if (batch.length >= size || (key !== null && same.has(key))) {
      yield batch;
      batch = [];
      same = new Set();
    }
    batch.push(r);
    if (key !== null) same.add(key);
  }
  if (batch.length > 0) yield batch;
}

/**
 * Creates the links of an import file's rows for one user through the link API's own create path
 * (`prepareCreate` and `insertChecked`, as `POST /api/url/add`: validation, the user's domains,
 * reserved and taken aliases, URL checks), a batch per transaction, and says how each row ended.
 * The source's creation date becomes the link's date; its click total is added to the link's
 * statistics as that day's clicks (the import's day when the source has no date), in the same
 * transaction. A row whose alias and URL the user has already is skipped ("already imported"), so
 * a file imported twice creates nothing the second time. A dry run checks every row the same way
 * and stores no link; rows it would create are remembered, so a later row of the file that clashes
 * with one is reported as it would be.
 */
export class LinkImporter {
  /** Dry runs: what earlier rows would have created, by alias key and by identical-link key. */
  private readonly wouldAlias = new Map<string, { row: number; url: string }>();
  private readonly wouldSame = new Map<string, number>();
  /** The same, for the batch being written: kept once its transaction is through. */
  private readonly batchAlias = new Map<string, { row: number; url: string }>();
  private readonly batchSame = new Map<string, number>();
  /** Host name → the value of the create body's `domain` (the user's branded domain), or null for the main host. */
  private readonly domains = new Map<string, string | null>();

  constructor(
    private readonly ctx: HookContext,
    private readonly dryRun: boolean,
  ) {}

  /** Imports one batch of rows (`hook` writes beside them); the rows' results, in order. */
  async batch(rows: readonly SourceRow[], hook?: BatchHook): Promise<RowResult[]> {
    const results: RowResult[] = [];
    const ready: { at: number; source: SourceRow & { row: ImportRow }; prepared: Prepared }[] = [];
    for (const source of rows) {
      const at = results.push(refused(source, source.problem ?? '')) - 1;
      if (!source.row) continue;
      try {
        ready.push({ at, source: source as SourceRow & { row: ImportRow }, prepared: await prepareCreate(links, this.ctx, await this.bodyOf(source.row)) });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results[at] = refused(source, err.message);
      }
    }
    await this.ctx.store.transaction(async (tx) => {
      // A transaction run again (PostgreSQL retries one after a serialization failure) starts from what earlier batches left.
      this.batchAlias.clear();
      this.batchSame.clear();
      const clicks: CountsDelta[] = [];
      for (const { at, source, prepared } of ready) results[at] = await this.write(tx, source, prepared, clicks);
      // One write for the batch's click totals: per row, it was most of a row's statements on PostgreSQL.
      if (clicks.length > 0) await tx.addCounts(clicks, Infinity);
      await hook?.(tx, results);
    });
    for (const [k, v] of this.batchAlias) this.wouldAlias.set(k, v);
    for (const [k, v] of this.batchSame) this.wouldSame.set(k, v);
    return results;
  }

  /** The link API's create body of a row. */
  private async bodyOf(row: ImportRow): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = { url: row.url };
    if (row.alias !== undefined) body.custom = row.alias;
    if (row.title !== undefined) body.metatitle = row.title.length > MAX_TITLE ? `${row.title.slice(0, MAX_TITLE - 1)}…` : row.title;
    const domain = row.domain === undefined ? null : await this.domainOf(row.domain);
    if (domain !== null) body.domain = domain;
    return body;
  }

  /** The source's host as a branded domain of the user's, or null: a link of any other host (bit.ly, rebrand.ly) goes on the main host. */
  private async domainOf(host: string): Promise<string | null> {
    let known = this.domains.get(host);
    if (known === undefined) {
      const hostname = domainHostname(host);
      const domain = hostname === null ? undefined : await this.ctx.store.lookup('domains', 'hostname', hostname);
      known = domain?.userId === this.ctx.user.id ? host : null;
      this.domains.set(host, known);
    }
    return known;
  }

  /** Checks and (unless a dry run) stores one prepared row in `tx`; its click total joins `clicks`. */
  private async write(tx: Tx, source: SourceRow & { row: ImportRow }, prepared: Prepared, clicks: CountsDelta[]): Promise<RowResult> {
    const { row, n } = source;
    const base = { url: row.url, alias: row.alias };
    // The link API's create-or-return rule: an alias-less row identical to a link the user has is that link.
    if (prepared.existing) return rowResult(n, 'skipped', { ...base, id: prepared.existing.id, alias: String(prepared.existing.alias), message: ALREADY_IMPORTED });
    const domainId = (prepared.fields.domainId as number | null | undefined) ?? null;
    const key = row.alias === undefined ? `same:${sameKey(row)}` : aliasKey(domainId, row.alias);
    if (this.dryRun) {
      const earlier = this.earlier(row, key);
      if (earlier) return rowResult(n, 'skipped', { ...base, message: earlier });
    }
    const created = row.created ?? this.ctx.clock.now();
    let record: StoredRecord;
    try {
      record = await insertChecked(tx, links, this.ctx, { userId: this.ctx.user.id, date: formatDateTime(created), ...prepared.fields }, this.dryRun);
    } catch (err) {
      const answer = conflictAnswer(links, err) ?? err;
      if (!(answer instanceof ApiError)) throw err;
      const taken = row.alias === undefined ? undefined : await aliasTakenBy(tx, this.ctx.user.id, domainId, row.alias, row.url);
      return taken ? rowResult(n, 'skipped', { ...base, ...taken }) : rowResult(n, 'refused', { ...base, message: answer.message });
    }
    if (this.dryRun) {
      if (row.alias === undefined) this.batchSame.set(key, n);
      else this.batchAlias.set(key, { row: n, url: row.url });
      return rowResult(n, 'created', base);
    }
    if (row.clicks) clicks.push({ subject: subjectOf('link', record.id), day: dayOf(created), owner: this.ctx.user.id, counts: { clicks: row.clicks } });
    return rowResult(n, 'created', { ...base, id: record.id, alias: String(record.alias) });
  }

  /** In a dry run: why an earlier row of the file that would have been created makes this one a skip, if one does. */
  private earlier(row: ImportRow, key: string): string | undefined {
    if (row.alias === undefined) {
      const same = this.wouldSame.get(key) ?? this.batchSame.get(key);
      return same === undefined ? undefined : `${ALREADY_IMPORTED} (row ${same} of this file has this URL)`;
    }
    const other = this.wouldAlias.get(key) ?? this.batchAlias.get(key);
    if (!other) return undefined;
    return other.url === row.url ? `${ALREADY_IMPORTED} (row ${other.row} of this file has this alias and URL)` : `alias taken by row ${other.row} of this file`;
  }
}

/** A row refused before or by the link API, with its reason. */
function refused(source: SourceRow, message: string): RowResult {
  return rowResult(source.n, 'refused', { alias: source.alias, url: source.url, message });
}
