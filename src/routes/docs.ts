import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import type { Services } from '../resources/define.ts';
import { docsPageHtml } from '../openapi/docs-page.ts';
import pkg from '../../package.json' with { type: 'json' };
import { SERVER_NAME, openApiDocument } from '../openapi/document.ts';
import type { OpenApiDocument } from '../openapi/document.ts';

const PAGE_HEADERS = {
  // img-src: the inline icon only (html/favicon.ts).
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

/** `GET /openapi.json` (the document) and `GET /docs` (the reference page), built once per app on first use; `GET /api/`, the API's index. */
export function docsRoutes(s: Pick<Services, 'resources' | 'config'>): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let doc: OpenApiDocument | undefined;
  let page: string | undefined;
  const document = () => (doc ??= openApiDocument(s));

  routes.get('/openapi.json', (c) => c.json(document(), 200, { 'cache-control': 'no-cache', 'access-control-allow-origin': '*' }));
  routes.get('/docs', (c) => c.html((page ??= docsPageHtml(document())), 200, PAGE_HEADERS));
  // The API's index, for clients that check the server before using a key: no key needed, nothing private.
  const index = () => ({ error: 0, name: SERVER_NAME, version: pkg.version, docs: `${s.config.baseUrl}/docs`, openapi: `${s.config.baseUrl}/openapi.json` });
  routes.get('/api', (c) => c.json(index()));
  routes.get('/api/', (c) => c.json(index()));
  return routes;
}
