import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import { findVisible } from '../http/crud-routes.ts';
import { campaigns } from '../resources/campaigns.ts';
import type { Campaign } from '../resources/campaigns.ts';
import type { Services } from '../resources/define.ts';
import { findItem } from './find-item.ts';

const LINK_NOT_FOUND = 'Link not found. Please try again.';

/** What campaigns do beyond the generic routes: putting a link in a campaign. */
export function campaignRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/campaign/:campaignid/assign/:linkid', async (c) => {
    const userId = c.get('user').id;
    const campaign = findVisible<Campaign>(s, campaigns, c.req.param('campaignid'), userId);
    const link = findItem(s, 'links', c.req.param('linkid'), userId, LINK_NOT_FOUND);
    // A link is in at most one campaign: assigning moves it. Nothing is awaited since the lookups, so both still exist.
    await s.store.write((tx) => tx.update('links', link.id, { campaign: campaign.id }));
    return c.json({ error: 0, message: 'Link successfully added to the campaign.' });
  });
  return routes;
}
