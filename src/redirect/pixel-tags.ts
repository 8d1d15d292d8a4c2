import { wellFormed } from '../unicode.ts';
import type { Csp } from '../html/page.ts';
import { escapeHtml } from '../html/page.ts';

type Kind = 'img' | 'script';

// Google's published CSP sources for Google Analytics 4 and Tag Manager.
const GOOGLE_ANALYTICS: Csp = {
  'script-src': ['https://*.googletagmanager.com'],
  'img-src': ['https://*.google-analytics.com', 'https://*.googletagmanager.com'],
  'connect-src': ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com'],
};
const GOOGLE_ADS: Csp = {
  'script-src': ['https://*.googletagmanager.com', 'https://www.googleadservices.com', 'https://googleads.g.doubleclick.net', 'https://www.google.com'],
  'img-src': ['https://*.googletagmanager.com', 'https://googleads.g.doubleclick.net', 'https://www.googleadservices.com', 'https://www.google.com'],
  'connect-src': ['https://*.googletagmanager.com', 'https://googleads.g.doubleclick.net', 'https://www.googleadservices.com', 'https://www.google.com'],
};
const img = (...hosts: string[]): Csp => ({ 'img-src': hosts });

/**
 * Each provider's public page-view beacon (the tag is the pixel's id at that provider) and the
 * hosts its beacon loads from and reports to, which the page's CSP allows; image beacons list the
 * hosts they are known to redirect to as well.
 */
const BEACONS: Record<string, [Kind, (tag: string) => string, Csp]> = {
  gtmpixel: ['script', (t) => `https://www.googletagmanager.com/gtm.js?id=${t}`, GOOGLE_ANALYTICS],
  gapixel: ['script', (t) => `https://www.googletagmanager.com/gtag/js?id=${t}`, GOOGLE_ANALYTICS],
  adwordspixel: ['script', (t) => `https://www.googletagmanager.com/gtag/js?id=${t}`, GOOGLE_ADS],
  fbpixel: ['img', (t) => `https://www.facebook.com/tr?id=${t}&ev=PageView&noscript=1`, img('https://www.facebook.com')],
  linkedinpixel: ['img', (t) => `https://px.ads.linkedin.com/collect/?pid=${t}&fmt=gif`, img('https://px.ads.linkedin.com', 'https://px4.ads.linkedin.com')],
  twitterpixel: ['img', (t) => `https://analytics.twitter.com/i/adsct?txn_id=${t}&p_id=Twitter&tw_sale_amount=0&tw_order_quantity=0`, img('https://analytics.twitter.com', 'https://t.co')],
  adrollpixel: ['img', (t) => `https://d.adroll.com/pixel/${t}?noscript=1`, img('https://d.adroll.com')],
  quorapixel: ['img', (t) => `https://q.quora.com/_/ad/${t}/pixel?tag=ViewContent&noscript=1`, img('https://q.quora.com')],
  pinterest: ['img', (t) => `https://ct.pinterest.com/v3/?tid=${t}&event=pagevisit&noscript=1`, img('https://ct.pinterest.com')],
  bing: ['img', (t) => `https://bat.bing.com/action/0?ti=${t}&Ver=2`, img('https://bat.bing.com')],
  snapchat: ['img', (t) => `https://tr.snapchat.com/p?pid=${t}&ev=PAGE_VIEW&v=1`, img('https://tr.snapchat.com', 'https://tr-shadow.snapchat.com')],
  reddit: ['img', (t) => `https://alb.reddit.com/rp.gif?id=${t}&event=PageVisit`, img('https://alb.reddit.com')],
  tiktok: ['script', (t) => `https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${t}`, { 'script-src': ['https://analytics.tiktok.com'], 'img-src': ['https://analytics.tiktok.com'], 'connect-src': ['https://analytics.tiktok.com'] }],
};

/** The HTML that fires one pixel (its provider's beacon, the tag URL-encoded, the markup escaped) and the sources its page's CSP must allow; null for an unknown type. */
export function pixelTag(type: string, tag: string): { html: string; csp: Csp } | null {
  const beacon = BEACONS[type];
  if (!beacon) return null;
  const [kind, url, csp] = beacon;
  const src = escapeHtml(url(encodeURIComponent(wellFormed(tag))));
  return { html: kind === 'img' ? `<img src="${src}" width="1" height="1" alt="" hidden>` : `<script async src="${src}"></script>`, csp };
}
