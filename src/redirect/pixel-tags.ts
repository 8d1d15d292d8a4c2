import { wellFormed } from '../unicode.ts';
import { escapeHtml } from '../html/page.ts';

type Kind = 'img' | 'script';

// Each provider's public page-view beacon; the tag is the pixel's id at that provider.
const BEACONS: Record<string, [Kind, (tag: string) => string]> = {
  gtmpixel: ['script', (t) => `https://www.googletagmanager.com/gtm.js?id=${t}`],
  gapixel: ['script', (t) => `https://www.googletagmanager.com/gtag/js?id=${t}`],
  adwordspixel: ['script', (t) => `https://www.googletagmanager.com/gtag/js?id=${t}`],
  fbpixel: ['img', (t) => `https://www.facebook.com/tr?id=${t}&ev=PageView&noscript=1`],
  linkedinpixel: ['img', (t) => `https://px.ads.linkedin.com/collect/?pid=${t}&fmt=gif`],
  twitterpixel: ['img', (t) => `https://analytics.twitter.com/i/adsct?txn_id=${t}&p_id=Twitter&tw_sale_amount=0&tw_order_quantity=0`],
  adrollpixel: ['img', (t) => `https://d.adroll.com/pixel/${t}?noscript=1`],
  quorapixel: ['img', (t) => `https://q.quora.com/_/ad/${t}/pixel?tag=ViewContent&noscript=1`],
  pinterest: ['img', (t) => `https://ct.pinterest.com/v3/?tid=${t}&event=pagevisit&noscript=1`],
  bing: ['img', (t) => `https://bat.bing.com/action/0?ti=${t}&Ver=2`],
  snapchat: ['img', (t) => `https://tr.snapchat.com/p?pid=${t}&ev=PAGE_VIEW&v=1`],
  reddit: ['img', (t) => `https://alb.reddit.com/rp.gif?id=${t}&event=PageVisit`],
  tiktok: ['script', (t) => `https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${t}`],
};

/** The HTML that fires one pixel: its provider's beacon with the tag URL-encoded and the markup escaped. */
export function pixelTag(type: string, tag: string): string {
  const beacon = BEACONS[type];
  if (!beacon) return '';
  const [kind, url] = beacon;
  const src = escapeHtml(url(encodeURIComponent(wellFormed(tag))));
  return kind === 'img' ? `<img src="${src}" width="1" height="1" alt="" style="display:none">` : `<script async src="${src}"></script>`;
}
