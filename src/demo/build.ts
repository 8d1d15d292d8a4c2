import type { Hono } from 'hono';
import { createApp } from '../app.ts';
import { AuditLog } from '../audit/audit-log.ts';
import { KeyUses } from '../auth/key-uses.ts';
import type { Website } from '../analytics/websites.ts';
import { loadConfig } from '../config.ts';
import { snapshotStore } from '../fake/control.ts';
import { testClock } from '../fake/test-clock.ts';
import type { Fixtures } from '../fixtures/prepare.ts';
import { seedFixtures } from '../fixtures/seed.ts';
import type { AppEnv } from '../http/app-env.ts';
import { subjectOf } from '../links/stats.ts';
import { seededRandom } from '../random.ts';
import { RESOURCES, storeSchema } from '../resources/table.ts';
import { DailyCounters } from '../stats/daily-counters.ts';
import { FileStore } from '../store/file/file-store.ts';
import { DEMO_LINKS, DEMO_QRS, DEMO_SITES } from './content.ts';
import { generateTraffic } from './traffic.ts';
import type { ClickSubject, SiteTraffic } from './traffic.ts';

const DAY_MS = 86_400_000;

/** The demo user. */
export const DEMO_EMAIL = 'demo@example.com';

/** What the demo is built for. */
export interface DemoOptions {
  /** The end of the 30 days of history (epoch ms). */
  now: number;
  /** The demo user's API key. */
  apikey: string;
  /** The origin the demo server answers on (branded domains must differ from it). */
  baseUrl: string;
  /** Seed of everything random (aliases, traffic). */
  seed?: string;
}

type Call = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

function caller(app: Hono<AppEnv>, apikey: string): Call {
  return async (method, path, body) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${apikey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300 || json.error === 1) throw new Error(`demo: ${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

const idOf = (r: Record<string, unknown>) => (r.id ?? (r.data as { id?: unknown } | undefined)?.id) as number;

/**
 * The demo's data as fixtures: a demo user (admin) whose links, QR codes, campaigns (one with a
 * rotator), channels, pixels, branded domains, overlays, splash pages, bio page and websites are
 * made through the API itself, then 30 days of clicks, scans and pageviews fed through the
 * counters real traffic goes through. The same options give the same data.
 */
export async function buildDemo(options: DemoOptions): Promise<Fixtures> {
  const seed = options.seed ?? 'demo';
  const store = await FileStore.open({ dir: ':memory:', collections: storeSchema(RESOURCES) });
  try {
    const clock = testClock(options.now - 32 * DAY_MS);
    const random = seededRandom(seed);
    await seedFixtures(store, { users: [{ id: 1, email: DEMO_EMAIL, username: 'demo', apikey: options.apikey, admin: true, planid: 2 }] }, { resources: RESOURCES, now: clock.now() });
    const config = loadConfig({ DATA_DIR: ':memory:', BASE_URL: options.baseUrl, RATE_LIMIT: '0', ANALYTICS_RATE_LIMIT: '0', AUTH_FAILURE_LIMIT: '0', LOGO_FETCH: 'off', LOG_LEVEL: 'silent' });
    // The audit log and the keys' last uses are written on timers of real time: flushed by hand before
    // the data is read, so that all of them are in it, whatever the machine's speed (the same data for the same options).
    const audit = new AuditLog(store, { clock, retentionDays: config.auditRetentionDays });
    const keyUses = new KeyUses(store, clock);
    const api = caller(createApp({ store, config, clock, random, audit, keyUses }), options.apikey);
    const later = () => clock.advance(3 * 3_600_000 + 17 * 60_000);

    const made = async (path: string, body: unknown) => {
      later();
      return idOf(await api('POST', path, body));
    };
    const pixels = [
      await made('/api/pixel/add', { type: 'gtmpixel', name: 'Google Tag Manager', tag: 'GTM-K8D2QX' }),
      await made('/api/pixel/add', { type: 'fbpixel', name: 'Meta pixel', tag: '730461182374011' }),
      await made('/api/pixel/add', { type: 'linkedinpixel', name: 'LinkedIn Insight', tag: '5218734' }),
    ];
    const domains = [
      await made('/api/domain/add', { domain: 'https://go.acme-demo.com', redirectroot: 'https://acme-demo.com', redirect404: 'https://acme-demo.com/404' }),
      await made('/api/domain/add', { domain: 'https://links.acme-shop.com', redirectroot: 'https://acme-shop.com' }),
    ];
    const splash = [
      await made('/api/splash/add', { name: 'Spring sale teaser', title: 'The spring sale starts now', text: 'Up to 40% off everything until Sunday.', image: 'https://images.example.com/spring.png', countdown: 5 }),
      await made('/api/splash/add', { name: 'Partner notice', title: 'You are leaving Acme', text: 'This link takes you to one of our partners.', countdown: 3 }),
    ];
    const overlays = [
      await made('/api/overlay/add', { type: 'message', name: 'Newsletter prompt', message: 'Get our weekly tips', buttontext: 'Subscribe', buttonlink: 'https://acme-demo.com/newsletter', bgcolor: '#1E293B', textcolor: '#FFFFFF', buttoncolor: '#F59E0B', position: 'bottom-right' }),
      await made('/api/overlay/add', { type: 'contact', name: 'Ask sales', message: 'Questions? We answer within a day.', fields: ['name', 'email', 'message'], email: 'sales@acme-demo.com', position: 'bottom-left' }),
    ];
    const campaigns = [
      await made('/api/campaign/add', { name: 'Spring sale', slug: 'spring-sale', public: true }),
      await made('/api/campaign/add', { name: 'Newsletter', public: false }),
      await made('/api/campaign/add', { name: 'Podcast', public: true }),
    ];
    const channels = [
      await made('/api/channel/add', { name: 'Marketing', description: 'Campaign links and landing pages', color: '#2563EB', starred: true }),
      await made('/api/channel/add', { name: 'Social', description: 'Everything we post', color: '#DB2777' }),
      await made('/api/channel/add', { name: 'Docs', description: 'Help center and guides', color: '#059669' }),
    ];
    const refs = { pixels, domains, splash, overlays, campaigns, channels };
    const links: { id: number; perDay: number; rotator: boolean }[] = [];
    for (const link of DEMO_LINKS) {
      // Links are private unless created public (as the real product); the demo's are listed on campaign pages.
      links.push({ id: await made('/api/url/add', { status: 'public', ...link.body(refs) }), perDay: link.perDay, rotator: link.rotator ?? false });
    }
    const qrs: { id: number; perDay: number }[] = [];
    for (const qr of DEMO_QRS) qrs.push({ id: await made('/api/qr/add', qr.body), perDay: qr.perDay });
    const bio = await made('/api/bio/add', {
      name: 'Acme on the web',
      alias: 'acme',
      description: 'Shoes, a podcast and a newsletter, all in one place.',
      theme: 'ocean',
      links: [
        { title: 'Spring sale', url: 'https://acme-shop.com/spring-sale' },
        { title: 'The podcast', url: 'https://podcast.acme-demo.com/' },
        { title: 'The newsletter', url: 'https://acme-demo.com/newsletter' },
      ],
    });
    await api('POST', `/api/channel/${channels[1]}/assign/bio/${bio}`);
    await api('POST', `/api/channel/${channels[0]}/assign/qr/${qrs[0]!.id}`);
    const sites: SiteTraffic[] = [];
    for (const site of DEMO_SITES) {
      const id = idOf(await api('POST', '/api/v1/websites', site.body));
      sites.push({ website: (await store.get<Website>('websites', id))!, pages: site.pages, perDay: site.perDay, events: site.events });
      later();
    }

    const clicks: ClickSubject[] = [
      ...links.map((l) => ({ subjects: [subjectOf('link', l.id)], owner: 1, perDay: l.perDay })),
      // Rotator visits count for the link they land on and for the campaign.
      ...links.filter((l) => l.rotator).map((l) => ({ subjects: [subjectOf('link', l.id), subjectOf('campaign', campaigns[0]!)], owner: 1, perDay: Math.ceil(l.perDay / 3) })),
      ...qrs.map((q) => ({ subjects: [subjectOf('qr', q.id)], owner: 1, perDay: q.perDay })),
    ];
    const counters = new DailyCounters(store, { clock, random: seededRandom(`${seed}:visitors`) });
    generateTraffic(counters, `${seed}:traffic`, options.now, 30, clicks, sites, new URL(options.baseUrl).hostname);
    await counters.flush();
    await audit.flush();
    await keyUses.flush();
    // The outbox's events (random ids, never exported) are no part of the demo's data.
    return snapshotStore(store, RESOURCES.filter((r) => !r.transient));
  } finally {
    await store.close();
  }
}
