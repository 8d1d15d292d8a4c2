import { Hono } from 'hono';
import { generateApiKey, hashApiKey } from '../../auth/keys.ts';
import { ACCOUNT_DISABLED, isDisabled } from '../../auth/disabled-users.ts';
import { loginLinkValid, readLoginToken } from '../../auth/login-links.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { fromOwnPage } from '../../html/page-headers.ts';
import type { Page } from '../../html/page.ts';
import { escapeHtml, htmlPage } from '../../html/page.ts';
import { foreignFormPage } from '../../redirect/pages.ts';
import type { Services, UserRecord } from '../../resources/define.ts';
import { html } from './redirects.ts';

// Pages of secrets: no referrer, not framed, no other window may script them.
const secretPage = (title: string, body: string, form = false): Page => ({
  ...htmlPage(title, `<main>${body}</main>`, { referrer: 'no-referrer', ...(form ? { csp: { 'form-action': ["'self'"] } } : {}) }),
  opener: 'isolated',
});

const disabledPage = () => secretPage('Account disabled', `<h1>This account is disabled</h1><p>${escapeHtml(ACCOUNT_DISABLED)}</p>`);
const invalidPage = () => secretPage('Link not valid', '<h1>This sign-in link is not valid</h1><p>It was used already, it expired, or it never existed. Ask your administrator for a new one.</p>');

/**
 * `GET /login?token=…`: what a one-time sign-in link opens, a page with one button (opening the
 * link changes nothing, so a mail scanner that follows it does not use it up); `POST /login`: uses
 * the link up and shows the user a new API key, once. The old key stops working.
 */
export function loginPageRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/login', async (c) => {
    const token = c.req.query('token');
    const named = readLoginToken(token);
    const user = named ? await s.store.get<UserRecord>('users', named.userId) : undefined;
    if (!named || !user || !loginLinkValid(user, named.hash, s.clock.now())) return html(c, invalidPage(), 404);
    if (isDisabled(user)) return html(c, disabledPage(), 403);
    const body = `<h1>Sign in as ${escapeHtml(user.username)}</h1><p>This one-time link gives you a new API key for the account <strong>${escapeHtml(user.username)}</strong>. The key you have now, if any, stops working.</p>
<form method="post" action="/login"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Get my new API key</button></form>`;
    return html(c, secretPage('Sign in', body, true));
  });

  routes.post('/login', async (c) => {
    if (!fromOwnPage(c)) return html(c, foreignFormPage(), 403);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const named = readLoginToken(form.token);
    if (!named) return html(c, invalidPage(), 404);
    const apikey = generateApiKey();
    // Checked and used up in one transaction: two posts of one link cannot both get a key.
    const user = await s.store.transaction(async (tx) => {
      const found = await tx.getForUpdate<UserRecord>('users', named.userId);
      if (!loginLinkValid(found, named.hash, s.clock.now())) return undefined;
      // A disabled account gets no new key (its link stays, for when it is enabled again).
      if (isDisabled(found)) return 'disabled' as const;
      return tx.update<UserRecord>('users', named.userId, { loginHash: null, loginExpires: null, keyHash: hashApiKey(apikey), keyExpires: null });
    });
    if (!user) return html(c, invalidPage(), 404);
    if (user === 'disabled') return html(c, disabledPage(), 403);
    const body = `<h1>Your new API key</h1><p>Account <strong>${escapeHtml(user.username)}</strong>. Copy the key now: it is shown only this once, and this link no longer works.</p>
<p><code>${escapeHtml(apikey)}</code></p><p class="muted">Send it as <code>Authorization: Bearer &lt;key&gt;</code>. The API is described at <a href="/docs">/docs</a>.</p>`;
    return html(c, secretPage('Your new API key', body));
  });
  return routes;
}
