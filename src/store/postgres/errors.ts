import { parseDatabaseUrl } from '../../database-url.ts';
import { ConflictError, StoreUnavailableError } from '../store.ts';

// SQLSTATEs and socket errors that mean "the database is not there", not "the request was wrong".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  '57P01', // admin_shutdown (pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '57014', // query_canceled (statement_timeout)
  '53300', // too_many_connections
  '3D000', // the database does not exist
]);

// node-postgres reports lost connections and its own timeouts without a code.
const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Query read timeout/i, /connection timeout/i, /Client has encountered a connection error/i, /not queryable/i];

/** The error's SQLSTATE or socket code, if any. */
export function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` says the database cannot be reached or used right now (the client must be dropped). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const code = codeOf(err);
  // 08P01 (protocol violation) is a bug of ours, not an outage.
  if (code && (UNAVAILABLE_CODES.has(code) || (code.startsWith('08') && code !== '08P01') || code.startsWith('28'))) return true;
  const message = err instanceof Error ? err.message : '';
  return !code && UNAVAILABLE_MESSAGES.some((re) => re.test(message));
}

/**
 * Whether `err` is a wait that ran out (statement timeout, no answer within the query timeout, no
 * connection within the connect timeout): the database is slow or silent, and trying again on a
 * fresh connection would only add another wait to the request's.
 */
export function isTimeout(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return err.timedOut;
  if (codeOf(err) === '57014') return true;
  return !codeOf(err) && err instanceof Error && /timeout/i.test(err.message);
}

/** Whether `err` says the connection or the database is gone (unavailable, and not merely a wait that ran out). */
export function isLost(err: unknown): boolean {
  return isUnavailable(err) && !(err instanceof StoreUnavailableError ? err.timedOut : isTimeout(err));
}

/** Whether running the whole transaction again may succeed (serialization failure, deadlock). */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40001' || code === '40P01';
}

/** Where a database is, for messages: host:port/database, never the user's password. */
export function describeUrl(url: string): string {
  const parsed = parseDatabaseUrl(url);
  if (!parsed) return '(an unparsable database URL)';
  const u = parsed.url;
  try {
    const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || u.searchParams.get('dbname') || '(default database)';
    return `${parsed.host || 'localhost'}:${u.port || u.searchParams.get('port') || '5432'}/${db}`;
  } catch {
    return '(an unparsable database URL)';
  }
}

/** Why the database is unavailable in a few words: a code, never SQL, parameters or credentials. */
function reasonOf(err: unknown): string {
  const code = codeOf(err);
  if (code === '57014') return 'a statement timed out';
  if (code === '57P01' || code === '57P02') return 'the connection was terminated by the server';
  if (code?.startsWith('28')) return 'authentication failed';
  if (code === '3D000') return 'the database does not exist';
  if (code) return code;
  const message = err instanceof Error ? err.message : '';
  if (/timeout/i.test(message)) return 'timed out';
  if (/terminated/i.test(message)) return 'the connection was lost';
  return 'connection failed';
}

/** A StoreUnavailableError for `err`, naming where the database is and why, safe to print. */
export function unavailable(err: unknown, where: string): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err;
  return new StoreUnavailableError(`the PostgreSQL database at ${where} is unavailable (${reasonOf(err)})`, isTimeout(err));
}

/** The (collection, index) a unique constraint guards, by constraint name. */
export type ConstraintMap = ReadonlyMap<string, { collection: string; index: string }>;

/**
 * What callers see of a PostgreSQL error: ConflictError for a unique index, StoreUnavailableError
 * for a database that is down; anything else as it came (a bug of ours, never a user's input).
 */
export function storeError(err: unknown, where: string, constraints: ConstraintMap): unknown {
  if (codeOf(err) === '23505') {
    const name = (err as { constraint?: string }).constraint;
    const owner = name === undefined ? undefined : constraints.get(name);
    if (owner) return new ConflictError(owner.collection, owner.index);
  }
  if (isUnavailable(err)) return unavailable(err, where);
  return err;
}
