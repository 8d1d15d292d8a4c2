import pg from 'pg';
import { KEEPALIVE_DELAY_MS } from '../../live-connections.ts';
import type { Logger } from '../../log.ts';
import { decodeJson } from './text-codec.ts';

/** How every connection of the store is made: bounded waits, its own schema, a name to find it by. */
export interface ConnectionSettings {
  url: string;
  /** The PostgreSQL schema the tables live in (`search_path`). */
  schema: string;
  /** Shown in pg_stat_activity, so an operator (or a test) can tell our sessions apart. */
  applicationName: string;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

// Schema names go into a connection option, not a query parameter: only plain identifiers.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Throws unless `schema` is a plain lowercase identifier. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}: lowercase letters, digits and _ only`);
  return schema;
}

// ids and counts are bigint and sums numeric: JavaScript numbers hold every value we make (< 2^53).
// jsonb undoes the text codec's escapes. Dates stay the 'YYYY-MM-DD' text the rest of the server uses, never a local-time Date.
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1082) return (value: string) => value;
    if (oid === 3802 || oid === 114) return decodeJson;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** The client's bound on one answer: the server's statement timeout and a second (a query whose answer is lost still ends). */
export function answerTimeout(s: ConnectionSettings): number {
  return s.statementTimeoutMs + 1000;
}

/**
 * A connection URL without its `options` parameter, and that parameter's server settings
 * (`?options=-c%20statement_timeout%3D5000`): node-postgres lets the URL's options replace the
 * client's, which would drop the store's search_path and put its tables in another schema.
 */
export function urlOptions(url: string): { url: string; options: string } {
  const at = url.indexOf('?');
  if (at < 0) return { url, options: '' };
  // The other parameters are kept as written (a socket's `host=/run/postgresql` stays unencoded).
  const kept: string[] = [];
  let options = '';
  for (const part of url.slice(at + 1).split('&')) {
    const [name = '', value = ''] = part.split(/=(.*)/s);
    if (decodeParam(name) === 'options') options = decodeParam(value).trim();
    else kept.push(part);
  }
  return { url: kept.length > 0 ? `${url.slice(0, at)}?${kept.join('&')}` : url.slice(0, at), options };
}

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The parameters of one connection (pool or single client). */
export function clientConfig(s: ConnectionSettings): pg.ClientConfig {
  // The URL's own server settings first, the store's schema last (it wins over a search_path there).
  const { url, options } = urlOptions(s.url);
  return {
    connectionString: url,
    application_name: s.applicationName,
    connectionTimeoutMillis: s.connectTimeoutMs,
    statement_timeout: s.statementTimeoutMs,
    // The server's own bound a little past ours: a query whose answer is lost still ends.
    query_timeout: answerTimeout(s),
    idle_in_transaction_session_timeout: Math.max(s.statementTimeoutMs * 4, 10_000),
    options: `${options ? `${options} ` : ''}-c search_path=${checkSchemaName(s.schema)}`,
    types: TYPES,
    // The system notices a peer that vanished only after these probes; the pings of live-pool.ts and change-feed.ts notice sooner.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

/**
 * A pool whose every wait is bounded and whose broken idle connections (a restarted or terminated
 * server) are logged (or told to `onIdleError`) and dropped, never crash the process: the next query opens a fresh one.
 */
export function createPool(s: ConnectionSettings, size: number, log: Logger, onIdleError?: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(s), max: size, idleTimeoutMillis: 10_000 });
  pool.on('error', onIdleError ?? ((err) => log.warn('an idle PostgreSQL connection failed and was dropped', { error: err.message })));
  return pool;
}
