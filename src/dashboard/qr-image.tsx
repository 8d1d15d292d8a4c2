import type { Context } from 'hono';
import { QrImageCache } from '../qr/image-cache.ts';
import { QrImages } from '../qr/images.ts';
import { LogoCache } from '../qr/safe-logo.ts';
import type { Services } from '../resources/define.ts';

/** The QR image sizes the dashboard draws: a preview (at twice its CSS size, for sharp screens), and the download. */
export const QR_PREVIEW = 200;
const QR_DOWNLOAD = 1024;
/** How many logos' files the dashboard keeps (500 KB each at most: 25 MB), beside those of the /qr route. */
const DASHBOARD_LOGOS = 50;

/** What a dashboard QR image shows: the text it encodes and its look (a link's: black on white, no logo). */
export interface QrLook {
  payload: string;
  foreground: string;
  background: string;
  /** The logo as the API stores it (an http(s) URL or a data: URI), or null. */
  logo: string | null;
}

/**
 * The QR images of the dashboard's screens (a link's code, a QR code's): drawn by the render threads
 * the /qr route uses, kept in one cache of RENDER_CACHE_BYTES for all the dashboard's screens, with
 * logos read as that route reads them (URLs fetched from public addresses only, when LOGO_FETCH is on;
 * the last DASHBOARD_LOGOS sources kept, first in first out; a changed logo is a new source).
 * A signed-in user's own images are not rate-limited per client.
 */
export class DashboardQrImages {
  private readonly images: QrImages;
  private readonly logos: LogoCache;

  constructor(s: Pick<Services, 'renderer' | 'config'>) {
    this.images = new QrImages(s.renderer, new QrImageCache(s.config.renderCacheBytes));
    this.logos = new LogoCache(s.config.logoFetch, DASHBOARD_LOGOS);
  }

  /**
   * The image answer of `look` as the request asks it: `?format=svg` or PNG, `?download=1` an
   * attachment named `<name>-qr.<format>`; never cached, never sniffed, never scripted.
   */
  async answer(c: Context, look: QrLook, name: string): Promise<Response> {
    const format = c.req.query('format') === 'svg' ? 'svg' : 'png';
    const download = c.req.query('download') === '1';
    const logo = look.logo ? await this.logos.get(look.logo) : null;
    const task = { format, payload: look.payload, size: download ? QR_DOWNLOAD : QR_PREVIEW * 2, margin: 2, errorCorrection: 'M', foreground: look.foreground, background: look.background, logo } as const;
    const image = await this.images.get(task, () => undefined);
    const headers: Record<string, string> = { 'Content-Type': format === 'svg' ? 'image/svg+xml; charset=utf-8' : 'image/png', 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" };
    if (download) headers['Content-Disposition'] = `attachment; filename="${safeName(name)}-qr.${format}"`;
    return c.body(image, 200, headers);
  }
}

// A name fit for a quoted filename: no quotes, backslashes, controls or non-ASCII (aliases already are).
const safeName = (name: string) => name.replace(/[^\w.-]/g, '_').slice(0, 80) || 'qr';

/** A QR code's preview and its PNG and SVG downloads, from the image route `src` (…/qr or …/image). */
export function QrPreview(props: { src: string; name: string; alt: string; size?: number }) {
  const size = props.size ?? QR_PREVIEW;
  const file = safeName(props.name);
  return (
    <>
      <img class="qr" src={`${props.src}?format=svg`} width={size} height={size} alt={props.alt} />
      <div class="actions">
        <a href={`${props.src}?format=png&download=1`} download={`${file}-qr.png`}>
          Download PNG
        </a>
        <a href={`${props.src}?format=svg&download=1`} download={`${file}-qr.svg`}>
          Download SVG
        </a>
      </div>
    </>
  );
}
