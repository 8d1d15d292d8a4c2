import type { Page } from '../html/page.ts';
import { mergeCsp } from '../html/page.ts';
import type { Link } from '../links/shape.ts';
import type { Services } from '../resources/define.ts';
import type { Overlay } from '../resources/overlays.ts';
import type { Splash } from '../resources/splash.ts';
import type { StoredRecord } from '../store/store.ts';
import { framePage, overlayPage, pixelsPage, splashPage } from './pages.ts';
import { pixelTag } from './pixel-tags.ts';

/** Whether a link is a plain redirect, with no page to build (the common case, known without the store). */
export const isPlainRedirect = (link: Link) => link.type === 'direct' && link.pixels.length === 0;

/** The page a link's type asks for, with its pixels fired on it (and their hosts in its CSP); null for a plain redirect. */
export async function linkPage(s: Services, link: Link, target: string): Promise<Page | null> {
  // The common case, answered before the helpers below are built (this runs on every redirect).
  if (isPlainRedirect(link)) return null;
  const owned = async <T extends StoredRecord>(collection: string, id: number | null): Promise<T | undefined> => {
    const r = id === null ? undefined : await s.store.get<T>(collection, id);
    return r?.userId === link.userId ? r : undefined;
  };
  const pixels = link.pixels.length ? (await s.store.find<StoredRecord & { type: string; tag: string }>('pixels', { owner: link.userId, ids: link.pixels })).items : [];
  const byId = new Map(pixels.map((p) => [p.id, p]));
  const tags = link.pixels
    .map((id) => byId.get(id))
    .filter((p) => p !== undefined)
    .map((p) => pixelTag(p.type, p.tag))
    .filter((t) => t !== null);
  const withTags = (page: Page): Page =>
    tags.length ? { ...page, html: page.html.replace('</body>', () => `${tags.map((t) => t.html).join('')}</body>`), csp: tags.reduce((csp, t) => mergeCsp(csp, t.csp), page.csp) } : page;
  switch (link.type) {
    case 'frame':
      return withTags(framePage(target, link.title));
    case 'splash':
      return withTags(splashPage(target, (await owned<Splash>('splash', link.splashId)) ?? null));
    case 'overlay': {
      // A deleted overlay leaves the link a plain redirect.
      const overlay = await owned<Overlay>('overlays', link.overlayId);
      if (!overlay) return tags.length ? pixelsPage(target, tags) : null;
      return withTags(overlayPage(target, link.title, overlay));
    }
    default:
      return tags.length ? pixelsPage(target, tags) : null;
  }
}
