import { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { escapeHtml, htmlPage } from '../../html/page.ts';
import type { Link } from '../../links/shape.ts';
import { shortUrlOf } from '../../links/shape.ts';
import { subjectOf } from '../../links/stats.ts';
import type { Campaign } from '../../resources/campaigns.ts';
import { campaignListPath } from '../../resources/campaigns.ts';
import type { Services } from '../../resources/define.ts';
import { parseDateTime } from '../../resources/fields.ts';
import { notFoundPage } from '../../redirect/pages.ts';
import { html, uncachedRedirect } from './redirects.ts';
import { resolveTarget } from '../../redirect/target.ts';
import { recordClick, visitOf } from '../../redirect/visit.ts';

/** The links of a campaign that can be visited now, oldest first. */
export async function campaignLinks(s: Services, campaign: Campaign): Promise<Link[]> {
  const now = s.clock.now();
  const { items } = await s.store.find<Link>('links', { owner: campaign.userId!, conditions: [{ field: 'campaign', equals: campaign.id }], sort: { field: 'id', direction: 'asc' } });
  return items.filter((l) => l.expiry === undefined || parseDateTime(l.expiry) > now);
}

/** `GET /r/<slug>`: the campaign's links in turn (round robin); `GET /c/<id>-<slug or name>`: the public page of a campaign (other spellings redirect to it). */
export function campaignPageRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // The turn of each rotator; in memory: after a restart the round starts again at the first link.
  const turns = new Map<number, number>();

  routes.get('/r/:slug', async (c) => {
    const campaign = await s.store.lookup<Campaign>('campaigns', 'slug', c.req.param('slug').toLowerCase());
    const links = campaign ? await campaignLinks(s, campaign) : [];
    if (!campaign || links.length === 0) return html(c, notFoundPage(), 404);
    const turn = turns.get(campaign.id) ?? 0;
    turns.set(campaign.id, turn + 1);
    const link = links[turn % links.length]!;
    // A protected link keeps its password: the visitor goes through its own short URL.
    if (link.password) return uncachedRedirect(await shortUrlOf(link, s), 302);
    const visit = visitOf(c, s);
    recordClick(s, subjectOf('link', link.id), link.userId, visit);
    recordClick(s, subjectOf('campaign', campaign.id), campaign.userId!, visit);
    return uncachedRedirect(resolveTarget(link, visit), s.config.redirectStatus);
  });

  routes.get('/c/:ref', async (c) => {
    const id = /^(\d{1,12})(?:-|$)/.exec(c.req.param('ref'))?.[1];
    const campaign = id ? await s.store.get<Campaign>('campaigns', Number(id)) : undefined;
    if (!campaign?.public) return html(c, notFoundPage(), 404);
    // Any other spelling (an old name, a typo, the bare id) goes to the page's one URL. 302, not
    // 301: the readable part follows the name, and a cached 301 could loop after a rename back.
    const path = campaignListPath(campaign);
    if (c.req.path !== path) return uncachedRedirect(path, 302);
    // A public page never shows what its owner kept private or behind a password, not even a destination.
    const shown = (await campaignLinks(s, campaign)).filter((l) => l.status === 'public' && !l.password);
    const urls = await Promise.all(shown.map((l) => shortUrlOf(l, s)));
    const items = shown.map((l, i) => `<li><a href="${escapeHtml(urls[i]!)}">${escapeHtml(l.title || l.url)}</a> <span class="muted">${escapeHtml(urls[i]!)}</span></li>`).join('');
    return html(c, htmlPage(campaign.name, `<main><h1>${escapeHtml(campaign.name)}</h1>${items ? `<ul>${items}</ul>` : '<p>No links yet.</p>'}</main>`));
  });
  return routes;
}
