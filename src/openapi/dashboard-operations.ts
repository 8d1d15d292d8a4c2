import type { Config } from '../config.ts';
import type { Body, Method, OpSpec, Param, Reply } from './operation.ts';

const TAG = 'Dashboard';
/** A page answer (HTML). */
export const page = (description: string): Reply => ({ description, type: 'text/html' });
/** A redirect answer. */
export const redirect = (description: string): Reply => ({ description, headers: { Location: { description: 'Where to go.', schema: { type: 'string' } } } });
/** A form body: its fields (all text) and an example. */
export const form = (fields: Record<string, string>, example: Record<string, string>): Body => ({
  schema: { type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([k, d]) => [k, { type: 'string', description: d }])) },
  example,
  types: ['application/x-www-form-urlencoded'],
});
/** The answer of a page without a session. */
export const signIn = { '302': redirect('No session: to /app/login.') };
/** The answers of every post of a signed-in page. */
export const posted = { '303': redirect('Done (or no session: to /app/login).'), '403': page('The form token is missing or wrong, the form came from another site, or the session\'s API key lacks the scope.') };
// What a form that makes a secret hands the page its redirect opens (dashboard/shown-once.ts).
const ONCE = 'the form redirects here with ?made=<nonce> and the secret sealed for this session in the cookie shown_once_<nonce> of this path, which this page reads and deletes';
// A delete without `confirmed=yes` asks on a page first (the script asks in a box, and sets it).
const ASKS = 'Not confirmed yet: the page that asks, with the same form confirmed.';
const CONFIRMED_FIELD = 'yes once the person confirmed the delete; anything else answers the page that asks.';
/** The answer of a form that asks first (ask-first.tsx) before it is confirmed, and its body: the form token and `confirmed`. */
export const ASKING = { '200': page(ASKS) };
const mine = { '404': page('No such link among the user\'s (another user\'s answers the same).') };
/** The form token field of every signed-in form. */
export const CSRF = { csrf: 'The form token of the page the form is on.' };
/** The body of a form that asks first: its form token and `confirmed`. */
export const CONFIRMED_BODY = form({ ...CSRF, confirmed: CONFIRMED_FIELD }, { csrf: 'token', confirmed: 'yes' });

/**
 * Screens not counted against RATE_LIMIT (src/dashboard/guard.ts): those that only end sessions
 * (signing out works over the limit too), and the QR images a counted page shows (a list shows 25).
 */
const UNCOUNTED = new Set(['/app/logout', '/app/admin/return', '/app/links/:id/qr', '/app/qrs/:id/image']);
const limited = {
  '429': { ...page("Over the user's RATE_LIMIT, which signed-in pages and the user's API calls count against together."), headers: { 'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer' } } } },
};

/** One dashboard operation (a signed-in one may answer 429, as every signed-in screen counts against RATE_LIMIT). */
export function screen(operationId: string, method: Method, path: string, summary: string, responses: Record<string, Reply>, extra: { query?: readonly Param[]; body?: Body; description?: string } = {}): OpSpec {
  // A screen behind sign-in (it sends a request without a session to /app/login) counts against RATE_LIMIT, but those that only end sessions.
  const signedIn = (responses['302'] === signIn['302'] || responses['303'] === posted['303']) && !UNCOUNTED.has(path);
  return { dialect: 'public', tag: TAG, operationId, method, path, summary, responses: signedIn ? { ...limited, ...responses } : responses, ...extra };
}

const LINK_FIELDS = {
  ...CSRF,
  url: 'The long URL.',
  custom: 'The alias (optional).',
  domain: 'A branded domain of the user, by host name; empty: the main domain.',
  password: 'A password (optional).',
  expiry: 'When it expires, YYYY-MM-DDTHH:MM UTC (optional).',
  type: 'direct, frame, a splash page id or overlay-<id>.',
  status: 'public or private.',
  campaign: 'A campaign id.',
  channel: 'A channel id.',
  pixels: 'Pixel ids (repeated).',
  geo_key: 'Country targets (repeated, with geo_link); device_key/device_link and language_key/language_link likewise.',
  geo_link: 'Where each country target sends.',
};

/**
 * The dashboard's pages and forms (DASHBOARD on): HTML for people, signed in by a session cookie,
 * every post carrying the page's form token; none when DASHBOARD is off.
 */
export function dashboardOperations(config: Config): OpSpec[] {
  if (!config.dashboard) return [];
  const list: Param[] = [
    { name: 'q', description: 'Search in URLs, aliases and titles.', schema: { type: 'string' }, lenient: true },
    { name: 'domain', description: '`main`, or a branded domain id.', schema: { type: 'string' }, lenient: true },
    { name: 'campaign', schema: { type: 'string' }, lenient: true },
    { name: 'channel', schema: { type: 'string' }, lenient: true },
    { name: 'sort', schema: { type: 'string', enum: ['new', 'old', 'clicks'], default: 'new' }, lenient: true },
    { name: 'per', schema: { type: 'integer', enum: [25, 50, 100], default: 25 }, lenient: true },
    { name: 'page', schema: { type: 'integer', minimum: 1, default: 1 }, lenient: true },
  ];
  const ops = [
    screen('dashboardHome', 'get', '/app', 'The dashboard', { '302': redirect('To /app/links, or without a session to /app/login.') }),
    screen('dashboardLoginPage', 'get', '/app/login', 'The sign-in page', { '200': page('Username or email and password, or an API key.'), '302': redirect('Signed in already: to /app.') }),
    screen(
      'dashboardLogin',
      'post',
      '/app/login',
      'Sign in',
      {
        '303': redirect('Signed in (a session cookie is set): to /app/links.'),
        '400': page('A field is empty.'),
        '401': page('Wrong name, password or key; the form again.'),
        '403': page('The form token is missing or wrong, or the form came from another site.'),
        '429': { ...page('Too many wrong attempts from this client or for this name (PASSWORD_ATTEMPT_LIMIT, PASSWORD_ATTEMPT_LINK_LIMIT).'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } },
        '503': { ...page('Too many password checks are waiting.'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } },
      },
      { body: form({ ...CSRF, login: 'Username or email.', password: 'The password.', apikey: 'Or an API key.' }, { csrf: 'token', login: 'alice', password: 'secret' }) },
    ),
    screen('dashboardLogout', 'post', '/app/logout', 'Sign out', posted, { body: form(CSRF, { csrf: 'token' }) }),
    screen('dashboardAccount', 'get', '/app/account', 'The account page: plan, email and password forms, the sessions of the account', { '200': page('The page.'), ...signIn }),
    screen('dashboardSignOutEverywhere', 'post', '/app/account/sessions/revoke-all', 'Sign out everywhere', { ...posted, ...ASKING }, { body: CONFIRMED_BODY }),
    screen('dashboardRevokeSession', 'post', '/app/account/sessions/:id/revoke', 'End one session', { ...posted, '404': page('No such session of the user.') }, { body: form(CSRF, { csrf: 'token' }) }),
    screen('dashboardLinks', 'get', '/app/links', 'The list of links', { '200': page('The page.'), ...signIn }, { query: list }),
    screen('dashboardNewLink', 'get', '/app/links/new', 'The form of a new link', { '200': page('The form.'), ...signIn }),
    screen('dashboardCreateLink', 'post', '/app/links', 'Create a link', { ...posted, '400': page("The form again, with the API's message beside the field.") }, { body: form(LINK_FIELDS, { csrf: 'token', url: 'https://example.com/' }) }),
    screen('dashboardLink', 'get', '/app/links/:id', "A link's page: short URL, QR code, statistics", { '200': page('The page.'), ...signIn, ...mine }, { query: [{ name: 'days', schema: { type: 'integer', enum: [7, 30, 90, 365], default: 30 }, lenient: true }] }),
    screen('dashboardLinkQr', 'get', '/app/links/:id/qr', "A link's QR code (PNG, or SVG with format=svg)", { '200': { description: 'The image.', type: ['image/png', 'image/svg+xml'] }, ...signIn, ...mine }, {
      query: [
        { name: 'format', schema: { type: 'string', enum: ['png', 'svg'], default: 'png' }, lenient: true },
        { name: 'download', description: '1: 1024 px, as an attachment.', schema: { type: 'string' }, lenient: true },
      ],
    }),
    screen('dashboardEditLink', 'get', '/app/links/:id/edit', 'The form of a link', { '200': page('The form.'), ...signIn, ...mine }),
    screen('dashboardSaveLink', 'post', '/app/links/:id/edit', 'Save a link', { ...posted, ...mine, '400': page("The form again, with the API's message beside the field.") }, { body: form(LINK_FIELDS, { csrf: 'token', url: 'https://example.com/' }) }),
    screen('dashboardDeleteLink', 'post', '/app/links/:id/delete', 'Delete a link', { ...posted, ...mine, ...ASKING }, { body: CONFIRMED_BODY }),
    screen('dashboardBulkLinks', 'post', '/app/links/bulk', 'Delete several links, or move them to a campaign', { ...posted, ...mine, '200': page(ASKS), '400': page('Nothing selected, or an unknown action.') }, {
      body: form({ ...CSRF, action: 'delete or move.', ids: 'Link ids (repeated).', campaign: 'The campaign id (move).', confirmed: CONFIRMED_FIELD }, { csrf: 'token', action: 'delete', ids: '1', confirmed: 'yes' }),
    }),
    ...accountOperations(),
    ...adminOperations(),
    ...websiteOperations(),
  ];
  if (config.openRegistration) {
    ops.push(
      screen('dashboardRegisterPage', 'get', '/app/register', 'The registration page (OPEN_REGISTRATION on)', { '200': page('The form.'), '302': redirect('Signed in already: to /app.') }),
      screen(
        'dashboardRegister',
        'post',
        '/app/register',
        'Create an account (OPEN_REGISTRATION on)',
        {
          '200': page('The new API key, shown once; signed in.'),
          '400': page("The form again, with the API's message beside the field."),
          '403': page('The form token is missing or wrong, or the form came from another site.'),
          '429': { ...page('Too many sign-ups or failed sign-ins from this client (AUTH_FAILURE_LIMIT).'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } },
        },
        { body: form({ ...CSRF, username: 'Username.', email: 'Email.', password: 'Password.' }, { csrf: 'token', username: 'alice', email: 'alice@example.com', password: 'secret' }) },
      ),
    );
  }
  return ops;
}

const refused = (what: string) => ({ '400': page(`The form again, with ${what} beside the field.`) });
const none = (what: string) => ({ '404': page(`No such ${what} among the user's (another user's answers the same).`) });
const token = form(CSRF, { csrf: 'token' });

/** The account's forms, API keys and webhooks. */
function accountOperations(): OpSpec[] {
  const profile: Record<string, Reply> = {
    ...posted,
    '400': page("The page again, with the message beside the field (wrong form, the API's check)."),
    '401': page('The current password is wrong, or too many were (then the 400 page says so, 429).'),
  };
  return [
    screen('dashboardChangeEmail', 'post', '/app/account/email', "Change the account's email (the current password when it has one)", profile, {
      body: form({ ...CSRF, email: 'The new email.', current_password: 'The current password (when the account has one).' }, { csrf: 'token', email: 'new@example.com', current_password: 'secret' }),
    }),
    screen('dashboardChangePassword', 'post', '/app/account/password', 'Set or change the password (the current one when there is one)', profile, {
      body: form({ ...CSRF, current_password: 'The current password (when the account has one).', password: 'The new password.', password_again: 'The new password again.' }, { csrf: 'token', password: 'new-secret', password_again: 'new-secret' }),
    }),
    screen('dashboardKeys', 'get', '/app/account/keys', "The account's API keys", { '200': page(`The page; right after a key was made, the key, shown once (${ONCE}).`), ...signIn }),
    screen('dashboardCreateKey', 'post', '/app/account/keys', 'Make an API key', { ...posted, ...refused("the API's message") }, {
      body: form({ ...CSRF, name: 'The name.', scopes: 'Scopes (repeated).', expires: 'When it expires, YYYY-MM-DDTHH:MM UTC (optional).', ips: 'Allowed addresses or CIDR ranges, one a line (optional).' }, { csrf: 'token', name: 'Deploy', scopes: 'links:read' }),
    }),
    screen('dashboardRevokeKey', 'post', '/app/account/keys/:id/revoke', 'Revoke an API key', { ...posted, ...none('key'), ...ASKING, '403': page('The session\'s key lacks keys:write, or the key revoked has a scope it does not hold.') }, { body: CONFIRMED_BODY }),
    screen('dashboardWebhooks', 'get', '/app/account/webhooks', "The account's webhooks", { '200': page(`The page; right after a webhook was made, its signing secret, shown once (${ONCE}).`), ...signIn }),
    screen('dashboardCreateWebhook', 'post', '/app/account/webhooks', 'Make a webhook', { ...posted, ...refused("the API's message") }, {
      body: form({ ...CSRF, url: 'Where events are sent.', events: 'Event types (repeated), or *.' }, { csrf: 'token', url: 'https://hooks.example.com/in', events: '*' }),
    }),
    screen('dashboardTestWebhook', 'post', '/app/account/webhooks/:id/test', 'Send a test event to a webhook', { ...posted, ...none('webhook') }, { body: token }),
    screen('dashboardDeleteWebhook', 'post', '/app/account/webhooks/:id/delete', 'Delete a webhook', { ...posted, ...none('webhook'), ...ASKING }, { body: CONFIRMED_BODY }),
  ];
}

/** The admin's users screens ("sign in as" included); 404 to anyone else. */
function adminOperations(): OpSpec[] {
  const onlyAdmin = { '404': page('Not the admin (or no such user).') };
  return [
    screen('dashboardUsers', 'get', '/app/admin/users', 'The users (admin)', { '200': page(`The page; right after a user was made, their API key, shown once (${ONCE}).`), ...signIn, ...onlyAdmin }, {
      query: [
        { name: 'q', description: 'Search in usernames and emails.', schema: { type: 'string' }, lenient: true },
        { name: 'page', schema: { type: 'integer', minimum: 1, default: 1 }, lenient: true },
      ],
    }),
    screen('dashboardCreateUser', 'post', '/app/admin/users', 'Make a user (admin)', { ...posted, ...onlyAdmin, ...refused("the API's message") }, {
      body: form({ ...CSRF, username: 'Username.', email: 'Email.', password: 'Password.' }, { csrf: 'token', username: 'carol', email: 'carol@example.com', password: 'secret' }),
    }),
    screen('dashboardDeleteUser', 'post', '/app/admin/users/:id/delete', 'Delete a user and what they own (admin)', { ...posted, ...onlyAdmin, ...ASKING, '400': page('The admin\'s own account.') }, { body: CONFIRMED_BODY }),
    screen('dashboardDisableUser', 'post', '/app/admin/users/:id/disable', 'Disable a user: their keys, sessions and links stop (admin; audited)', { ...posted, ...onlyAdmin, ...ASKING, '400': page('The admin\'s own account.') }, {
      body: form({ ...CSRF, reason: 'Why (optional; shown to admins only).', confirmed: CONFIRMED_FIELD }, { csrf: 'token', reason: 'Spam links', confirmed: 'yes' }),
    }),
    screen('dashboardEnableUser', 'post', '/app/admin/users/:id/enable', 'Enable a disabled user again (admin; audited)', { ...posted, ...onlyAdmin }, { body: token }),
    screen('dashboardSignInAs', 'post', '/app/admin/users/:id/sign-in-as', 'Open a session as a user (admin; audited)', { ...posted, ...onlyAdmin, '400': page('The user is disabled.') }, { body: token }),
    screen('dashboardSignInAsReturn', 'post', '/app/admin/return', 'Back from "sign in as" to the admin\'s own session', { ...posted, '404': page('Not a "sign in as" session.') }, { body: token }),
  ];
}

/** The websites screens. */
function websiteOperations(): OpSpec[] {
  return [
    screen('dashboardWebsites', 'get', '/app/websites', "The user's websites and the form of a new one", { '200': page('The page.'), ...signIn }),
    screen('dashboardCreateWebsite', 'post', '/app/websites', 'Add a website', { ...posted, ...refused("the API's messages") }, {
      body: form({ ...CSRF, domain: 'The domain.', privacy: '0 public, 1 the owner, 2 with the password.', password: 'The page password (privacy 2).' }, { csrf: 'token', domain: 'example.com', privacy: '1' }),
    }),
    screen('dashboardWebsite', 'get', '/app/websites/:id', "A website's page: tracking snippet, settings, statistics", { '200': page('The page.'), ...signIn, ...none('website') }, {
      query: [{ name: 'period', description: "The stats page's period.", schema: { type: 'string' }, lenient: true }],
    }),
    screen('dashboardWebsiteSettings', 'post', '/app/websites/:id/settings', "Save a website's settings", { ...posted, ...none('website'), ...refused("the API's messages") }, {
      body: form({ ...CSRF, privacy: '0, 1 or 2.', password: 'A new page password; empty keeps it.', exclude_bots: '1: leave out bots.', exclude_params: 'Query parameters, one a line.', exclude_ips: 'Addresses or ranges, one a line.' }, { csrf: 'token', privacy: '0' }),
    }),
    screen('dashboardDeleteWebsite', 'post', '/app/websites/:id/delete', 'Delete a website and its statistics', { ...posted, ...none('website'), ...ASKING }, { body: CONFIRMED_BODY }),
  ];
}
