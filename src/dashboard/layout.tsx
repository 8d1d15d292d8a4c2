import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { FAVICON_CSP, FAVICON_LINK } from '../html/favicon.ts';
import { pageHeaders } from '../html/page-headers.ts';
import { cspHash, mergeCsp } from '../html/page.ts';
import type { Csp } from '../html/page.ts';
import { DASHBOARD_SCRIPT } from './script.ts';
import { DASHBOARD_CSS } from './style.ts';

/** The screens of the bar at the top, in order: a new screen adds its entry here (`more`: inside the bar's "More" menu, which keeps the bar one line on a phone). */
export const NAV: readonly { href: string; label: string; more?: true }[] = [
  { href: '/app/links', label: 'Links' },
  { href: '/app/qrs', label: 'QR codes' },
  { href: '/app/websites', label: 'Websites' },
  { href: '/app/bios', label: 'Bio pages', more: true },
  { href: '/app/files', label: 'Files', more: true },
  { href: '/app/campaigns', label: 'Campaigns', more: true },
  { href: '/app/channels', label: 'Channels', more: true },
  { href: '/app/pixels', label: 'Pixels', more: true },
  { href: '/app/domains', label: 'Domains', more: true },
  { href: '/app/splash', label: 'Splash pages', more: true },
  { href: '/app/overlays', label: 'CTA overlays', more: true },
  { href: '/app/account', label: 'Account' },
];

/** The bar's entries: the main ones, then a "More" menu (a details element: no script needed) naming the open screen when it is in it. */
function NavLinks(props: { current: string | undefined; admin: boolean }) {
  const entry = (n: { href: string; label: string }) => (
    <a href={n.href} aria-current={props.current === n.href ? 'page' : undefined}>
      {n.label}
    </a>
  );
  const more = NAV.filter((n) => n.more);
  const open = more.find((n) => n.href === props.current);
  return (
    <>
      {NAV.filter((n) => !n.more).map(entry)}
      {more.length > 0 && (
        <details class="more">
          <summary>{open ? `More: ${open.label}` : 'More'}</summary>
          <div>{more.map(entry)}</div>
        </details>
      )}
      {props.admin && ADMIN_NAV.map(entry)}
    </>
  );
}

/** The screens of the bar only an admin sees. */
export const ADMIN_NAV: readonly { href: string; label: string }[] = [{ href: '/app/admin/users', label: 'Users' }];

/**
 * What every dashboard page may load: its stylesheet and script (inline, by hash), images of this
 * origin (QR previews) and the inline icon, forms posted to itself; nothing else, no third party.
 */
export const DASHBOARD_CSP: Csp = mergeCsp({ 'style-src': [cspHash(DASHBOARD_CSS)], 'script-src': [cspHash(DASHBOARD_SCRIPT)], 'img-src': ["'self'"], 'form-action': ["'self'"] }, FAVICON_CSP);

/** The signed-in part of a page: the bar's form token and which screen is open. */
export interface Chrome {
  csrf: string;
  username: string;
  /** The NAV entry to mark as the current page. */
  current?: string;
  /** Whether the Users screen is in the bar (an admin's own session). */
  admin?: boolean;
  /** The admin who is signed in as this user ("sign in as"), shown with a way back. */
  by?: string;
}

/** The hidden form token every form of a signed-in page carries. */
export const Csrf = (props: { token: string }) => <input type="hidden" name="csrf" value={props.token} />;

/** A form's message that belongs to no one field (shown above the form), or nothing. */
export const FormError = (props: { message: string | undefined }) =>
  props.message ? (
    <p class="err" role="alert">
      {props.message}
    </p>
  ) : null;

/** The one layout of every dashboard page: the bar (when signed in), the main card column, the script. */
export function Layout(props: { title: string; chrome?: Chrome; children?: Child }) {
  const { chrome } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${props.title} · Dashboard`}</title>
        {raw(FAVICON_LINK)}
        <style dangerouslySetInnerHTML={{ __html: DASHBOARD_CSS }} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        {chrome && (
          <header class="top">
            <nav aria-label="Dashboard">
              <a class="brand" href="/app">
                Dashboard
              </a>
              <NavLinks current={chrome.current} admin={chrome.admin === true} />
              <form method="post" action="/app/logout">
                <Csrf token={chrome.csrf} />
                <button type="submit" class="plain">
                  Sign out {chrome.username}
                </button>
              </form>
            </nav>
          </header>
        )}
        {chrome?.by && (
          <form class="acting" method="post" action="/app/admin/return" role="status">
            <Csrf token={chrome.csrf} />
            <span>
              You ({chrome.by}, admin) are signed in as <strong>{chrome.username}</strong>: what you do here is done as this user.
            </span>
            <button type="submit" class="secondary">
              Back to {chrome.by}
            </button>
          </form>
        )}
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        <script dangerouslySetInnerHTML={{ __html: DASHBOARD_SCRIPT }} />
      </body>
    </html>
  );
}

/**
 * Answers a dashboard page: the document, the security headers every page has (CSP with hashes, no
 * framing, no referrer, a window no other page of the origin can script), never cached.
 */
export async function answerPage(c: Context, node: Child, status: ContentfulStatusCode = 200): Promise<Response> {
  const html = `<!doctype html>${String(await node)}`;
  return c.html(html, status, { ...pageHeaders({ html, csp: DASHBOARD_CSP, referrer: 'no-referrer', opener: 'isolated' }), 'cache-control': 'no-store' });
}

/** A page with a title and a sentence (not found, refused), signed in or not. */
export function messagePage(c: Context, status: ContentfulStatusCode, title: string, text: string, chrome?: Chrome): Promise<Response> {
  return answerPage(
    c,
    <Layout title={title} chrome={chrome}>
      <section class="card">
        <h1>{title}</h1>
        <p>{text}</p>
        <p>
          <a href="/app">Back to the dashboard</a>
        </p>
      </section>
    </Layout>,
    status,
  );
}
