import type { Campaign } from '../../resources/campaigns.ts';
import { campaignListUrl, campaigns, rotatorUrl } from '../../resources/campaigns.ts';
import type { StoredRecord } from '../../store/store.ts';
import type { ResourceScreen, ScreenContext } from './screen.ts';

/** What a campaign's page adds: its public page and its rotator, each with a copy button. */
async function campaignLinks(x: ScreenContext, record: StoredRecord) {
  const c = record as Campaign;
  const { config } = x.d.s;
  const page = campaignListUrl(config, c, x.who.user.username);
  const rotator = rotatorUrl(config, c);
  return (
    <section class="card" aria-labelledby="campaign-links-h">
      <h2 id="campaign-links-h">Where visitors find it</h2>
      <p>
        Public page:{' '}
        <a class="short" href={page}>
          {page}
        </a>{' '}
        <button type="button" class="secondary" data-copy={page} hidden>
          Copy
        </button>
      </p>
      <p class="hint">{c.public ? "It lists the campaign's public links without a password." : 'Visitors are refused until the campaign is public (tick Public below).'}</p>
      {rotator ? (
        <p>
          Rotator:{' '}
          <a class="short" href={rotator}>
            {rotator}
          </a>{' '}
          <button type="button" class="secondary" data-copy={rotator} hidden>
            Copy
          </button>
          <br />
          <span class="hint">Each visit goes to one of the campaign's links in turn.</span>
        </p>
      ) : (
        <p class="hint">No rotator: give the campaign a slug to have one at /r/slug.</p>
      )}
    </section>
  );
}

/** The campaign screens. */
export const campaignScreen: ResourceScreen = {
  row: campaigns,
  path: 'campaigns',
  title: 'Campaigns',
  one: 'campaign',
  labels: { slug: 'Rotator slug', public: 'Public', rotator: 'Rotator', list: 'Public page', views: 'Visits', domain: 'Name' },
  hints: { slug: '3 to 64 letters, digits, - or _: the rotator is then at /r/slug. Empty: no rotator.', public: 'Anyone with the link sees the page of its public links.' },
  columns: ['public', 'rotator', 'views'],
  facts: ['public', 'views'],
  details: campaignLinks,
};
