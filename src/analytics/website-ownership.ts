import type { StoreReads, StoredRecord, Tx } from '../store/store.ts';

/**
 * Who receives a domain's events. Several users may track one domain, each with a website of their
 * own; exactly one of them (or none) receives its events: the domain's first website, until a user
 * proves owning the domain (a DNS TXT record or a token file, src/ownership/) and takes the events
 * over. The latest proof wins; a website that lost them keeps its statistics and receives nothing
 * new. A deleted receiving website hands its events to nobody: the others must prove ownership
 * (handing them to the next one would give a stranger's website the owner's visitors).
 */

/** The fields of a website that ownership reads and writes. */
type Owned = StoredRecord & { domain: string; receives?: boolean; verified_at?: string | null };

/** The unique index whose key is the domain of the website receiving its events. */
export const RECEIVING_INDEX = 'receiving';

/** Whether `domain` has no website yet, so that a new one receives its events. */
export async function isFirstOfDomain(reads: StoreReads, domain: string): Promise<boolean> {
  return (await reads.lookup('websites', 'domain', domain)) === undefined;
}

/** The website that receives `domain`'s events (stored spelling, without `www.`), or undefined. */
export function receivingWebsite<W extends Owned>(reads: StoreReads, domain: string): Promise<W | undefined> {
  return reads.lookup<W>('websites', RECEIVING_INDEX, domain);
}

/**
 * Inside a write: makes the website `id` the one receiving its domain's events, verified at `now`,
 * and takes them from the website that had them (its `verified_at` is cleared: the proof is no
 * longer its). Undefined when the website is gone.
 */
export async function takeOverDomain<W extends Owned>(tx: Tx, id: number, now: string): Promise<W | undefined> {
  const website = await tx.getForUpdate<W>('websites', id);
  if (!website) return undefined;
  // The holder is locked, then read again: another proof may have taken the events from it while
  // this one waited for the lock, and then that one holds them. Proofs racing for one domain so
  // take their turns on its holder's row, none refused by the receiving index.
  // Bounded: past it the update below meets the index, and the write is run again (transact's retryOn).
  for (let turn = 0, holder = await receivingWebsite<W>(tx, website.domain); holder && holder.id !== website.id && turn < 16; turn++) {
    const locked = await tx.getForUpdate<W>('websites', holder.id);
    if (locked && locked.receives !== false && locked.domain === website.domain) {
      await tx.update<W>('websites', locked.id, { receives: false, verified_at: null } as Partial<W>);
      break;
    }
    holder = await receivingWebsite<W>(tx, website.domain);
  }
  return tx.update<W>('websites', website.id, { receives: true, verified_at: now } as Partial<W>);
}
