/** Ids of the demo records links may refer to, in creation order. */
export interface DemoRefs {
  pixels: number[];
  domains: number[];
  splash: number[];
  overlays: number[];
  campaigns: number[];
  channels: number[];
}

/** A demo link: its create body, how many clicks a typical day brings, and whether the rotator serves it. */
export interface DemoLink {
  body(refs: DemoRefs): Record<string, unknown>;
  perDay: number;
  rotator?: boolean;
}

const at = (list: number[], i: number): number => list[i]!;

/** The demo's links, from busy to quiet. */
export const DEMO_LINKS: readonly DemoLink[] = [
  {
    perDay: 55,
    rotator: true,
    body: (r) => ({ url: 'https://acme-shop.com/spring-sale', custom: 'spring', metatitle: 'Spring sale: up to 40% off', campaign: at(r.campaigns, 0), pixels: [at(r.pixels, 0), at(r.pixels, 1)], channel: at(r.channels, 0), domain: 'https://links.acme-shop.com' }),
  },
  {
    perDay: 22,
    rotator: true,
    body: (r) => ({ url: 'https://acme-shop.com/spring-sale/shoes', custom: 'spring-shoes', metatitle: 'Spring sale: shoes', campaign: at(r.campaigns, 0), type: String(at(r.splash, 0)) }),
  },
  { perDay: 30, body: (r) => ({ url: 'https://podcast.acme-demo.com/episodes/42', custom: 'ep42', metatitle: 'Episode 42: growing without ads', campaign: at(r.campaigns, 2), channel: at(r.channels, 1), domain: 'https://go.acme-demo.com' }) },
  { perDay: 22, body: (r) => ({ url: 'https://acme-demo.com/pricing', custom: 'pricing', metatitle: 'Pricing', pixels: [at(r.pixels, 2)], channel: at(r.channels, 0) }) },
  {
    perDay: 20,
    body: () => ({
      url: 'https://acme-demo.com/app',
      custom: 'get-app',
      metatitle: 'Get the Acme app',
      devicetarget: [
        { device: 'iphone', link: 'https://apps.apple.com/app/id1234567890' },
        { device: 'android', link: 'https://play.google.com/store/apps/details?id=com.acmedemo.app' },
      ],
    }),
  },
  { perDay: 18, body: (r) => ({ url: 'https://acme-demo.com/newsletter', custom: 'news', metatitle: 'The Acme newsletter', campaign: at(r.campaigns, 1), type: `overlay-${at(r.overlays, 0)}` }) },
  { perDay: 15, body: (r) => ({ url: 'https://docs.acme-demo.com/quickstart', custom: 'quickstart', metatitle: 'Quickstart', channel: at(r.channels, 2) }) },
  { perDay: 12, body: (r) => ({ url: 'https://blog.acme-demo.com/how-we-cut-churn', metatitle: 'How we cut churn by a third', metadescription: 'Our most read post of the year.', channel: at(r.channels, 1) }) },
  { perDay: 8, body: () => ({ url: 'https://acme-demo.com/careers', metatitle: 'Careers at Acme', geotarget: [{ location: 'DE', link: 'https://acme-demo.com/de/karriere' }] }) },
  { perDay: 6, body: (r) => ({ url: 'https://partner.example.org/acme-offer', custom: 'partner', metatitle: 'Partner offer', type: String(at(r.splash, 1)), pixels: [at(r.pixels, 1)] }) },
  { perDay: 4, body: () => ({ url: 'https://acme-demo.com/webinar/replay', custom: 'webinar', metatitle: 'Webinar replay (password: demo)', password: 'demo' }) },
  { perDay: 2, body: () => ({ url: 'https://acme-demo.com/internal/roadmap', metatitle: 'Roadmap (private)', status: 'private' }) },
];

/** The demo's QR codes; only link codes are scanned through the server, so only they have scans. */
export const DEMO_QRS: readonly { body: Record<string, unknown>; perDay: number }[] = [
  { perDay: 14, body: { type: 'link', data: 'https://acme-shop.com/store-locator', name: 'Store window poster', foreground: 'rgb(30,41,59)' } },
  { perDay: 9, body: { type: 'link', data: 'https://acme-shop.com/spring-sale', name: 'Spring sale flyer', foreground: 'rgb(219,39,119)' } },
  { perDay: 0, body: { type: 'wifi', data: { ssid: 'Acme Guest', password: 'welcome-2026', encryption: 'WPA' }, name: 'Office guest Wi-Fi' } },
  { perDay: 0, body: { type: 'vcard', data: { name: 'Dana Lee', phone: '+1 555 0100', email: 'dana@acme-demo.com', company: 'Acme', title: 'Head of Growth' }, name: 'Business card: Dana Lee' } },
];

/** The demo's websites: create body, pages, visitors on a typical day, custom events. */
export const DEMO_SITES: readonly { body: Record<string, unknown>; pages: readonly string[]; perDay: number; events?: readonly string[] }[] = [
  {
    body: { domain: 'acme-shop.com', privacy: 0, exclude_params: 'fbclid\ngclid', favorite: true },
    pages: ['/', '/products/widget', '/products/gadget', '/spring-sale', '/cart', '/checkout', '/about'],
    perDay: 100,
    events: ['Add to cart', 'Purchase', 'Newsletter signup'],
  },
  { body: { domain: 'blog.acme-demo.com', privacy: 0 }, pages: ['/', '/how-we-cut-churn', '/pricing-experiments', '/remote-team-rituals', '/tags/growth'], perDay: 60 },
  { body: { domain: 'docs.acme-demo.com', privacy: 1 }, pages: ['/', '/quickstart', '/api/links', '/api/analytics', '/self-hosting'], perDay: 30 },
];
