import { domainToASCII } from 'node:url';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

// "www.example.com" → "example.com", but "www.com" is a domain of its own and is kept.
function withoutWww(host: string): string {
  return host.startsWith('www.') && host.indexOf('.', 4) !== -1 ? host.slice(4) : host;
}

function isHostName(host: string): boolean {
  if (host.length > 255) return false;
  const labels = host.split('.');
  const tld = labels[labels.length - 1] ?? '';
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && TLD.test(tld);
}

// Where a site is tried out before it goes live: the tracking script can be tested on a local
// page (`<name>.localhost` already passes as a host name; these two have no dot or no letters).
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * A website's domain as stored: lowercase, ASCII (IDNs as punycode), without `http(s)://`, a bare
 * trailing `/` or a leading `www.`; null when it has a path, query, fragment, port or credentials,
 * or is not a host name with at least one dot (`localhost` and `127.0.0.1` excepted).
 */
export function normalizeDomain(input: string): string | null {
  const text = input.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/$/, '');
  if (text === '' || /[/?#:@\\\s]/.test(text)) return null;
  // domainToASCII answers '' for names it cannot convert (bad punycode, forbidden characters).
  const ascii = domainToASCII(text);
  if (ascii === '') return null;
  const host = withoutWww(ascii);
  return isHostName(host) || LOCAL_HOSTS.has(host) ? host : null;
}

/** The lowercase host of an http(s) URL without a leading `www.`, or null when there is none. */
export function hostOfUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = parsed.hostname.replace(/\.$/, '');
  return host === '' ? null : withoutWww(host);
}
