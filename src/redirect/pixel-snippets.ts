import type { Csp } from '../html/page.ts';

/** The id of a pixel in the two forms a snippet needs: a JS string literal and a URL component. */
export interface PixelId {
  /** A JSON string literal, safe inside an inline <script>. */
  js: string;
  /** URL-encoded, for noscript beacons (HTML-escaped by the caller). */
  url: string;
  /** The parts of a compound tag (AdRoll's `ADVERTISER/PIXEL`), each a JS literal. */
  parts: string[];
}

/** One provider's page-view snippet: the inline script, a noscript fallback and the sources the page's CSP must allow. */
export interface PixelSnippet {
  /** A `<script async src>` the snippet starts with (gtag.js). */
  loader?: (id: PixelId) => string;
  script: (id: PixelId) => string;
  /** A beacon for browsers without script: an image URL, or a frame URL (GTM). */
  noscript?: { kind: 'img' | 'iframe'; url: (id: PixelId) => string };
  csp: Csp;
}

// Google's published CSP sources for Google Analytics 4, Tag Manager and Google Ads.
const GOOGLE_ANALYTICS: Csp = {
  'script-src': ['https://*.googletagmanager.com'],
  'img-src': ['https://*.google-analytics.com', 'https://*.googletagmanager.com'],
  'connect-src': ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com'],
};
const GOOGLE_ADS: Csp = {
  'script-src': ['https://*.googletagmanager.com', 'https://www.googleadservices.com', 'https://googleads.g.doubleclick.net', 'https://www.google.com'],
  'img-src': ['https://*.googletagmanager.com', 'https://googleads.g.doubleclick.net', 'https://www.googleadservices.com', 'https://www.google.com'],
  'connect-src': ['https://*.googletagmanager.com', 'https://googleads.g.doubleclick.net', 'https://www.googleadservices.com', 'https://www.google.com'],
  'frame-src': ['https://td.doubleclick.net', 'https://www.googletagmanager.com'],
};
const hosts = (script: string[], beacons: string[]): Csp => ({ 'script-src': script, 'img-src': beacons, 'connect-src': beacons });

// gtag.js as Google documents it for GA4 and Google Ads: the async loader, then gtag('js') and gtag('config', id).
const gtag = (id: PixelId) => `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config',${id.js});`;
const gtagLoader = (id: PixelId) => `https://www.googletagmanager.com/gtag/js?id=${id.url}`;

/**
 * Each provider's documented base code, as its help pages give it for a page view, with the id
 * of the pixel put in as a JSON literal (no statement of them runs any other way).
 */
export const PIXEL_SNIPPETS: Record<string, PixelSnippet> = {
  gtmpixel: {
    script: (id) =>
      `(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);})(window,document,'script','dataLayer',${id.js});`,
    noscript: { kind: 'iframe', url: (id) => `https://www.googletagmanager.com/ns.html?id=${id.url}` },
    csp: { ...GOOGLE_ANALYTICS, 'frame-src': ['https://www.googletagmanager.com'] },
  },
  gapixel: { loader: gtagLoader, script: gtag, csp: GOOGLE_ANALYTICS },
  adwordspixel: { loader: gtagLoader, script: gtag, csp: GOOGLE_ADS },
  fbpixel: {
    script: (id) =>
      `!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[];t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');
fbq('init',${id.js});fbq('track','PageView');`,
    noscript: { kind: 'img', url: (id) => `https://www.facebook.com/tr?id=${id.url}&ev=PageView&noscript=1` },
    csp: { 'script-src': ['https://connect.facebook.net'], 'img-src': ['https://www.facebook.com'], 'connect-src': ['https://www.facebook.com', 'https://connect.facebook.net'] },
  },
  linkedinpixel: {
    script: (id) =>
      `_linkedin_partner_id=${id.js};window._linkedin_data_partner_ids=window._linkedin_data_partner_ids||[];window._linkedin_data_partner_ids.push(_linkedin_partner_id);
(function(l){if(!l){window.lintrk=function(a,b){window.lintrk.q.push([a,b])};window.lintrk.q=[]}var s=document.getElementsByTagName("script")[0];var b=document.createElement("script");b.type="text/javascript";b.async=true;b.src="https://snap.licdn.com/li.lms-analytics/insight.min.js";s.parentNode.insertBefore(b,s);})(window.lintrk);`,
    noscript: { kind: 'img', url: (id) => `https://px.ads.linkedin.com/collect/?pid=${id.url}&fmt=gif` },
    csp: hosts(['https://snap.licdn.com'], ['https://px.ads.linkedin.com', 'https://px4.ads.linkedin.com']),
  },
  twitterpixel: {
    script: (id) =>
      `!function(e,t,n,s,u,a){e.twq||(s=e.twq=function(){s.exe?s.exe.apply(s,arguments):s.queue.push(arguments);},s.version='1.1',s.queue=[],u=t.createElement(n),u.async=!0,u.src='https://static.ads-twitter.com/uwt.js',a=t.getElementsByTagName(n)[0],a.parentNode.insertBefore(u,a))}(window,document,'script');
twq('config',${id.js});`,
    csp: hosts(['https://static.ads-twitter.com'], ['https://analytics.twitter.com', 'https://t.co', 'https://ads-twitter.com', 'https://ads-api.twitter.com']),
  },
  adrollpixel: {
    script: (id) =>
      `adroll_adv_id=${id.parts[0]};adroll_pix_id=${id.parts[1] ?? '""'};adroll_version="2.0";
(function(w,d,e,o,a){w.__adroll_loaded=true;w.adroll=w.adroll||[];w.adroll.f=['setProperties','identify','track','identify_email','get_cookie'];var roundtripUrl="https://s.adroll.com/j/"+adroll_adv_id+"/roundtrip.js";for(a=0;a<w.adroll.f.length;a++){w.adroll[w.adroll.f[a]]=w.adroll[w.adroll.f[a]]||(function(n){return function(){w.adroll.push([n,arguments])}})(w.adroll.f[a])}e=d.createElement('script');o=d.getElementsByTagName('script')[0];e.async=1;e.src=roundtripUrl;o.parentNode.insertBefore(e,o);})(window,document);
adroll.track("pageView");`,
    csp: hosts(['https://s.adroll.com'], ['https://d.adroll.com', 'https://*.adroll.com']),
  },
  quorapixel: {
    script: (id) =>
      `!function(q,e,v,n,t,s){if(q.qp)return;n=q.qp=function(){n.qp?n.qp.apply(n,arguments):n.queue.push(arguments);};n.queue=[];t=document.createElement(e);t.async=!0;t.src=v;s=document.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s);}(window,'script','https://a.quora.com/qevents.js');
qp('init',${id.js});qp('track','ViewContent');`,
    noscript: { kind: 'img', url: (id) => `https://q.quora.com/_/ad/${id.url}/pixel?tag=ViewContent&noscript=1` },
    csp: hosts(['https://a.quora.com'], ['https://q.quora.com']),
  },
  pinterest: {
    script: (id) =>
      `!function(e){if(!window.pintrk){window.pintrk=function(){window.pintrk.queue.push(Array.prototype.slice.call(arguments))};var n=window.pintrk;n.queue=[],n.version="3.0";var t=document.createElement("script");t.async=!0,t.src=e;var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r)}}("https://s.pinimg.com/ct/core.js");
pintrk('load',${id.js});pintrk('page');`,
    noscript: { kind: 'img', url: (id) => `https://ct.pinterest.com/v3/?event=init&tid=${id.url}&noscript=1` },
    csp: hosts(['https://s.pinimg.com'], ['https://ct.pinterest.com']),
  },
  bing: {
    // Microsoft's snippet loads "//bat.bing.com/bat.js"; https keeps it within the CSP on http pages too.
    script: (id) =>
      `(function(w,d,t,r,u){var f,n,i;w[u]=w[u]||[],f=function(){var o={ti:${id.js},enableAutoSpaTracking:true};o.q=w[u],w[u]=new UET(o),w[u].push("pageLoad")},n=d.createElement(t),n.src=r,n.async=1,n.onload=n.onreadystatechange=function(){var s=this.readyState;s&&s!=="loaded"&&s!=="complete"||(f(),n.onload=n.onreadystatechange=null)},i=d.getElementsByTagName(t)[0],i.parentNode.insertBefore(n,i)})(window,document,"script","https://bat.bing.com/bat.js","uetq");`,
    noscript: { kind: 'img', url: (id) => `https://bat.bing.com/action/0?ti=${id.url}&Ver=2` },
    csp: hosts(['https://bat.bing.com'], ['https://bat.bing.com']),
  },
  snapchat: {
    script: (id) =>
      `(function(e,t,n){if(e.snaptr)return;var a=e.snaptr=function(){a.handleRequest?a.handleRequest.apply(a,arguments):a.queue.push(arguments)};a.queue=[];var s='script';var r=t.createElement(s);r.async=!0;r.src=n;var u=t.getElementsByTagName(s)[0];u.parentNode.insertBefore(r,u);})(window,document,'https://sc-static.net/scevent.min.js');
snaptr('init',${id.js},{});snaptr('track','PAGE_VIEW');`,
    csp: hosts(['https://sc-static.net'], ['https://tr.snapchat.com', 'https://tr-shadow.snapchat.com']),
  },
  reddit: {
    script: (id) =>
      `!function(w,d){if(!w.rdt){var p=w.rdt=function(){p.sendEvent?p.sendEvent.apply(p,arguments):p.callQueue.push(arguments)};p.callQueue=[];var t=d.createElement("script");t.src="https://www.redditstatic.com/ads/pixel.js",t.async=!0;var s=d.getElementsByTagName("script")[0];s.parentNode.insertBefore(t,s)}}(window,document);
rdt('init',${id.js});rdt('track','PageVisit');`,
    csp: hosts(['https://www.redditstatic.com'], ['https://alb.reddit.com', 'https://pixel-config.reddit.com']),
  },
  tiktok: {
    script: (id) =>
      `!function(w,d,t){w.TiktokAnalyticsObject=t;var ttq=w[t]=w[t]||[];ttq.methods=["page","track","identify","instances","debug","on","off","once","ready","alias","group","enableCookie","disableCookie","holdConsent","revokeConsent","grantConsent"],ttq.setAndDefer=function(t,e){t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}};for(var i=0;i<ttq.methods.length;i++)ttq.setAndDefer(ttq,ttq.methods[i]);ttq.instance=function(t){for(var e=ttq._i[t]||[],n=0;n<ttq.methods.length;n++)ttq.setAndDefer(e,ttq.methods[n]);return e},ttq.load=function(e,n){var r="https://analytics.tiktok.com/i18n/pixel/events.js",o=n&&n.partner;ttq._i=ttq._i||{},ttq._i[e]=[],ttq._i[e]._u=r,ttq._t=ttq._t||{},ttq._t[e]=+new Date,ttq._o=ttq._o||{},ttq._o[e]=n||{};n=document.createElement("script");n.type="text/javascript",n.async=!0,n.src=r+"?sdkid="+e+"&lib="+t;e=document.getElementsByTagName("script")[0];e.parentNode.insertBefore(n,e)};
ttq.load(${id.js});ttq.page();}(window,document,'ttq');`,
    csp: hosts(['https://analytics.tiktok.com'], ['https://analytics.tiktok.com']),
  },
};
