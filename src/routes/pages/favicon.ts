import { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { faviconIco } from '../../html/favicon.ts';

/**
 * `GET /favicon.ico`: the site's icon. Pages carry it inline; browsers ask this path for everything
 * else they show (a JSON answer, a QR image), and a 404 there would fill logs and consoles.
 */
export function faviconRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const ico = faviconIco();
  // A day: long enough that a browser does not ask on every page, short enough for an upgrade's new icon.
  const headers = { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' };
  routes.get('/favicon.ico', () => new Response(ico, { headers }));
  return routes;
}
