import { isIP } from 'node:net';
import { isPublicAddress } from '../qr/public-address.ts';

/** The host of a URL as an address or a name, without IPv6 brackets, lowercase. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Why a webhook may not be sent to `url` whatever its DNS says, or null: a host written as a
 * private, loopback or otherwise non-public address, or a name of this machine (`localhost`).
 * A name that resolves to such an address is refused at each delivery, where it is resolved.
 */
export function refusedTarget(url: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  const host = hostOf(new URL(url));
  // `localhost.` is the same name written absolute (the root's dot; the resolver takes more than one too).
  const name = host.replace(/\.+$/, '');
  const local = name === 'localhost' || name.endsWith('.localhost');
  if (!local && (isIP(host) === 0 || isPublicAddress(host))) return null;
  return `Invalid url: ${host} is a private or loopback address; webhooks go to public addresses only (WEBHOOK_PRIVATE_TARGETS=on allows private ones).`;
}
