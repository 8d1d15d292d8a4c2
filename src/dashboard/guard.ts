import type { Context } from 'hono';
import { covers } from '../auth/scopes.ts';
import type { KeyIndex } from '../auth/key-index.ts';
import type { AppEnv } from '../http/app-env.ts';
import { clientIp } from '../http/client-ip.ts';
import { retryAfter } from '../http/rate-limit.ts';
import type { Limiter } from '../http/rate-limit.ts';
import type { PasswordAttempts } from '../http/password-attempts.ts';
import { fromOwnPage, isPageLoad } from '../html/page-headers.ts';
import type { Resource, Services } from '../resources/define.ts';
import { ApiError } from '../errors.ts';
import { findVisible } from '../routes/crud.ts';
import type { StoredRecord } from '../store/store.ts';
import { messagePage } from './layout.tsx';
import type { DashboardQrImages } from './qr-image.tsx';
import type { Chrome } from './layout.tsx';
import { csrfMatches, SESSION_COOKIE } from './sessions.ts';
import type { DashboardSessions, SignedIn } from './sessions.ts';
import { getCookie } from 'hono/cookie';

/** What every screen of the dashboard is built from: the app's services and the dashboard's own parts. */
export interface Dashboard {
  s: Services;
  sessions: DashboardSessions;
  /** The count of wrong passwords shared with protected links and stats pages. */
  attempts: PasswordAttempts;
  /** The API's key lookup (sign-in with an API key). */
  keys: KeyIndex;
  /** Failed authentications per client, which sign-ups share as the API's do; null when off. */
  failures: Limiter | null;
  /** The QR images of every screen that shows one (one render cache for the dashboard). */
  qr: DashboardQrImages;
  /** The link API's requests per user (RATE_LIMIT), which every signed-in form counts against too; null when off. */
  limiter: Limiter | null;
  /** Pages opened per user (DASHBOARD_PAGE_LIMIT): a person clicks through pages faster than a client calls the API; null when off. */
  pageLimiter: Limiter | null;
}

/** A posted form: each field's value, or its values when it came more than once (checkboxes). */
export type Form = Record<string, string | string[]>;

/** One value of a form field ('' when absent; the first when repeated). */
export const field = (form: Form, name: string): string => {
  const v = form[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

/** Every value of a form field. */
export const fields = (form: Form, name: string): string[] => {
  const v = form[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/** The files of a posted multipart form, by field: the first file of each (only screens that take files get them). */
export type Uploads = Record<string, File>;

/**
 * The fields of a posted form, urlencoded or multipart, and its files when `keepFiles` (else they are
 * dropped: a form that takes none never holds one). The body was bounded before it was read: by
 * BODY_LIMIT, or FILE_MAX_BYTES on the upload routes (app.ts). A body that does not parse is an empty form.
 */
export async function readPost(c: Context, keepFiles = false): Promise<{ form: Form; files: Uploads }> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  const form: Form = {};
  const files: Uploads = {};
  for (const [k, v] of Object.entries(body)) {
    const values = Array.isArray(v) ? v : [v];
    const texts = values.filter((x): x is string => typeof x === 'string');
    if (texts.length > 0) form[k] = texts.length === 1 ? texts[0]! : texts;
    // A file input left empty posts a file with no name and no bytes: that is no file.
    const file = values.find((x): x is File => x instanceof File && (x.size > 0 || x.name !== ''));
    if (keepFiles && file) files[k] = file;
  }
  return { form, files };
}

/** The fields of a posted form (its files left out). */
export async function readForm(c: Context): Promise<Form> {
  return (await readPost(c)).form;
}

/** The bar of a signed-in page. */
export const chromeOf = (who: SignedIn, current?: string): Chrome => ({
  csrf: who.csrf,
  username: who.user.username,
  admin: who.user.admin && who.by === null,
  ...(who.by ? { by: who.by.username } : {}),
  ...(current ? { current } : {}),
});

/** A screen's handler: the request, who is signed in, and (on POST) the form, its token already checked, and its files (a screen that takes them). */
export type Screen = (c: Context<AppEnv>, who: SignedIn, form: Form, files: Uploads) => Promise<Response>;

/**
 * A screen behind sign-in: without a session, a page load goes to /app/login (303 after a post);
 * a post must come from a page of this origin and carry the session's form token, else it is
 * refused (403) before the handler runs, so nothing is stored; so is any request that is not a page
 * load (a script's fetch). Each request counts against the user's RATE_LIMIT (429 page when over),
 * but those that only end sessions (`uncounted`: signing out must work when over) and QR images. The user (and the scoped key that
 * bounds the session) are left on the context, where the API's hooks find them.
 */
export function screen(d: Dashboard, handler: Screen, opts: { image?: boolean; files?: boolean; uncounted?: boolean } = {}) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    // The origin also serves pages that run users' third-party scripts (pixels): such a script can
    // make the browser send the session cookie with fetch(), so a session answers page loads only
    // (Sec-Fetch-Dest; images for the QR route), as the stats page does (docs/security.md).
    if (!opts.image && !isPageLoad(c)) return messagePage(c, 403, 'Not allowed', 'The dashboard answers pages opened in the browser only.');
    const who = await d.sessions.current(c);
    const post = c.req.method === 'POST';
    if (!who) {
      // A cookie that names no session any more (signed out elsewhere, expired) is forgotten.
      if (getCookie(c, SESSION_COOKIE)) d.sessions.clearCookie(c);
      return c.redirect('/app/login', post ? 303 : 302);
    }
    // The user's API budget: the dashboard is no way around RATE_LIMIT (counted before the form is read).
    // Not counted: what only ends a session, and the QR images of a page (a list shows 25), which
    // the page's own request was counted for; their drawing is bounded by the render queue and its per-client limit.
    const over = opts.uncounted || opts.image ? null : await overLimit(d, c, who);
    if (over) return over;
    let form: Form = {};
    let files: Uploads = {};
    if (post) {
      ({ form, files } = await readPost(c, opts.files === true));
      if (!fromOwnPage(c) || !csrfMatches(getCookie(c, SESSION_COOKIE), form.csrf)) {
        return messagePage(c, 403, 'Form expired', 'This form could not be checked (it is from another page, or from before you signed in again). Open the page again and repeat what you did.', chromeOf(who));
      }
    }
    c.set('user', who.user);
    c.set('apiKey', who.key);
    return handler(c, who, form, files);
  };
}

/**
 * Counts a signed-in request: a form against the user's RATE_LIMIT, as one API request with their
 * key is (the same counts: a write through the dashboard is no way around the API's limit), a page
 * against DASHBOARD_PAGE_LIMIT; the 429 page with Retry-After when over (503 when the shared counts
 * could not be reached and RATE_LIMIT_ON_ERROR is closed), else null.
 */
async function overLimit(d: Dashboard, c: Context, who: SignedIn): Promise<Response | null> {
  const form = c.req.method === 'POST';
  const limiter = form ? d.limiter : d.pageLimiter;
  if (!limiter) return null;
  // A page carries no X-RateLimit headers: people read the 429 page, which says how long to wait.
  const decision = await limiter.hit(String(who.user.id));
  if (decision.allowed) return null;
  const wait = retryAfter(decision.reset, d.s.clock.now());
  c.header('Retry-After', String(wait));
  if (decision.uncounted) return messagePage(c, 503, 'Please try again', 'The server cannot count requests right now. Try again in a moment.', chromeOf(who));
  const what = form ? `${decision.limit} changes (forms and API calls together)` : `${decision.limit} pages`;
  return messagePage(c, 429, 'Too many requests', `You made more than ${what} in a short time. Try again in ${wait} seconds.`, chromeOf(who));
}

/** Whether the session may use `scope` (links:write): a session opened with a scoped key has only that key's scopes. */
export function allows(who: SignedIn, scope: string): boolean {
  return who.key === null || covers(who.key.scopes, scope);
}

/** The answer to a session whose key lacks a scope. */
export function lacking(c: Context, who: SignedIn, scope: string): Promise<Response> {
  return messagePage(c, 403, 'Not allowed', `You signed in with an API key that lacks the scope ${scope}. Sign in with your password or a key that has it.`, chromeOf(who));
}

/**
 * Writes the audit entry of a dashboard write, as the API writes one for each of its writes: who,
 * with which key, the dashboard route, the resource, the record, the outcome, from where.
 */
export function audit(d: Dashboard, c: Context, who: SignedIn, route: string, resource: string, resourceId: number | null, status: number): void {
  d.s.audit.record({ userId: who.user.id, keyId: who.key?.id ?? null, method: 'POST', route, resource, resourceId, status, ip: clientIp(c, d.s.config.trustProxy) });
}

/** The record of `row` the path's `:id` names if it is the user's; null when it is missing or another user's (both answer 404). */
export async function ownRecord<R extends StoredRecord>(d: Dashboard, row: Resource, c: Context, who: SignedIn): Promise<R | null> {
  try {
    return await findVisible<R>(d.s, row, c.req.param('id'), who.user.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}
