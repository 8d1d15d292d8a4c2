import type { Link } from '../links/shape.ts';
import type { Platform } from '../visits/user-agent.ts';

/** What targeting knows about a visitor. */
export interface Visitor {
  /** ISO country code, upper case, or null when unknown. */
  country: string | null;
  platform: Platform;
  /** Accept-Language tags, lower case, most preferred first. */
  languages: string[];
}

const PLATFORM_DEVICE: Record<Platform, string> = {
  iPhone: 'iphone',
  iPad: 'ipad',
  Android: 'android',
  Windows: 'windows',
  Macintosh: 'macintosh',
  Linux: 'linux',
  ChromeOS: 'chromeos',
  Other: '',
};

/** Appends the link's `parameters` to a target URL's query (an existing parameter of the same name is replaced). */
export function withParameters(target: string, parameters: Link['parameters']): string {
  if (!parameters?.length) return target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return target; // stored by other means (an import, an older version): sent as it is, header-safe
  }
  for (const p of parameters) url.searchParams.set(p.name, p.value);
  return url.toString();
}

/**
 * Where a visitor goes: the first matching geo target, else device target, else language
 * target, else the app-store deep link for Apple/Android visitors, else the long URL.
 */
export function resolveTarget(link: Pick<Link, 'url' | 'geotarget' | 'devicetarget' | 'languagetarget' | 'deeplink' | 'parameters'>, visitor: Visitor): string {
  const device = PLATFORM_DEVICE[visitor.platform];
  const primary = visitor.languages.map((l) => l.split('-')[0]);
  const target =
    (visitor.country && link.geotarget?.find((g) => g.location.toUpperCase() === visitor.country)?.link) ||
    link.devicetarget?.find((d) => d.device === device)?.link ||
    link.languagetarget?.find((l) => visitor.languages.includes(l.language) || primary.includes(l.language))?.link ||
    deepLinkFor(link.deeplink, visitor.platform) ||
    link.url;
  return withParameters(target, link.parameters);
}

function deepLinkFor(deeplink: Link['deeplink'], platform: Platform): string | undefined {
  if (!deeplink) return undefined;
  if (platform === 'iPhone' || platform === 'iPad') return deeplink.apple;
  if (platform === 'Android') return deeplink.google;
  return undefined;
}
