/**
 * One setting's value from its text: the kinds of value the settings take (config.ts's table), each
 * checked, and the error that names the setting. A leaf of config.ts, which reads the environment.
 */
import { isIP } from 'node:net';
import { parseDatabaseUrl } from './database-url.ts';
import { trustedRanges } from './http/trust-proxy.ts';

/** Levels the logger understands, most verbose first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How a branded domain is checked before it is added: not at all, by resolving it to SERVER_IP, or by the user's DNS TXT record. */
export const DOMAIN_CHECKS = ['off', 'dns', 'txt'] as const;
export type DomainCheck = (typeof DOMAIN_CHECKS)[number];

/** What a rate limit does while its shared counts (Redis, PostgreSQL) cannot be reached: let requests pass, or refuse them with 503. */
export const LIMIT_ON_ERROR = ['open', 'closed'] as const;
export type LimitOnError = (typeof LIMIT_ON_ERROR)[number];

/** The HTTP status of link-management API errors: meaningful ones (400, 401, 404, …), or always 200 as the real product answers. */
export type ErrorStatus = 'real' | 200;

/** Raised when a setting has an invalid value; the message names the setting. */
export class ConfigError extends Error {}

/** The kinds of value a setting takes. */
export type Kind = 'database-urls' | 'seconds' | 'workers' | 'threads' | 'connections' | 'redis-url' | 'on-error' | 'port' | 'int' | 'bool' | 'string' | 'url' | 'level' | 'key' | 'redirect' | 'error-status' | 'domain-check' | 'ips' | 'hosts' | 'trust-proxy' | 'database-url' | 'identifier';

/** What parseValue needs of a setting: its variable (named in errors) and its kind. */
export interface ValueSpec {
  env: string;
  kind: Kind;
}

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no', '']);

/** The value of `raw` for setting `s`, or a ConfigError naming it. */
export function parseValue(s: ValueSpec, raw: string): unknown {
  const bad = (why: string) => new ConfigError(`Invalid ${s.env}: ${JSON.stringify(raw)} ${why}`);
  // `auto`, or a whole number from 1 to `max`.
  const countOrAuto = (max: number, what: string) => {
    if (raw === 'auto') return raw;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw bad(`is not a number of ${what} (1-${max}) or auto`);
    return Number(raw);
  };
  switch (s.kind) {
    case 'seconds': {
      if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) < 0.1 || Number(raw) > 3600) throw bad('is not a number of seconds from 0.1 to 3600');
      return Number(raw);
    }
    case 'workers':
      return countOrAuto(1024, 'workers');
    case 'threads':
      return countOrAuto(256, 'threads');
    case 'connections':
      return countOrAuto(1_000_000, 'connections');
    case 'on-error': {
      if (!(LIMIT_ON_ERROR as readonly string[]).includes(raw)) throw bad(`is not one of ${LIMIT_ON_ERROR.join(', ')}`);
      return raw;
    }
    case 'redis-url':
      return serviceUrl(s, raw, ['redis:', 'rediss:'], 'redis://[user:password@]host:port[/db] (or rediss://)');
    case 'port': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n > 65535) throw bad('is not a port number (0-65535)');
      return n;
    }
    case 'int': {
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw bad('is not a non-negative integer');
      return Number(raw);
    }
    case 'bool': {
      const lower = raw.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw bad('is not on/off');
    }
    case 'level': {
      if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw bad(`is not one of ${LOG_LEVELS.join(', ')}`);
      return raw;
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw bad('is not a URL');
      }
      if (!['http:', 'https:'].includes(url.protocol)) throw bad('must start with http:// or https://');
      return url.origin + url.pathname.replace(/\/+$/, '');
    }
    case 'domain-check': {
      if (!(DOMAIN_CHECKS as readonly string[]).includes(raw)) throw bad(`is not one of ${DOMAIN_CHECKS.join(', ')}`);
      return raw;
    }
    case 'ips': {
      const ips = raw.split(',').map((ip) => ip.trim()).filter((ip) => ip !== '');
      if (ips.some((ip) => isIP(ip) === 0)) throw bad('is not a comma-separated list of IP addresses');
      // One spelling per address, the one the resolver answers with ("2001:db8::1", not "2001:0db8:0::1").
      return ips.map((ip) => (isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip));
    }
    case 'hosts': {
      const hosts = raw.split(',').map((h) => h.trim()).filter((h) => h !== '');
      return hosts.map((h) => {
        try {
          const url = new URL(h.includes('://') ? h : `http://${h}`);
          if (url.hostname && (url.pathname === '/' || url.pathname === '') && !url.search && !url.username) return url.hostname;
        } catch {
          // reported below
        }
        throw bad('is not a comma-separated list of host names');
      });
    }
    case 'trust-proxy': {
      const lower = raw.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      if (/^\d+$/.test(raw)) {
        if (Number(raw) > 100) throw bad('is more proxy hops than any real chain (at most 100)');
        return Number(raw);
      }
      const list = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
      if (list.length === 0 || trustedRanges(list) === null) throw bad('is not on/off, a number of proxy hops, or a comma-separated list of proxy IP addresses or CIDR ranges');
      return list;
    }
    case 'redirect': {
      if (!['301', '302', '307', '308'].includes(raw)) throw bad('is not one of 301, 302, 307, 308');
      return Number(raw);
    }
    case 'error-status': {
      if (raw === 'real') return 'real';
      if (raw === '200') return 200;
      throw bad('is not real or 200');
    }
    case 'key':
      // Never echo a key back, even a bad one.
      if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new ConfigError(`Invalid ${s.env}: must be 16 to 256 printable characters without spaces`);
      return raw;
    case 'database-url':
      // A Unix socket is named by ?host=/its/directory, with nothing between // and / (libpq's form).
      return serviceUrl(s, raw, ['postgres:', 'postgresql:'], 'postgres://user:password@host:port/database (or postgres://user@/database?host=/socket/directory)', parseDatabaseUrl);
    case 'database-urls':
      // One URL may name several hosts (libpq: postgres://h1,h2/db): a list is split only before a scheme.
      return raw
        .split(/,\s*(?=[a-z][a-z0-9+.-]*:\/\/)/i)
        .map((url) => url.trim())
        .filter((url) => url !== '')
        .map((url) => serviceUrl(s, url, ['postgres:', 'postgresql:'], 'comma-separated postgres://user:password@host:port/database URLs', parseDatabaseUrl));
    case 'identifier':
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw bad('is not a plain lowercase SQL name (letters, digits, underscores)');
      return raw;
    case 'string':
      return raw;
  }
}

/** A service's URL with one of `protocols` and a host; the error never echoes it back, as it may hold the password. */
function serviceUrl(s: ValueSpec, raw: string, protocols: readonly string[], shape: string, parse = plainUrl): string {
  const parsed = parse(raw);
  if (!parsed || !protocols.includes(parsed.url.protocol) || !parsed.host) throw new ConfigError(`Invalid ${s.env}: must be ${shape}`);
  return raw;
}

function plainUrl(raw: string): { url: URL; host: string } | null {
  try {
    const url = new URL(raw);
    return { url, host: url.hostname };
  } catch {
    return null;
  }
}
