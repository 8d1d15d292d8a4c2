import { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { findVisible } from '../crud.ts';
import { campaigns } from '../../resources/campaigns.ts';
import type { Campaign } from '../../resources/campaigns.ts';
import type { Services } from '../../resources/define.ts';
import { findItem } from './find-item.ts';

/** The answer to a link that is not the user's (or not there) when putting links in a campaign. */
export const LINK_NOT_FOUND = 'Link not found. Please try again.';

/**
 * Puts links of the user in one of the user's campaigns (the API's assign route: one link; the
 * dashboard's "move to campaign": several), only that field changing. A link is in at most one
 * campaign: assigning moves it. All or none: a link or campaign not the user's is a 404 and moves nothing.
 */
export async function assignToCampaign(s: Services, userId: number, campaignRaw: string | undefined, linkRaws: readonly (string | undefined)[]): Promise<void> {
  const campaign = await findVisible<Campaign>(s, campaigns, campaignRaw, userId);
  const found = await Promise.all(linkRaws.map((raw) => findItem(s, 'links', raw, userId, LINK_NOT_FOUND)));
  // Both are read again inside the transaction: either may have been deleted since the lookups.
  await s.store.transaction(async (tx) => {
    // Locked: a campaign deleted meanwhile waits for this assignment, then unassigns the links.
    if (!(await tx.getForUpdate('campaigns', campaign.id))) throw new ApiError(404, campaigns.messages.notFound);
    for (const link of found) if (!(await tx.update('links', link.id, { campaign: campaign.id }))) throw new ApiError(404, LINK_NOT_FOUND);
  });
}

/** What campaigns do beyond the generic routes: putting a link in a campaign. */
export function campaignRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/api/campaign/:campaignid/assign/:linkid', async (c) => {
    await assignToCampaign(s, c.get('user').id, c.req.param('campaignid'), [c.req.param('linkid')]);
    return c.json({ error: 0, message: 'Link successfully added to the campaign.' });
  });
  return routes;
}
