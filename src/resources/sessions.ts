import { ApiError } from '../errors.ts';
import type { StoredRecord } from '../store/store.ts';
import { defineResource } from './define.ts';

/** The collection of dashboard sessions. */
export const SESSIONS = 'sessions';

/** A dashboard session as stored: never the cookie's value, only its hash. */
export interface SessionRecord extends StoredRecord {
  userId: number;
  /** SHA-256 (base64url) of the cookie's value. */
  tokenHash: string;
  /** When it was made, ISO 8601. */
  created: string;
  /** When it ends, epoch ms. */
  expires: number;
  /** The scoped key it was opened with (its scopes bound the session); null: a password, a sign-in link or the account key. */
  keyId: number | null;
  /** How it was opened, for the account page. */
  method: 'password' | 'key' | 'link';
  /** The browser's User-Agent (cut to 200 characters) and address, for the account page. */
  agent: string;
  ip: string;
}

/**
 * The dashboard's sessions as a row without routes: owned (deleting a user deletes them) and
 * transient (no export carries them, as none carries the event outbox: an import signs everyone out,
 * as a restart does with a store of one process). The dashboard reads and writes them (src/dashboard/sessions.ts).
 */
export const sessions = defineResource<Record<string, never>, SessionRecord>({
  name: 'session',
  collection: SESSIONS,
  api: 'link',
  owned: true,
  extension: true,
  transient: true,
  fields: {},
  paths: {},
  listKey: 'sessions',
  indexes: { tokenHash: (r) => r.tokenHash },
  unique: { tokenHash: () => new ApiError(500, 'Please try again.') },
  messages: { notFound: 'Session does not exist.', updated: '', deleted: '' },
  example: () => ({}),
  entry: (r) => ({ id: r.id, created: r.created, expires: new Date(r.expires).toISOString(), method: r.method }),
});
