import { isIP } from 'node:net';
import type { Config } from '../config.ts';

// The main host names of a configuration, remembered per BASE_URL (it is set once the port is known).
let cached: { baseUrl: string; reserved: readonly string[]; names: ReadonlySet<string> } | null = null;

/** The host names (lowercase, no port) that are this server's own: BASE_URL's and RESERVED_DOMAINS. */
export function mainHostnames(config: Pick<Config, 'baseUrl' | 'reservedDomains'>): ReadonlySet<string> {
  if (cached?.baseUrl !== config.baseUrl || cached.reserved !== config.reservedDomains) {
    cached = { baseUrl: config.baseUrl, reserved: config.reservedDomains, names: new Set([new URL(config.baseUrl).hostname, ...config.reservedDomains]) };
  }
  return cached.names;
}

/**
 * A `Host` header value as the server compares it: lowercase, and without the trailing dot of a
 * fully qualified name (`go.example.com.:8080` is `go.example.com:8080`), which names the same host.
 */
export function requestHostOf(hostHeader: string): string {
  return hostHeader.toLowerCase().replace(/\.(?=(?::\d*)?$)/, '');
}

/** The host name of a `Host` header value (lowercase, without the port or a trailing dot; IPv6 keeps its brackets as URLs write them). */
export function hostnameOf(hostHeader: string): string {
  return requestHostOf(hostHeader).replace(/:\d*$/, '');
}

/** Whether a request's `Host` names this server itself, where main-host aliases win over any branded domain. */
export function isMainHost(config: Pick<Config, 'baseUrl' | 'reservedDomains'>, hostHeader: string): boolean {
  return mainHostnames(config).has(hostnameOf(hostHeader));
}

/** Why a host name cannot be a branded domain: the configured name it is, or is under; null when none refuses it. */
export interface RefusedHost {
  /** The configured name (BASE_URL's host, a RESERVED_DOMAINS or REFUSED_DOMAINS name). */
  name: string;
  /** Whether that name is this server's own (BASE_URL, RESERVED_DOMAINS) rather than one refused by REFUSED_DOMAINS. */
  own: boolean;
}

/**
 * The configured name that refuses `hostname` as a branded domain: the server's own names and the
 * REFUSED_DOMAINS names, each with every subdomain (`evil.sho.rt` is under `sho.rt`). An IP
 * address has no subdomains: it refuses only itself.
 */
export function refusingName(config: Pick<Config, 'baseUrl' | 'reservedDomains' | 'refusedDomains'>, hostname: string): RefusedHost | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const under = (name: string) => {
    const plain = name.toLowerCase().replace(/\.$/, '');
    return host === plain || (!isIP(plain.replace(/^\[|\]$/g, '')) && host.endsWith(`.${plain}`));
  };
  for (const name of mainHostnames(config)) if (under(name)) return { name, own: true };
  for (const name of config.refusedDomains) if (under(name)) return { name, own: false };
  return null;
}
