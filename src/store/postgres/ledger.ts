import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { LedgerState } from '../store.ts';
import type { Db } from './reads.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The kept visitor ledger, or null. The bits are gzipped, as in the file store: a quiet day's 16 MiB are nearly all zeros. */
export async function loadLedgerIn(db: Db): Promise<LedgerState | null> {
  const { rows } = await db<{ day: string; salt: string; bits: Buffer | null }>('SELECT day, salt, bits FROM visitor_ledger WHERE id = 1');
  const row = rows[0];
  if (!row) return null;
  const bits = row.bits ? await gunzipAsync(row.bits) : null;
  return { day: row.day, salt: row.salt, bits: bits && bits.length > 0 ? new Uint8Array(bits) : null };
}

/** Keeps the ledger (one row, replaced); compression runs off the event loop. */
export async function saveLedgerIn(db: Db, state: LedgerState): Promise<void> {
  const bits = state.bits && state.bits.length > 0 ? await gzipAsync(state.bits, { level: 1 }) : null;
  await db(
    `INSERT INTO visitor_ledger (id, day, salt, bits) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET day = excluded.day, salt = excluded.salt, bits = excluded.bits`,
    [state.day, state.salt, bits],
  );
}
