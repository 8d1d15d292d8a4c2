import { lookup } from 'node:dns/promises';
import { ApiError } from '../errors.ts';
import type { OwnershipProofs } from '../ownership/proofs.ts';
import { within } from '../ownership/within.ts';

/** Resolves a host name to its IP addresses. */
export type Resolve = (host: string) => Promise<string[]>;

/** The system resolver: what clients of this host would get (/etc/hosts included). */
export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

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

/**
 * Throws a 400 unless the user's TXT record is published at `_shortlink.<host>` (DOMAIN_CHECK=txt):
 * the message names the record, so the user learns what to publish from the refusal itself.
 */
export async function checkTxtProof(host: string, user: { id: number; registered?: unknown }, proofs: OwnershipProofs): Promise<void> {
  const record = await proofs.txtRecord(host, user);
  const outcome = await proofs.checkTxt(record);
  if (outcome === 'proven') return;
  const how = `publish a DNS TXT record named ${record.name} with the value ${record.value}, then try again`;
  if (outcome === 'unreachable') throw new ApiError(400, `The TXT records of ${record.name} could not be read. To prove that you own ${host}, ${how}.`);
  throw new ApiError(400, `Prove that you own ${host} first: ${how} (a new record may take a few minutes to be seen).`);
}
