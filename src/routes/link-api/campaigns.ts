import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { findVisible } from '../crud.ts';
import { campaigns } from '../../resources/campaigns.ts';
import type { Campaign } from '../../resources/campaigns.ts';
import type { Services } from '../../resources/define.ts';
import { findItem } from './find-item.ts';

const LINK_NOT_FOUND = 'Link not found. Please try again.';

/** What campaigns do beyond the generic routes: putting a link in a campaign. */
export function campaignRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/campaign/:campaignid/assign/:linkid', async (c) => {
    const userId = c.get('user').id;
    const campaign = await findVisible<Campaign>(s, campaigns, c.req.param('campaignid'), userId);
    const link = await findItem(s, 'links', c.req.param('linkid'), userId, LINK_NOT_FOUND);
    // A link is in at most one campaign: assigning moves it. Both are read again inside the
    // transaction: either may have been deleted since the lookups.
    await s.store.transaction(async (tx) => {
      // Locked: a campaign deleted meanwhile waits for this assignment, then unassigns the link.
      if (!(await tx.getForUpdate('campaigns', campaign.id))) throw new ApiError(404, campaigns.messages.notFound);
      if (!(await tx.update('links', link.id, { campaign: campaign.id }))) throw new ApiError(404, LINK_NOT_FOUND);
    });
    return c.json({ error: 0, message: 'Link successfully added to the campaign.' });
  });
  return routes;
}
