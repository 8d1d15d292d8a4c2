import { wellFormed } from '../unicode.ts';
import type { Csp } from '../html/page.ts';
import { cspHash, escapeHtml, mergeCsp, scriptJson } from '../html/page.ts';
import type { PixelId } from './pixel-snippets.ts';
import { PIXEL_SNIPPETS } from './pixel-snippets.ts';

/** The two forms of a pixel's tag a snippet uses; AdRoll's tag is `ADVERTISER_ID/PIXEL_ID`. */
function pixelId(tag: string): PixelId {
  const clean = wellFormed(tag);
  return { js: scriptJson(clean), url: encodeURIComponent(clean), parts: clean.split('/').map((p) => scriptJson(p.trim())) };
}

/**
 * The HTML that fires one pixel, its provider's documented snippet (the tag a JS literal or
 * URL-encoded, the markup escaped), and the sources its page's CSP must allow: the provider's
 * hosts and the inline script by its hash; null for an unknown type.
 */
export function pixelTag(type: string, tag: string): { html: string; csp: Csp } | null {
  const snippet = PIXEL_SNIPPETS[type];
  if (!snippet) return null;
  const id = pixelId(tag);
  const script = snippet.script(id);
  const loader = snippet.loader ? `<script async src="${escapeHtml(snippet.loader(id))}"></script>` : '';
  const fallback = snippet.noscript
    ? `<noscript>${
        snippet.noscript.kind === 'img'
          ? `<img src="${escapeHtml(snippet.noscript.url(id))}" width="1" height="1" alt="" hidden>`
          : `<iframe src="${escapeHtml(snippet.noscript.url(id))}" width="0" height="0" hidden></iframe>`
      }</noscript>`
    : '';
  return { html: `${loader}<script>${script}</script>${fallback}`, csp: mergeCsp(snippet.csp, { 'script-src': [cspHash(script)] }) };
}
