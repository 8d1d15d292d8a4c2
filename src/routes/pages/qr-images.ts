import { Hono } from 'hono';
import type { Context } from 'hono';
import { ApiError, MESSAGES } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { subjectOf } from '../../links/stats.ts';
import { clientIp } from '../../http/client-ip.ts';
import { clientBucket, retryAfter } from '../../http/rate-limit.ts';
import { QrImageCache } from '../../qr/image-cache.ts';
import { snapQrSize } from '../../qr/image-sizes.ts';
import { QrImages } from '../../qr/images.ts';
import { QrTooLongError } from '../../qr/render-errors.ts';
import type { RenderTask } from '../../qr/render-task.ts';
import { LogoCache } from '../../qr/safe-logo.ts';
import type { Services } from '../../resources/define.ts';
import { qrPayloadOf } from '../../resources/qrs.ts';
import type { Qr } from '../../resources/qrs.ts';
import { notFoundPage } from '../../redirect/pages.ts';
import { html, uncachedRedirect } from './redirects.ts';
import { recordClick, visitOf } from '../../redirect/visit.ts';

function intParam(c: Context, name: string, min: number, max: number, fallback: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ApiError(400, `Invalid ${name}: must be an integer from ${min} to ${max}.`);
  return Number(raw);
}

/**
 * `GET /qr/<alias>`: the QR image (PNG, or SVG with ?format=svg), drawn by the render threads at
 * the nearest of QR_IMAGE_SIZES, kept in a cache of RENDER_CACHE_BYTES, and at most
 * RENDER_RATE_LIMIT renders per window and client; `GET /qr/<alias>/scan`: counts a scan and redirects.
 */
export function qrImageRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const logos = new LogoCache(s.config.logoFetch);
  const images = new QrImages(s.renderer, new QrImageCache(s.config.renderCacheBytes));
  const renders = s.limits('qr-renders', s.config.renderRateLimit, s.config.rateLimitWindow * 1000);
  // A disabled user's codes stop (image and scan), as their links do.
  const find = async (c: Context) => {
    const qr = await s.store.lookup<Qr>('qrs', 'alias', c.req.param('alias') ?? '');
    return qr && !(await s.disabledUsers.check(qr.userId)) ? qr : undefined;
  };
  // Only what makes the server draw counts against a client; a refusal says when its window ends.
  const admit = async (c: Context) => {
    const decision = await renders?.hit(clientBucket(clientIp(c, s.config.trustProxy)));
    if (!decision || decision.allowed) return;
    c.header('Retry-After', String(retryAfter(decision.reset, s.clock.now())));
    if (decision.uncounted) throw new ApiError(503, MESSAGES.unavailable);
    throw new ApiError(429, 'Too many QR images drawn for this client. Please try again later.');
  };

  routes.get('/qr/:alias', async (c) => {
    const qr = await find(c);
    if (!qr) return html(c, notFoundPage(), 404);
    const format = c.req.query('format') ?? 'png';
    if (format !== 'png' && format !== 'svg') throw new ApiError(400, 'Invalid format: must be png or svg.');
    const ecl = (c.req.query('ecl') ?? 'M').toUpperCase();
    if (!['L', 'M', 'Q', 'H'].includes(ecl)) throw new ApiError(400, 'Invalid ecl: must be L, M, Q or H.');
    const size = snapQrSize(intParam(c, 'size', 64, 2048, 300));
    const margin = intParam(c, 'margin', 0, 16, 2);
    const logo = qr.logo ? await logos.get(qr.logo) : null;
    const task: RenderTask = { format, payload: qrPayloadOf(s, qr), size, margin, errorCorrection: ecl as RenderTask['errorCorrection'], foreground: qr.foreground, background: qr.background, logo };
    try {
      const image = await images.get(task, () => admit(c));
      c.header('Cache-Control', 'public, max-age=300');
      return c.body(image, 200, { 'Content-Type': format === 'svg' ? 'image/svg+xml; charset=utf-8' : 'image/png' });
    } catch (err) {
      // The content fits at the level it was created for, but not at a stronger ?ecl= asked for here.
      if (err instanceof QrTooLongError) throw new ApiError(400, `${err.message} Try a lower ecl.`);
      throw err;
    }
  });

  routes.get('/qr/:alias/scan', async (c) => {
    const qr = await find(c);
    if (!qr || qr.type !== 'link' || typeof qr.data !== 'string') return html(c, notFoundPage(), 404);
    recordClick(s, subjectOf('qr', qr.id), qr.userId, visitOf(c, s));
    return uncachedRedirect(qr.data, 302);
  });
  return routes;
}
