import { isbot } from 'isbot';

/** Device class of a visit, as shown in the stats. */
export type DeviceClass = 'Desktop' | 'Mobile' | 'Tablet' | 'Unknown';

/** Platform a link's device targeting is matched against. */
export type Platform = 'iPhone' | 'iPad' | 'Android' | 'Windows' | 'Macintosh' | 'Linux' | 'ChromeOS' | 'Other';

/** What a user-agent string says about the visitor's browser, system and device. */
export interface UserAgentInfo {
  browser: string;
  os: string;
  device: DeviceClass;
  platform: Platform;
}

// Brands built on Chrome/WebKit that also carry "Chrome/" or "Safari/" but are not those
// browsers; without this they would be counted as Chrome or Safari.
const OTHER_BRANDS = /Vivaldi\/|YaBrowser\/|UCBrowser\/|MiuiBrowser\/|HuaweiBrowser\/|Silk\/|Whale\/|DuckDuckGo\/|GSA\/|FBAN|FBAV|Instagram /;

function browserOf(ua: string): string {
  // Order matters: Edge, Opera and Samsung Internet all also claim "Chrome/" and "Safari/".
  if (/\bEdg(?:e|A|iOS)?\//.test(ua)) return 'Edge';
  if (/\bOPR\/|\bOPiOS\/|\bOPT\/|Opera/.test(ua)) return 'Opera';
  if (/SamsungBrowser\//.test(ua)) return 'Samsung Internet';
  if (/MSIE |Trident\//.test(ua)) return 'Internet Explorer';
  if (OTHER_BRANDS.test(ua)) return 'Other';
  if (/Firefox\/|FxiOS\//.test(ua)) return 'Firefox';
  if (/Chrome\/|CriOS\//.test(ua)) return 'Chrome';
  // The old Android stock browser also says "Safari/"; only Apple systems ship Safari.
  if (/Safari\//.test(ua) && /Macintosh|iPhone|iPad|iPod/.test(ua)) return 'Safari';
  return 'Other';
}

function platformOf(ua: string): Platform {
  // Windows Phone UAs also say "Android", and iOS UAs say "like Mac OS X": test those first.
  if (/Windows/.test(ua)) return 'Windows';
  if (/iPad/.test(ua)) return 'iPad';
  if (/iPhone|iPod/.test(ua)) return 'iPhone';
  if (/Android/.test(ua)) return 'Android';
  if (/CrOS/.test(ua)) return 'ChromeOS';
  if (/Macintosh|Mac OS X/.test(ua)) return 'Macintosh';
  if (/Linux/.test(ua)) return 'Linux';
  return 'Other';
}

const OS_OF_PLATFORM: Record<Exclude<Platform, 'iPhone' | 'iPad'>, string> = {
  Windows: 'Windows',
  Android: 'Android',
  ChromeOS: 'Chrome OS',
  Macintosh: 'macOS',
  Linux: 'Linux',
  Other: 'Other',
};

function deviceOf(ua: string, platform: Platform): DeviceClass {
  if (platform === 'iPad') return 'Tablet';
  if (platform === 'iPhone' || /Mobi|Opera Mini|Windows Phone/.test(ua)) return 'Mobile';
  // Android tablets are the Android devices that leave "Mobile" out.
  if (platform === 'Android') return 'Tablet';
  if (platform === 'Other') return 'Unknown';
  return 'Desktop';
}

/**
 * Classifies a user-agent string into browser, OS, device class and platform.
 * A missing or empty UA gives browser and OS "Unknown"; iPads in Safari's default "desktop
 * site" mode send a Mac UA and are classified as macOS desktops (the UA cannot tell them apart).
 */
export function classifyUserAgent(ua: string | undefined): UserAgentInfo {
  const text = ua?.trim() ?? '';
  if (text === '') return { browser: 'Unknown', os: 'Unknown', device: 'Unknown', platform: 'Other' };
  const platform = platformOf(text);
  const os = platform === 'iPhone' ? 'iOS' : platform === 'iPad' ? 'iPadOS' : OS_OF_PLATFORM[platform];
  return { browser: browserOf(text), os, device: deviceOf(text, platform), platform };
}

/** Whether a UA belongs to a bot (via isbot); a missing or empty UA is NOT a bot, it classifies as "Unknown". */
export function isBotAgent(ua: string | undefined): boolean {
  const text = ua?.trim() ?? '';
  return text !== '' && isbot(text);
}

// Classifying a user agent runs a few dozen regular expressions, and isbot one very long one;
// visitors repeat them, so the last answers are kept (a bounded cache of pure functions: dropping
// it changes nothing but speed). Shared by redirects, QR scans and page views.
const AGENTS = new Map<string, { agent: UserAgentInfo; bot: boolean }>();
const AGENTS_KEPT = 1000;

/** classifyUserAgent and isBotAgent of `ua` together, from the cache when it was seen lately. */
export function agentOf(ua: string | undefined): { agent: UserAgentInfo; bot: boolean } {
  const key = ua ?? '';
  let hit = AGENTS.get(key);
  if (!hit) {
    if (AGENTS.size >= AGENTS_KEPT) AGENTS.delete(AGENTS.keys().next().value!);
    AGENTS.set(key, (hit = { agent: classifyUserAgent(key), bot: isBotAgent(key) }));
  }
  return hit;
}
