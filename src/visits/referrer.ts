/** The label under which visits without a usable external referrer are counted. */
export const DIRECT_LABEL = 'Direct, email and other';

/** A social network whose referrals are counted separately. */
export type SocialNetwork = 'facebook' | 'twitter' | 'instagram' | 'linkedin';

const SOCIAL_DOMAINS: ReadonlyArray<readonly [string, SocialNetwork]> = [
  ['facebook.com', 'facebook'],
  ['fb.com', 'facebook'],
  ['fb.me', 'facebook'],
  ['twitter.com', 'twitter'],
  ['t.co', 'twitter'],
  ['x.com', 'twitter'],
  ['instagram.com', 'instagram'],
  ['instagr.am', 'instagram'],
  ['linkedin.com', 'linkedin'],
  ['lnkd.in', 'linkedin'],
];

function bareHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '').replace(/^www\./, '');
}

/**
 * The stats label of a referrer: its lowercase host without `www.`, or DIRECT_LABEL when the
 * referrer is missing, not an http(s) URL, or one of `ownHosts` (compared without `www.`).
 */
export function referrerLabel(referrer: string | undefined, ownHosts: string[] = []): string {
  if (referrer === undefined || referrer.trim() === '') return DIRECT_LABEL;
  let url: URL;
  try {
    url = new URL(referrer.trim());
  } catch {
    return DIRECT_LABEL;
  }
  // App referrers such as android-app://com.google.android.gm are mail and other apps.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return DIRECT_LABEL;
  const host = bareHost(url.hostname);
  if (host === '' || ownHosts.some((own) => bareHost(own) === host)) return DIRECT_LABEL;
  return host;
}

/** The social network a referrer host belongs to (the domain or any subdomain of it), else null. */
export function socialNetworkOf(host: string): SocialNetwork | null {
  const bare = bareHost(host);
  for (const [domain, network] of SOCIAL_DOMAINS) {
    if (bare === domain || bare.endsWith(`.${domain}`)) return network;
  }
  return null;
}
