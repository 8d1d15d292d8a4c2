import { DIRECT_LABEL } from './referrer.ts';

/** The source of visits without a referrer or a `utm_source`. */
export const DIRECT_SOURCE = 'Direct / None';

/**
 * Named sources: the name, the hosts whose visits it groups (each with all its subdomains;
 * `name.*` is that name under any country or generic top-level domain, `google.de`, `google.co.uk`,
 * as search engines have them; Android app ids count as hosts), and the `utm_source` values that
 * mean it besides its own name. More specific hosts come first (Gmail before Google).
 */
const SOURCES: ReadonlyArray<readonly [name: string, hosts: readonly string[], aliases?: readonly string[]]> = [
  ['Gmail', ['mail.google.com', 'com.google.android.gm'], ['gmail']],
  ['Google', ['google.*', 'com.google.android.googlequicksearchbox']],
  ['Bing', ['bing.com']],
  ['DuckDuckGo', ['duckduckgo.com'], ['ddg']],
  ['Yahoo Mail', ['mail.yahoo.com']],
  ['Yahoo', ['yahoo.*']],
  ['Yandex', ['yandex.*', 'ya.ru']],
  ['Baidu', ['baidu.com']],
  ['Ecosia', ['ecosia.org']],
  ['Brave Search', ['search.brave.com']],
  ['Qwant', ['qwant.com']],
  ['Startpage', ['startpage.com']],
  ['Naver', ['naver.com']],
  ['ChatGPT', ['chatgpt.com', 'chat.openai.com']],
  ['Perplexity', ['perplexity.ai']],
  ['Outlook', ['outlook.live.com', 'outlook.office.com', 'outlook.office365.com']],
  ['Facebook', ['facebook.com', 'fb.com', 'fb.me', 'com.facebook.katana'], ['fb']],
  ['Instagram', ['instagram.com', 'instagr.am', 'com.instagram.android'], ['ig']],
  ['X/Twitter', ['twitter.com', 't.co', 'x.com', 'com.twitter.android'], ['twitter', 'x']],
  ['LinkedIn', ['linkedin.com', 'lnkd.in', 'com.linkedin.android']],
  ['Reddit', ['reddit.com', 'redd.it', 'com.reddit.frontpage']],
  ['YouTube', ['youtube.com', 'youtu.be', 'com.google.android.youtube'], ['yt']],
  ['GitHub', ['github.com']],
  ['Hacker News', ['news.ycombinator.com'], ['hackernews', 'hn']],
  ['Lobsters', ['lobste.rs']],
  ['Pinterest', ['pinterest.*', 'pin.it']],
  ['TikTok', ['tiktok.com']],
  ['Threads', ['threads.net', 'threads.com']],
  ['Bluesky', ['bsky.app']],
  ['Mastodon', ['mastodon.social']],
  ['Telegram', ['t.me', 'telegram.org', 'org.telegram.messenger']],
  ['WhatsApp', ['whatsapp.com', 'wa.me', 'com.whatsapp']],
  ['Discord', ['discord.com', 'discord.gg', 'discordapp.com']],
  ['Slack', ['slack.com', 'com.slack']],
  ['Wikipedia', ['wikipedia.org']],
  ['Stack Overflow', ['stackoverflow.com']],
  ['Product Hunt', ['producthunt.com']],
  ['Medium', ['medium.com']],
  ['Substack', ['substack.com']],
  ['Quora', ['quora.com']],
  ['VK', ['vk.com']],
  ['Twitch', ['twitch.tv']],
];

// A top-level part after a search engine's name: `com`, `de`, `co.uk`, `com.au` (1 or 2 labels of 2-3 letters).
const COUNTRY_TAIL = /^[a-z]{2,3}(\.[a-z]{2,3})?$/;

function matches(host: string, domain: string): boolean {
  if (domain.endsWith('.*')) {
    const name = domain.slice(0, -2);
    const at = host === name ? -1 : host.startsWith(`${name}.`) ? 0 : host.indexOf(`.${name}.`);
    if (at < 0) return false;
    return COUNTRY_TAIL.test(host.slice(at === 0 ? name.length + 1 : at + name.length + 2));
  }
  return host === domain || host.endsWith(`.${domain}`);
}

const squeeze = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

// Cache: the name of each utm_source value the table knows (its names and aliases, squeezed); fixed with the table.
const ALIASES = new Map(SOURCES.flatMap(([name, , aliases = []]) => [squeeze(name), ...aliases].map((alias) => [alias, name] as const)));

// Cache: the answer of namedSource per host (a pure function of the host and the table), the last
// 1,000 hosts, oldest dropped first: referrers repeat, and the table is walked once per new host.
const NAMED = new Map<string, string | null>();

/** The named source of a referrer host (lowercase, without `www.`), or null when the table has none. */
export function namedSource(host: string): string | null {
  const known = NAMED.get(host);
  if (known !== undefined) return known;
  let found: string | null = null;
  for (const [name, domains] of SOURCES) {
    if (domains.some((d) => matches(host, d))) {
      found = name;
      break;
    }
  }
  if (NAMED.size >= 1000) NAMED.delete(NAMED.keys().next().value!);
  NAMED.set(host, found);
  return found;
}

/**
 * The `source` label of a visit: the named source of its referrer host (`referrerLabel`'s answer),
 * or the host itself when the table has no name for it. Without a referrer, an Android app that sent
 * the visit (`android-app://com.google.android.gm`) names it, else the `utm_source` tag (by its
 * table name when it is one: `fb` is Facebook), else DIRECT_SOURCE.
 */
export function sourceLabel(referrerHost: string, utmSource: string | null = null, rawReferrer?: string): string {
  if (referrerHost !== DIRECT_LABEL) return namedSource(referrerHost) ?? referrerHost;
  const app = /^android-app:\/\/([a-z0-9._]+)/i.exec(rawReferrer?.trim() ?? '')?.[1]?.toLowerCase();
  const named = app ? namedSource(app) : null;
  if (named) return named;
  if (utmSource) return ALIASES.get(squeeze(utmSource)) ?? utmSource;
  return DIRECT_SOURCE;
}
