import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import type { Services } from '../resources/define.ts';
import { docsPageHtml } from '../openapi/docs-page.ts';
import { openApiDocument } from '../openapi/document.ts';
import type { OpenApiDocument } from '../openapi/document.ts';

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

/** `GET /openapi.json` (the document) and `GET /docs` (the reference page), built once per app on first use. */
export function docsRoutes(s: Pick<Services, 'resources' | 'config'>): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let doc: OpenApiDocument | undefined;
  let page: string | undefined;
  const document = () => (doc ??= openApiDocument(s));

  routes.get('/openapi.json', (c) => c.json(document(), 200, { 'cache-control': 'no-cache', 'access-control-allow-origin': '*' }));
  routes.get('/docs', (c) => c.html((page ??= docsPageHtml(document())), 200, PAGE_HEADERS));
  return routes;
}
