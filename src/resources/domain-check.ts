import { lookup } from 'node:dns/promises';
import { ApiError } from '../errors.ts';

/** Resolves a host name to its IP addresses. */
export type Resolve = (host: string) => Promise<string[]>;

/** The system resolver: what clients of this host would get (/etc/hosts included). */
export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Rejects after `ms` unless `work` settles first. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Throws a 400 unless `host` resolves to one of `serverIps` (the reference: a branded domain must
 * point to the server before it is added). Only used when DOMAIN_CHECK=dns.
 */
export async function checkPointsHere(host: string, serverIps: readonly string[], resolve: Resolve = systemResolve, timeoutMs = 5000): Promise<void> {
  const expected = serverIps.join(' or ');
  let addresses: string[];
  try {
    addresses = await within(resolve(host), timeoutMs);
  } catch {
    throw new ApiError(400, `The domain ${host} could not be resolved. Point it to this server (${expected}) and try again.`);
  }
  if (!addresses.some((a) => serverIps.includes(a))) {
    const got = addresses.length ? addresses.join(', ') : 'no address';
    throw new ApiError(400, `The domain ${host} does not point to this server: it resolves to ${got}, not ${expected}.`);
  }
}
