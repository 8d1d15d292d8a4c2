import * as v from 'valibot';
import { TrackedEvent } from '../analytics/visit-tally.ts';
import { MAX_EVENT_PROPERTIES, PROPERTY_NAME_MAX, PROPERTY_VALUE_MAX } from '../analytics/event-properties.ts';
import type { Config } from '../config.ts';
import { QR_IMAGE_SIZES, snapQrSize } from '../qr/image-sizes.ts';
import type { Components } from './components.ts';
import { headerRef, ref } from './components.ts';
import { inputSchema, shapeSchema } from './json-schema.ts';
import { STATS_PAGE_QUERY } from './stats-page-operations.ts';
import type { Body, Method, OpSpec, Param, Reply } from './operation.ts';

const page = (description: string): Reply => ({ description, type: 'text/html' });
const retryPage = (description: string): Reply => ({ ...page(description), headers: { 'Retry-After': headerRef('Retry-After') } });
const busyJson = (description: string): Reply => ({ description, schema: ref('LinkError'), headers: { 'Retry-After': headerRef('Retry-After') } });
const redirect = (description: string): Reply => ({ description, headers: { Location: { description: 'Where to go.', schema: { type: 'string' } } } });
const form = (fields: Record<string, string>, example: Record<string, string>): Body => ({
  schema: { type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([k, d]) => [k, { type: 'string', description: d }])) },
  example,
  types: ['application/x-www-form-urlencoded'],
});

/** What a public operation adds to its id, method, path, summary and responses. */
interface Extra {
  description?: string;
  query?: readonly Param[];
  body?: Body;
  errors?: readonly number[];
}

/** An operation that needs no key. */
function open(tag: string, operationId: string, method: Method, path: string, summary: string, responses: Record<string, Reply>, extra: Extra = {}): OpSpec {
  return { dialect: 'public', tag, operationId, method, path, summary, responses, ...extra };
}

const EVENT_EXAMPLE = { page: 'https://site1.example.com/pricing?utm_campaign=launch', referrer: 'https://news.example.org/', screen_resolution: '1920x1080' };

/** The tracking endpoints and pages of the analytics side that need no key. */
export function trackingOperations(c: Components): OpSpec[] {
  const tag = 'Tracking';
  const domainPage = { '301': redirect('To the stored spelling of the domain.'), '404': page('No such website.') };
  return [
    open(tag, 'trackEvent', 'post', '/api/event', 'Record a pageview or a custom event', { '202': { description: 'Accepted (no body).' } }, {
      description:
        'Sent by the tracking script, without a key. The website is found by the host name of `page`. Counted, dropped (bot, excluded IP) and accepted events all answer 202. ' +
        'Any content type is read as JSON (`navigator.sendBeacon` sends text/plain). Errors use the link-management shape. ' +
        `A custom event (\`event\`) may carry \`properties\` (ours): at most ${MAX_EVENT_PROPERTIES} names of 1 to ${PROPERTY_NAME_MAX} characters, each with a string (up to ${PROPERTY_VALUE_MAX} characters), a number or a boolean, counted as text (\`GET /api/v1/stats/{id}?name=event_property\`); \`__proto__\`, \`constructor\` and \`prototype\` are no names.`,
      body: { ...c.body('TrackedEvent', () => inputSchema(TrackedEvent)), example: EVENT_EXAMPLE, types: ['application/json', 'text/plain'] },
      errors: [400, 404, 413, 429],
    }),
    open(tag, 'trackEventPreflight', 'options', '/api/event', 'CORS preflight of the event endpoint', { '204': { description: 'Allowed from any origin.' } }),
    open(tag, 'getTrackerScript', 'get', '/js/script.js', 'The tracking script', { '200': { description: 'The script.', type: 'application/javascript' } }, {
      description: 'Add `<script defer src="BASE_URL/js/script.js"></script>` to the tracked site.',
    }),
    open(tag, 'getStatsPage', 'get', '/stats/:domain', 'The statistics page of a website', { '200': page('The page.'), '401': page('The sign-in form.'), '429': retryPage('This client IP has opened STATS_PAGE_RATE_LIMIT stats pages and downloads in this window.'), ...domainPage }, {
      description:
        'Public for privacy 0; the owner (privacy 1) or anyone with the page password (privacy 2) sign in through the POST of the same path. Works without JavaScript: presets, tabs and events are links, the custom range a GET form; a range the page cannot use shows the last 30 days with a notice.',
      query: STATS_PAGE_QUERY,
    }),
    open(
      tag,
      'signInStatsPage',
      'post',
      '/stats/:domain',
      'Sign in to a private statistics page',
      {
        '303': redirect('Signed in (a cookie is set): back to the page.'),
        '401': page('Wrong key or password.'),
        '403': page('The form was posted from another site.'),
        '429': retryPage('Too many wrong passwords or keys from this client or on this page (PASSWORD_ATTEMPT_LIMIT, PASSWORD_ATTEMPT_LINK_LIMIT), until the window ends.'),
        '503': retryPage('Too many password checks are waiting.'),
        ...domainPage,
      },
      { body: form({ key: "The owner's API key (privacy 1).", password: 'The page password (privacy 2).' }, { password: 'page-password' }) },
    ),
  ];
}

const SIZES = `${QR_IMAGE_SIZES.slice(0, -1).join(', ')} and ${QR_IMAGE_SIZES.at(-1)}`;
const QR_QUERY: readonly Param[] = [
  { name: 'format', schema: { type: 'string', enum: ['png', 'svg'], default: 'png' } },
  { name: 'size', description: `Pixels; drawn at the nearest of ${SIZES} (300: ${snapQrSize(300)}).`, schema: { type: 'integer', minimum: 64, maximum: 2048, default: 300 } },
  { name: 'margin', description: 'Modules of quiet zone.', schema: { type: 'integer', minimum: 0, maximum: 16, default: 2 } },
  { name: 'ecl', description: 'Error correction level.', schema: { type: 'string', enum: ['L', 'M', 'Q', 'H'], default: 'M' } },
];

/** The short links themselves, QR images, campaign pages, and the server's own pages. */
export function publicOperations(c: Components, config: Config): OpSpec[] {
  const tag = 'Public pages';
  const go = { [String(config.redirectStatus)]: redirect(`To the target (REDIRECT_STATUS, here ${config.redirectStatus}).`) };
  const missing = page('Not found (on a branded domain with a 404 redirect: a 302 there instead).');
  const gone = page('The link has expired.');
  const health = () => shapeSchema(v.strictObject({ status: v.literal('ok') }));
  const ready = (status: string) => () => shapeSchema(v.strictObject({ status: v.literal(status), checks: v.record(v.string(), v.picklist(['ok', 'lagging', 'unavailable'])) }));
  return [
    open(tag, 'home', 'get', '/', 'Home page', { '200': page('A short page pointing at /docs.'), '302': redirect('On a branded domain with a root redirect: to it.') }),
    open(tag, 'health', 'get', '/health', 'Liveness check', { '200': { description: 'The process is up (whatever its database does).', schema: c.schema('Health', health) } }),
    open(
      tag,
      'ready',
      'get',
      '/ready',
      'Readiness check',
      {
        '200': { description: 'The instance can serve: its store answers (and Redis, when the rate limits count there).', schema: c.schema('Ready', ready('ready')), headers: { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string' } } } },
        '503': { description: 'It cannot: `checks` names what does not answer.', schema: c.schema('NotReady', ready('unavailable')), headers: { 'Retry-After': headerRef('Retry-After') } },
      },
      {
        description:
          'For a proxy or orchestrator: send traffic elsewhere while this answers 503. `checks.store` is the JSON files or PostgreSQL (one trivial statement on a pooled connection proven alive); `checks.redis` is there when `REDIS_URL` is set, and makes the answer 503 only with `RATE_LIMIT_ON_ERROR=closed` (with `open` the instance serves without limits). ' +
          'Each read replica of `DATABASE_READ_URL` is a check named `replica host:port/database`: `ok` (it serves reads), `lagging` (further behind than `DATABASE_READ_MAX_LAG`) or `unavailable` (it does not answer); a replica never makes the answer 503, as its reads go to the primary meanwhile. ' +
          'The probe is shared: its answer is reused for a second, so a busy proxy costs the database one statement a second; a probe waits at most `DATABASE_TIMEOUT`, and never more than 2 s.',
      },
    ),
    open(tag, 'getOpenApi', 'get', '/openapi.json', 'This document', { '200': { description: 'The OpenAPI 3.1 document.', schema: { type: 'object' } } }),
    open(tag, 'getDocs', 'get', '/docs', 'The API reference page', { '200': page('This document as a readable page.') }),
    open(tag, 'getFavicon', 'get', '/favicon.ico', "The site's icon", { '200': { description: 'An ICO file holding one 32x32 PNG, cached for a day (pages carry the icon inline).', type: 'image/x-icon' } }),
    open(tag, 'followLink', 'get', '/:alias', 'Follow a short link', { ...go, '200': { ...page('The interstitial page, or the password form of a protected link or file; or an uploaded file (see Files), as an attachment of its own type.'), type: ['text/html', 'application/octet-stream'] }, '404': missing, '410': gone }, {
      description:
        'Counts the click. Geo, device and language targets pick the target. Links of type frame, splash or overlay, and links with pixels, answer a page instead of a redirect. ' +
        "An uploaded file's short URL downloads it (counted): `Content-Disposition: attachment`, its stored type, `X-Content-Type-Options: nosniff` and a sandboxing CSP; an expired one answers 410; " +
        'one uploaded with a password answers its password form until the password is given (a signed cookie for a day, as for links).',
    }),
    open(
      tag,
      'unlockLink',
      'post',
      '/:alias',
      'Send the password of a protected link or file',
      {
        '200': page('Accepted (a cookie is set): a page that opens the link or downloads the file (a redirect would be refused by the form\'s CSP, form-action \'self\', on its way to the target).'),
        '303': redirect('The link or file has no password: back to it.'),
        '403': page('Wrong password, or the form was posted from another site.'),
        '404': missing,
        '410': gone,
        '429': retryPage('Too many wrong passwords from this client or on this link or file (PASSWORD_ATTEMPT_LIMIT, PASSWORD_ATTEMPT_LINK_LIMIT), until the window ends.'),
        '503': retryPage('Too many password checks are waiting.'),
      },
      { body: form({ password: 'The password of the link or file.' }, { password: 'secret' }) },
    ),
    open(tag, 'getQrImage', 'get', '/qr/:alias', 'The image of a QR code', {
      '200': { description: `PNG, or SVG with \`format=svg\`, drawn at the nearest of ${SIZES} px.`, type: ['image/png', 'image/svg+xml'] },
      '404': page('No such QR code.'),
      '429': busyJson('This client has had RENDER_RATE_LIMIT images drawn in this window; images already drawn are still answered.'),
      '503': busyJson('The render queue is full (RENDER_QUEUE images wait already), or, with RATE_LIMIT_ON_ERROR=closed, the shared rate-limit counts cannot be reached.'),
    }, {
      query: QR_QUERY,
      errors: [400],
    }),
    open(tag, 'scanQr', 'get', '/qr/:alias/scan', 'Scan of a link QR code', { '302': redirect("To the QR code's link."), '404': page('No such link QR code.') }, {
      description: 'What link QR codes encode: counts the scan, then redirects.',
    }),
    open(tag, 'rotateCampaign', 'get', '/r/:slug', 'Campaign rotator', { ...go, '302': redirect("To a protected link's short URL."), '404': page('No such campaign, or no link to visit.') }, {
      description: "The campaign's links in turn; a protected link goes through its own short URL.",
    }),
    open(tag, 'getCampaignListPage', 'get', '/u/:username/:ref', 'Public page of a campaign', { '200': page('The links of a public campaign.'), '302': redirect("Another spelling of the page's URL: to the one its `list` URL gives."), '403': page("A private campaign, at its own `list` URL: a page saying so, showing nothing of it."), '404': page('No such campaign of this user (a private one at any other spelling of its URL too: no redirect names it).') }, {
      description: "As the campaign's `list` URL gives it: `:username` is its owner's, `:ref` is `<slug>-<id>`, or `<name as words>-<id>` for a campaign without a slug (the bare id when no word is left). Public links only.",
    }),
    open(tag, 'getBioPage', 'get', '/u/:alias', 'Public page of a bio', { '200': page('The bio: its avatar, name, description and links, in its theme.'), '302': redirect("Another letter case of the alias: to the bio's `link`. On a branded domain with a 404 redirect: to it."), '404': page('No such bio (on a branded domain, never: bios live on the main host).') }, {
      description: "The bio's `link`. Only http(s) links are clickable and every stored text is escaped.",
    }),
    open(tag, 'getCampaignPage', 'get', '/c/:ref', 'Old address of a campaign page', { '302': redirect('To the page at its `list` URL.'), '404': page('No such public campaign.') }, {
      description: '`:ref` is `<id>-<slug>` (or names the id as `/u/` does): the address campaign pages had before they followed the real product\'s.',
    }),
    open(tag, 'openLoginLink', 'get', '/login', 'A one-time sign-in link', { '200': page('A page with one button that takes a new API key (opening it uses nothing up).'), '404': page('The link was used, expired or never existed.') }, {
      query: [{ name: 'token', required: true, description: 'The secret of the link, as `GET /api/user/login/:id` gave it.', schema: { type: 'string' }, example: '2.secret' }],
    }),
    open(
      tag,
      'useLoginLink',
      'post',
      '/login',
      'Use a one-time sign-in link',
      { '200': page("The user's new API key, shown once; the old key stops working."), '403': page('The form was posted from another site.'), '404': page('The link was used, expired or never existed.') },
      { body: form({ token: 'The secret of the link.' }, { token: '2.secret' }) },
    ),
  ];
}
