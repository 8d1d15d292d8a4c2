import { aliasKey } from '../links/alias.ts';
import type { Tx } from '../store/store.ts';

/** How one row of an import ended: a link created (or, in a dry run, that would be), a row skipped, or one the link API refused. */
export type Outcome = 'created' | 'skipped' | 'refused';

/** One row of an import's report. */
export interface RowResult {
  /** The row's number among the file's data rows, from 1. */
  row: number;
  outcome: Outcome;
  /** The link created, or the one that made the row a skip (absent in a dry run's creations and for another user's). */
  id?: number;
  alias?: string;
  url?: string;
  /** Why it was skipped or refused (the link API's own message for a refusal). */
  message?: string;
}

/** A row's result with its fields in one order (row, outcome, id, alias, url, message), the absent ones left out. */
export function rowResult(row: number, outcome: Outcome, fields: Omit<RowResult, 'row' | 'outcome'>): RowResult {
  const out: RowResult = { row, outcome };
  if (fields.id !== undefined) out.id = fields.id;
  if (fields.alias !== undefined) out.alias = fields.alias;
  if (fields.url !== undefined) out.url = fields.url;
  if (fields.message !== undefined) out.message = fields.message;
  return out;
}

/** The message of a row whose link is there already (a second run of a file). */
export const ALREADY_IMPORTED = 'already imported';

/** Counts of a report's outcomes. */
export interface OutcomeCounts {
  created: number;
  skipped: number;
  refused: number;
}

/** Adds `results` to `counts` in place. */
export function countOutcomes(counts: OutcomeCounts, results: readonly RowResult[]): OutcomeCounts {
  for (const r of results) counts[r.outcome]++;
  return counts;
}

/**
 * Why a row's alias is taken, read in `tx`: the user's own link with the same URL (already
 * imported), the user's link or file of another URL (named, so they can look), or another user's
 * link or file (not named: nothing of another user is told). Undefined when nothing holds it now.
 */
export async function aliasTakenBy(tx: Tx, userId: number, domainId: number | null, alias: string, url: string): Promise<Pick<RowResult, 'id' | 'message'> | undefined> {
  const key = aliasKey(domainId, alias);
  const link = await tx.lookup<{ id: number; userId?: number; url?: string }>('links', 'alias', key);
  if (link) {
    if (link.userId !== userId) return { message: "alias taken by another user's link" };
    if (link.url === url) return { id: link.id, message: ALREADY_IMPORTED };
    return { id: link.id, message: `alias taken by your link ${link.id} to ${String(link.url)}` };
  }
  const file = await tx.lookup<{ id: number; userId?: number }>('files', 'alias', key);
  if (file) return file.userId === userId ? { id: file.id, message: `alias taken by your file ${file.id}` } : { message: "alias taken by another user's file" };
  return undefined;
}
