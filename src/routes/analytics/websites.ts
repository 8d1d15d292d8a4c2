import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/app-env.ts';
import type { PasswordAttempts } from '../../http/password-attempts.ts';
import type { Services } from '../../resources/define.ts';
import { analyticsAccount } from '../../analytics/account.ts';
import { analyticsCrudRoutes } from './crud.ts';
import type { AnalyticsCrud } from './crud.ts';
import { eventRoutes } from './events.ts';
import { booleanField } from '../../analytics/form-fields.ts';
import { statsPageRoutes } from './stats-page.ts';
import { statsRoutes } from './stats.ts';
import { WebsiteIndex } from '../../analytics/website-index.ts';
import { RECEIVING_INDEX } from '../../analytics/website-ownership.ts';
import { websiteVerifyRoutes } from './website-verify.ts';
import { parseWebsite, websites } from '../../analytics/websites.ts';
import type { Website } from '../../analytics/websites.ts';

/** How a website's create and update bodies are read: the API's and the dashboard's. */
export const WEBSITE_RULES: AnalyticsCrud = {
  parse: (raw, ctx, existing) => parseWebsite(websites, raw, ctx, existing as Website | undefined),
  filters: { favorite: v.optional(booleanField('favorite')) },
  retryOn: RECEIVING_INDEX,
};

/** `/api/v1/websites`: list, get, create, update (PUT and PATCH), delete (the row's onDelete drops the statistics). */
export function websiteRoutes(s: Services): Hono<AppEnv> {
  return analyticsCrudRoutes(s, websites, WEBSITE_RULES);
}

/** The whole website-analytics side: websites and stats APIs, the tracking script and events, the stats page. */
export function analyticsRoutes(s: Services, attempts: PasswordAttempts): Hono<AppEnv> {
  const index = new WebsiteIndex(s.store);
  const routes = new Hono<AppEnv>();
  // The key's account, as the analytics product answers it (clients check their key with it).
  routes.get('/api/v1/account', (c) => c.json({ data: analyticsAccount(c.get('user')), status: 200 }));
  routes.route('/', websiteRoutes(s));
  routes.route('/', websiteVerifyRoutes(s));
  routes.route('/', statsRoutes(s));
  routes.route('/', eventRoutes(s, index));
  routes.route('/', statsPageRoutes(s, index, attempts));
  return routes;
}
