import { OVERLAY_POSITIONS, overlays } from '../../resources/overlays.ts';
import { pixels } from '../../resources/pixels.ts';
import { splash } from '../../resources/splash.ts';
import { campaignScreen } from './campaign.tsx';
import { channelScreen } from './channel.tsx';
import { domainScreen } from './domain.tsx';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import type { Dashboard } from '../guard.ts';
import { resourceScreens } from './routes.tsx';
import type { ResourceScreen } from './screen.ts';

const PIXEL_NAMES: Record<string, string> = {
  gtmpixel: 'Google Tag Manager', gapixel: 'Google Analytics', fbpixel: 'Facebook', adwordspixel: 'Google Ads', linkedinpixel: 'LinkedIn', twitterpixel: 'X (Twitter)',
  adrollpixel: 'AdRoll', quorapixel: 'Quora', pinterest: 'Pinterest', bing: 'Bing', snapchat: 'Snapchat', reddit: 'Reddit', tiktok: 'TikTok',
};

/** The rows of the resource table that have generic dashboard screens, in the order of the bar's "More" menu. */
export const RESOURCE_SCREENS: readonly ResourceScreen[] = [
  campaignScreen,
  channelScreen,
  {
    row: pixels,
    path: 'pixels',
    title: 'Pixels',
    one: 'pixel',
    labels: { tag: 'Tag or ID' },
    hints: { tag: "The provider's ID (GTM-XXXX, G-XXXX, a pixel number): fired on the link's page." },
    optionLabels: { type: PIXEL_NAMES },
    columns: ['type', 'tag'],
  },
  domainScreen,
  {
    row: splash,
    path: 'splash',
    title: 'Splash pages',
    one: 'splash page',
    labels: { image: 'Image URL', countdown: 'Countdown (seconds)' },
    hints: { countdown: 'How long the page shows before the link goes on, 0 to 60.' },
    columns: ['date'],
  },
  {
    row: overlays,
    path: 'overlays',
    title: 'CTA overlays',
    one: 'overlay',
    labels: { buttontext: 'Button text', buttonlink: 'Button link', textcolor: 'Text colour', bgcolor: 'Background colour', buttoncolor: 'Button colour', fields: 'Contact form asks for', email: 'Send contact messages to' },
    hints: { fields: 'Contact overlays only.', email: 'Contact overlays only.' },
    optionLabels: { type: { message: 'Message with a button', contact: 'Contact form' }, position: Object.fromEntries(OVERLAY_POSITIONS.map((p) => [p, p.replace('-', ' ')])) },
    columns: ['type', 'date'],
  },
];

/** The areas of the table-driven screens, one per row. */
export const resourceAreas = (d: Dashboard): Hono<AppEnv>[] => RESOURCE_SCREENS.map((spec) => resourceScreens(d, spec));
