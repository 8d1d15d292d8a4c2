import { formatDateTime } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { aliasKey } from '../links/alias.ts';
import { mainHostnames } from '../links/main-host.ts';
import { subjectOf } from '../links/stats.ts';
import type { HookContext, Services } from '../resources/define.ts';
import { domainHostname } from '../resources/domains.ts';
import { links } from '../resources/links.ts';
import { createMany } from '../routes/create-many.ts';
import type { CountsDelta, StoredRecord, Tx } from '../store/store.ts';
import { dayOf } from '../visits/visitor.ts';
import { ALREADY_IMPORTED, aliasTakenBy, rowResult } from './outcome.ts';
import type { RowResult } from './outcome.ts';
import type { ImportRow, SourceRow } from './row-values.ts';

/**
 * Rows per write transaction: the link API's create path stores a batch as a bulk create does (its
 * reads batched, its links inserted together), and a transaction stays short for other writers.
 */
export const BATCH_ROWS = 100;

/** The longest title the link API takes (its meta title); a longer one is cut, not refused. */
const MAX_TITLE = 200;

/** What a batch writes beside its links, in the same transaction (an import job's progress and report). */
export type BatchHook = (tx: Tx, results: readonly RowResult[]) => Promise<void>;

/** The rows in batches of at most `size`. */
export async function* batchesOf(rows: AsyncIterable<SourceRow>, size = BATCH_ROWS): AsyncGenerator<SourceRow[]> {
  let batch: SourceRow[] = [];
  for await (const r of rows) {
    batch.push(r);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The message of the link API's refusal of a custom alias another link or file holds. */
const ALIAS_TAKEN = links.unique!.alias!().message;

/** A row on its way to the link API: where its result goes, the row, and the domain its body names (null: the main host). */
interface Pending {
  at: number;
  source: SourceRow & { row: ImportRow };
  domain: { host: string; id: number } | null;
}

/**
 * Creates the links of an import file's rows for one user through the link API's own create path
 * (createMany, as `POST /api/url/add` and the bulk create: validation, the user's domains, reserved
 * and taken aliases, URL checks, the create-or-return rule), a batch per transaction, and says how
 * each row ended. The source's creation date becomes the link's date; its click total is added to
 * the link's statistics as that day's clicks (the import's day when the source has no date), in
 * the same transaction. A row whose alias and URL the user has already is skipped ("already
 * imported"), so a file imported twice creates nothing the second time. A dry run checks every row
 * the same way and stores no link; rows it would create are remembered, so a later row of the file
 * that clashes with one is reported as it would be.
 */
export class LinkImporter {
  /** Dry runs: what earlier rows would have created, by alias key and by identical-link key. */
  private readonly wouldAlias = new Map<string, { row: number; url: string }>();
  private readonly wouldSame = new Map<string, number>();
  /** Host name → the user's branded domain of that name, or null for the main host. */
  private readonly domains = new Map<string, { host: string; id: number } | null>();

  constructor(
    private readonly s: Services,
    private readonly ctx: HookContext,
    private readonly dryRun: boolean,
  ) {}

  /** Imports one batch of rows (`hook` writes beside them, in their transaction); the rows' results, in order. */
  async batch(rows: readonly SourceRow[], hook?: BatchHook): Promise<RowResult[]> {
    const results: RowResult[] = rows.map((source) => refused(source, source.problem ?? ''));
    const pending: Pending[] = [];
    const bodies: Record<string, unknown>[] = [];
    const stamps: Record<string, unknown>[] = [];
    for (const [at, source] of rows.entries()) {
      if (!source.row) continue;
      const row = source.row;
      const domain = row.domain === undefined ? null : await this.domainOf(row.domain);
      pending.push({ at, source: source as Pending['source'], domain });
      const body: Record<string, unknown> = { url: row.url };
      if (row.alias !== undefined) body.custom = row.alias;
      if (row.title !== undefined) body.metatitle = row.title.length > MAX_TITLE ? `${row.title.slice(0, MAX_TITLE - 1)}…` : row.title;
      if (domain) body.domain = domain.host;
      bodies.push(body);
      stamps.push({ date: formatDateTime(row.created ?? this.s.clock.now()) });
    }
    // Dry runs: what this batch would create, kept once its transaction is through (a retried one starts afresh).
    let batchAlias = new Map<string, { row: number; url: string }>();
    let batchSame = new Map<string, number>();
    await createMany(this.s, links, this.ctx, bodies, false, {
      stamps,
      dryRun: this.dryRun,
      within: async (tx, out, fresh) => {
        batchAlias = new Map();
        batchSame = new Map();
        const clicks: CountsDelta[] = [];
        const rowOf = new Map<StoredRecord, number>();
        for (const [i, { at, source, domain }] of pending.entries()) {
          const r = out[i]!;
          const { row, n } = source;
          const base = { url: row.url, alias: row.alias };
          if (r instanceof ApiError) {
            const taken = r.message === ALIAS_TAKEN && row.alias !== undefined ? await aliasTakenBy(tx, this.ctx.user.id, domain?.id ?? null, row.alias, row.url) : undefined;
            results[at] = taken ? rowResult(n, 'skipped', { ...base, ...taken }) : rowResult(n, 'refused', { ...base, message: r.message });
            continue;
          }
          const id = r.id === 0 ? undefined : r.id;
          if (!fresh[i]) {
            // The create-or-return rule: an identical link of the user's (or of an earlier row of this batch).
            const earlier = rowOf.get(r);
            const message = this.dryRun && earlier !== undefined ? `${ALREADY_IMPORTED} (row ${earlier} of this file has this URL)` : ALREADY_IMPORTED;
            results[at] = rowResult(n, 'skipped', { ...base, id, alias: this.dryRun && id === undefined ? row.alias : String(r.alias), message });
            continue;
          }
          rowOf.set(r, n);
          if (this.dryRun) {
            const key = row.alias === undefined ? `${domain?.id ?? 0}\n${row.url}` : aliasKey(domain?.id ?? null, row.alias);
            const earlier = this.earlier(row, key, batchAlias, batchSame);
            if (earlier) {
              results[at] = rowResult(n, 'skipped', { ...base, message: earlier });
              continue;
            }
            if (row.alias === undefined) batchSame.set(key, n);
            else batchAlias.set(key, { row: n, url: row.url });
            results[at] = rowResult(n, 'created', base);
            continue;
          }
          results[at] = rowResult(n, 'created', { ...base, id, alias: String(r.alias) });
          if (row.clicks) clicks.push({ subject: subjectOf('link', r.id), day: dayOf(row.created ?? this.s.clock.now()), owner: this.ctx.user.id, counts: { clicks: row.clicks } });
        }
        // One write for the batch's click totals.
        if (clicks.length > 0) await tx.addCounts(clicks, Infinity);
        await hook?.(tx, results);
      },
    });
    for (const [k, v] of batchAlias) this.wouldAlias.set(k, v);
    for (const [k, v] of batchSame) this.wouldSame.set(k, v);
    return results;
  }

  /** The user's branded domain named `host`, or null: a link of any other host (bit.ly, rebrand.ly) goes on the main host. */
  private async domainOf(host: string): Promise<{ host: string; id: number } | null> {
    let known = this.domains.get(host);
    if (known === undefined) {
      const hostname = domainHostname(host);
      const domain = hostname === null || mainHostnames(this.s.config).has(hostname) ? undefined : await this.s.store.lookup('domains', 'hostname', hostname);
      known = domain?.userId === this.ctx.user.id ? { host, id: domain.id } : null;
      this.domains.set(host, known);
    }
    return known;
  }

  /** In a dry run: why an earlier row of the file that would have been created makes this one a skip, if one does. */
  private earlier(row: ImportRow, key: string, batchAlias: Map<string, { row: number; url: string }>, batchSame: Map<string, number>): string | undefined {
    if (row.alias === undefined) {
      const same = this.wouldSame.get(key) ?? batchSame.get(key);
      return same === undefined ? undefined : `${ALREADY_IMPORTED} (row ${same} of this file has this URL)`;
    }
    const other = this.wouldAlias.get(key) ?? batchAlias.get(key);
    if (!other) return undefined;
    return other.url === row.url ? `${ALREADY_IMPORTED} (row ${other.row} of this file has this alias and URL)` : `alias taken by row ${other.row} of this file`;
  }
}

/** A row refused before the link API saw it, with its reason. */
function refused(source: SourceRow, message: string): RowResult {
  return rowResult(source.n, 'refused', { alias: source.alias, url: source.url, message });
}
