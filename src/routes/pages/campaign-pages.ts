import { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { escapeHtml, htmlPage } from '../../html/page.ts';
import type { Link } from '../../links/shape.ts';
import { shortUrlOf } from '../../links/shape.ts';
import { subjectOf } from '../../links/stats.ts';
import type { Campaign } from '../../resources/campaigns.ts';
import { campaignListPath, campaignPageRef } from '../../resources/campaigns.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { parseDateTime } from '../../resources/fields.ts';
import { notFoundPage, privateCampaignPage } from '../../redirect/pages.ts';
import { html, uncachedRedirect } from './redirects.ts';
import { resolveTarget } from '../../redirect/target.ts';
import { recordClick, visitOf } from '../../redirect/visit.ts';
import { isDisabled } from '../../auth/disabled-users.ts';

/** The links of a campaign that can be visited now, oldest first. */
export async function campaignLinks(s: Services, campaign: Campaign): Promise<Link[]> {
  const now = s.clock.now();
  const { items } = await s.store.find<Link>('links', { owner: campaign.userId!, conditions: [{ field: 'campaign', equals: campaign.id }], sort: { field: 'id', direction: 'asc' } });
  return items.filter((l) => l.expiry === undefined || parseDateTime(l.expiry) > now);
}

/** `GET /r/<slug>`: the campaign's links in turn (round robin); `GET /u/<username>/<slug or name>-<id>`: the public page of a campaign (other spellings redirect to it, as does the old `/c/<id>-…`). */
export function campaignPageRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // The turn of each rotator; in memory: after a restart the round starts again at the first link.
  const turns = new Map<number, number>();

  routes.get('/r/:slug', async (c) => {
    const campaign = await s.store.lookup<Campaign>('campaigns', 'slug', c.req.param('slug').toLowerCase());
    // A disabled user's rotator stops, as their links do.
    const links = campaign && !(await s.disabledUsers.check(campaign.userId!)) ? await campaignLinks(s, campaign) : [];
    if (!campaign || links.length === 0) return html(c, notFoundPage(), 404);
    const turn = turns.get(campaign.id) ?? 0;
    // A HEAD request is told the link whose turn it is, without taking the turn (nor counting).
    if (c.req.method !== 'HEAD') turns.set(campaign.id, turn + 1);
    const link = links[turn % links.length]!;
    // A protected link keeps its password: the visitor goes through its own short URL.
    if (link.password) return uncachedRedirect(await shortUrlOf(link, s), 302);
    const visit = visitOf(c, s);
    recordClick(s, subjectOf('link', link.id), link.userId, visit);
    recordClick(s, subjectOf('campaign', campaign.id), campaign.userId!, visit);
    return uncachedRedirect(resolveTarget(link, visit), s.config.redirectStatus);
  });

  /** The campaign a page reference names (`…-<id>`, or the bare id), with its owner; undefined when there is none. */
  const campaignOf = async (ref: string): Promise<{ campaign: Campaign; owner: UserRecord } | undefined> => {
    const id = /(?:^|-)(\d{1,12})$/.exec(ref)?.[1];
    const campaign = id ? await s.store.get<Campaign>('campaigns', Number(id)) : undefined;
    const owner = campaign ? await s.store.get<UserRecord>('users', campaign.userId!) : undefined;
    return campaign && owner && !isDisabled(owner) ? { campaign, owner } : undefined;
  };
  const publicCampaign = async (ref: string) => {
    const found = await campaignOf(ref);
    return found?.campaign.public ? found : undefined;
  };

  routes.get('/u/:username/:ref', async (c) => {
    const found = await campaignOf(c.req.param('ref'));
    // Another user's name in the URL is no way to a campaign: only its owner's (in any letter case).
    if (!found || found.owner.username.toLowerCase() !== c.req.param('username').toLowerCase()) return html(c, notFoundPage(), 404);
    const { campaign, owner } = found;
    if (!campaign.public) {
      // Said only at the page's own URL (its `list`), which names the owner and the campaign: whoever
      // has it knows the campaign exists, and learns nothing more. Any other spelling stays "not
      // found" and is not redirected, which would tell the name.
      const exact = c.req.param('username') === owner.username && c.req.param('ref') === campaignPageRef(campaign);
      return html(c, exact ? privateCampaignPage() : notFoundPage(), exact ? 403 : 404);
    }
    // Any other spelling (an old name, a typo, the bare id) goes to the page's one URL. 302, not
    // 301: the readable part follows the name, and a cached 301 could loop after a rename back.
    if (c.req.param('username') !== owner.username || c.req.param('ref') !== campaignPageRef(campaign)) return uncachedRedirect(campaignListPath(campaign, owner.username), 302);
    // A public page never shows what its owner kept private or behind a password, not even a destination.
    const shown = (await campaignLinks(s, campaign)).filter((l) => l.status === 'public' && !l.password);
    const urls = await Promise.all(shown.map((l) => shortUrlOf(l, s)));
    const items = shown.map((l, i) => `<li><a href="${escapeHtml(urls[i]!)}">${escapeHtml(l.title || l.url)}</a> <span class="muted">${escapeHtml(urls[i]!)}</span></li>`).join('');
    return html(c, htmlPage(campaign.name, `<main><h1>${escapeHtml(campaign.name)}</h1>${items ? `<ul>${items}</ul>` : '<p>No links yet.</p>'}</main>`));
  });

  // The page's address before it followed the real product's: kept working, it goes to the new one.
  routes.get('/c/:ref', async (c) => {
    const ref = c.req.param('ref');
    const found = await publicCampaign(/^(\d{1,12})(?:-|$)/.exec(ref)?.[1] ?? ref);
    return found ? uncachedRedirect(campaignListPath(found.campaign, found.owner.username), 302) : html(c, notFoundPage(), 404);
  });
  return routes;
}
