import type { StoredRecord } from '../store/store.ts';

/** The collection of the scoped API keys users make beside their account key. */
export const API_KEYS = 'api_keys';

/** A scoped API key as stored: its secret only as a hash, never the key itself. */
export interface ApiKeyRecord extends StoredRecord {
  userId: number;
  name: string;
  /** What the key may do (src/auth/scopes.ts), in the order of SCOPES. */
  scopes: string[];
  /** When the key stops working, `YYYY-MM-DD HH:MM:SS` UTC; null: never. */
  expires: string | null;
  /** Addresses and CIDR ranges the key may be used from; empty: anywhere. */
  ips: string[];
  /** SHA-256 of the key, as the account key's `keyHash`. */
  keyHash: string;
  /** The key's last four characters, so its owner can tell keys apart. */
  hint: string;
  /** When it was made, `YYYY-MM-DD HH:MM:SS` UTC. */
  date: string;
  /** When it last authenticated a request, to the minute (key-uses.ts); null: never. */
  lastUsed: string | null;
}
