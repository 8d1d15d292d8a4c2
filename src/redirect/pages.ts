import type { Csp, Page, PageParts } from '../html/page.ts';
import { escapeHtml, htmlPage, mergeCsp, originSource, scriptJson } from '../html/page.ts';
import { RELOAD } from '../html/page-headers.ts';

/** The page of an unknown alias. */
export function notFoundPage(): Page {
  return htmlPage('Link not found', '<main><h1>Link not found</h1><p>This short link does not exist, or it was removed.</p></main>');
}

/** The page of a campaign its owner keeps private (neither its name nor its links: the owner chose to show nothing). */
export function privateCampaignPage(): Page {
  return htmlPage('Private campaign', '<main><h1>This campaign is private</h1><p>Its owner has not made its page public. If it is yours, make the campaign public to show its public links here.</p></main>');
}

/** The page of a link past its expiry date. */
export function expiredPage(): Page {
  return htmlPage('Link expired', '<main><h1>This link has expired</h1><p>The owner set it to stop working after a date that has passed.</p></main>');
}

/** The form a password-protected link (or file) shows; `error` after a wrong password; `reload` once when a cross-site visit held the cookie back. */
export function passwordPage(action: string, error = false, reload = false, subject: 'link' | 'file' = 'link'): Page {
  const page = htmlPage(
    'Password required',
    `<main><h1>This ${subject} is protected</h1><p>Enter the password to ${subject === 'file' ? 'download it' : 'continue'}.</p>${error ? '<p class="error" role="alert">Wrong password. Please try again.</p>' : ''}
<form method="post" action="${escapeHtml(action)}"><input type="password" name="password" aria-label="Password" required autofocus><button type="submit">Continue</button></form></main>`,
    { csp: { 'form-action': ["'self'"] }, referrer: 'no-referrer', ...(reload ? { head: RELOAD } : {}) },
  );
  return { ...page, opener: 'same-origin' };
}

/** The answer to a password attempt while the link (or this client) has had too many wrong ones. */
export function tooManyAttemptsPage(retryAfterSeconds: number): Page {
  return htmlPage('Too many attempts', `<main><h1>Too many attempts</h1><p>There were too many wrong passwords. Please try again in ${waitText(retryAfterSeconds)}.</p></main>`, { referrer: 'no-referrer' });
}

/** The answer to a password attempt while too many are being checked already. */
export function busyPage(): Page {
  return htmlPage('Busy', '<main><h1>Please try again</h1><p>The server is busy checking passwords. Please try again in a moment.</p></main>', { referrer: 'no-referrer' });
}

/** A page refusing a form posted from another site. */
export function foreignFormPage(): Page {
  return htmlPage('Not accepted', '<main><h1>Not accepted</h1><p>This form can only be sent from its own page. Please open the link again.</p></main>', { referrer: 'no-referrer' });
}

/** "3 minutes", "1 minute" or "40 seconds". */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * A page that moves on to `target` after `seconds` (meta refresh, so it works without script too):
 * `card` is the card's content, which gets a visible Continue link; `after` follows the card.
 */
export function movingOnPage(title: string, target: string, seconds: number, card: string, parts: PageParts = {}, after = ''): Page {
  const refresh = `<meta http-equiv="refresh" content="${seconds};url=${escapeHtml(target)}">`;
  const body = `<main>${card}<p class="center"><a class="btn" href="${escapeHtml(target)}" rel="noreferrer">Continue</a></p></main>${after}`;
  return htmlPage(title, body, { ...parts, head: refresh + (parts.head ?? '') });
}

// Counts the visible seconds down; the meta refresh does the moving on, with or without it.
const COUNTDOWN_SCRIPT = `(function(){var e=document.querySelector('[data-countdown]');if(!e)return;var n=Number(e.textContent);var t=setInterval(function(){n=Math.max(0,n-1);e.textContent=String(n);if(n===0)clearInterval(t)},1000)})()`;

/** The built-in splash page, or a user's splash page (title, text, image, countdown). */
export function splashPage(target: string, splash: { title?: string; text?: string; image?: string; countdown?: number } | null): Page {
  const seconds = splash?.countdown ?? 5;
  const title = splash?.title || 'You are leaving for another site';
  const image = splash?.image ? originSource(splash.image) : null;
  const card = `<h1>${escapeHtml(title)}</h1>${image ? `<p><img src="${escapeHtml(splash!.image)}" alt=""></p>` : ''}
<p>${escapeHtml(splash?.text || 'You are being redirected to')}</p><p><a href="${escapeHtml(target)}" rel="noreferrer">${escapeHtml(target)}</a></p>
<p class="muted">Redirecting in <b data-countdown>${seconds}</b> second${seconds === 1 ? '' : 's'}.</p>`;
  return movingOnPage(title, target, seconds, card, { script: COUNTDOWN_SCRIPT, ...(image ? { csp: { 'img-src': [image] } } : {}) });
}

/**
 * The answer to the right password: a page that opens the link itself. Not a 303 to it: the
 * password form's CSP (form-action 'self') covers the whole redirect chain of the post, so a
 * browser would refuse the link's redirect to its (other) origin; a refresh is a new navigation.
 */
export function openingPage(path: string): Page {
  const page = movingOnPage('Opening the link', path, 0, '<h1>Password accepted</h1><p>Opening the link…</p>', { referrer: 'no-referrer' });
  return { ...page, opener: 'same-origin' };
}

const FRAME_CSS = '.frame{position:fixed;inset:0;display:flex;flex-direction:column}.bar{padding:4px 12px;background:var(--card);border-bottom:1px solid var(--line);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}.frame iframe{flex:1;border:0;width:100%}';

/**
 * The target in a full-page frame, with a thin bar linking to it directly. The frame may show the
 * target's origin and any https page its site moves on to inside the frame (its https or www twin,
 * a sign-in page): what the frame shows is the target's own business, kept apart by the browser.
 */
export function framePage(target: string, title: string, overlay: { html: string; css: string; csp: Csp; script?: string } = { html: '', css: '', csp: {} }): Page {
  const origin = originSource(target);
  const body = `<div class="frame"><div class="muted bar"><a href="${escapeHtml(target)}" rel="noreferrer">${escapeHtml(title || target)}</a></div><iframe src="${escapeHtml(target)}" title="${escapeHtml(title || target)}"></iframe></div>${overlay.html}`;
  const csp = mergeCsp({ 'frame-src': origin ? [origin, 'https:'] : [] }, overlay.csp);
  return htmlPage(title || target, body, { css: FRAME_CSS + overlay.css, csp, ...(overlay.script === undefined ? {} : { script: overlay.script }) });
}

/** What an overlay page needs of a CTA overlay. */
export interface OverlayView {
  type: string;
  message?: string;
  buttontext?: string;
  buttonlink?: string;
  textcolor?: string;
  bgcolor?: string;
  buttoncolor?: string;
  position?: string;
  fields?: string[];
  email?: string;
}

const POSITIONS: Record<string, string> = {
  'bottom-left': 'bottom:16px;left:16px',
  'bottom-right': 'bottom:16px;right:16px',
  'top-left': 'top:48px;left:16px',
  'top-right': 'top:48px;right:16px',
  center: 'top:50%;left:50%;transform:translate(-50%,-50%)',
};

// What a contact form's inputs are, so phones show the right keyboard and browsers can fill them in.
const CONTACT_INPUTS: Readonly<Record<string, string>> = {
  name: '<input name="name" autocomplete="name">',
  email: '<input type="email" name="email" autocomplete="email">',
  phone: '<input type="tel" name="phone" autocomplete="tel">',
  message: '<textarea name="message" rows="4"></textarea>',
};

/** One input of a contact overlay under its visible label ("Email"); a field an import stored that we do not know is a text input. */
function contactField(field: string): string {
  const label = escapeHtml(field.charAt(0).toUpperCase() + field.slice(1));
  return `<label>${label}${CONTACT_INPUTS[field] ?? `<input name="${escapeHtml(field)}">`}</label>`;
}

// The overlay's close button hides it (the framed page stays); a script, allowed by its hash.
const CLOSE_SCRIPT = `document.querySelector('.cta .close').addEventListener('click',function(){document.querySelector('.cta').hidden=true})`;

/** The target framed, with the CTA overlay's box on top (a message with a link button, or a contact form) and a close button. */
export function overlayPage(target: string, title: string, o: OverlayView): Page {
  const colour = (c: string | undefined, fallback: string) => (c && /^#[0-9a-fA-F]{6}$/.test(c) ? c : fallback);
  const button = colour(o.buttoncolor, '#1f883d');
  const css = `.cta{position:fixed;${POSITIONS[o.position ?? 'bottom-left'] ?? POSITIONS['bottom-left']};width:360px;max-width:calc(100vw - 32px);max-height:calc(100vh - 64px);overflow-y:auto;padding:16px 44px 16px 16px;border-radius:10px;box-shadow:0 4px 24px #0003;background:${colour(o.bgcolor, '#ffffff')};color:${colour(o.textcolor, '#1f2328')}}
.cta[hidden]{display:none}.cta p{margin:0 0 8px}.cta button,.cta .btn{background:${button};border-color:${button};color:#fff}.cta form{flex-direction:column;flex-wrap:nowrap;margin-top:8px}
.cta label{display:flex;flex-direction:column;gap:4px;font-size:.9rem;font-weight:600}.cta input,.cta textarea{flex:none;width:100%;min-width:0;margin:0;font:inherit;font-weight:400;padding:8px 10px;border:1px solid #d0d7de;border-radius:6px;color:#1f2328;background:#fff}.cta textarea{resize:vertical}
.cta .close{position:absolute;top:8px;right:8px;width:28px;height:28px;padding:0;line-height:26px;background:transparent;border:0;color:inherit;font-size:22px;opacity:.7}.cta .close:hover{opacity:1}`;
  const inner =
    o.type === 'contact'
      ? `<form method="post" action="${o.email ? `mailto:${escapeHtml(o.email)}` : '#'}" enctype="text/plain">${(o.fields ?? ['email']).map(contactField).join('')}<button type="submit">${escapeHtml(o.buttontext || 'Send')}</button></form>`
      : o.buttonlink
        ? `<p><a class="btn" href="${escapeHtml(o.buttonlink)}" rel="noreferrer">${escapeHtml(o.buttontext || 'Learn more')}</a></p>`
        : '';
  const close = '<button type="button" class="close" aria-label="Close" title="Close">×</button>';
  const box = `<aside class="cta" aria-label="Message">${close}${o.message ? `<p>${escapeHtml(o.message)}</p>` : ''}${inner}</aside>`;
  const formAction: Csp = o.type === 'contact' ? { 'form-action': [o.email ? 'mailto:' : "'self'"] } : {};
  return framePage(target, title, { html: box, css, csp: formAction, script: CLOSE_SCRIPT });
}

/** A short interstitial that fires the link's pixels, then moves on to the target. */
export function pixelsPage(target: string, tags: readonly { html: string; csp: Csp }[]): Page {
  const script = `setTimeout(function(){location.replace(${scriptJson(target)})},800)`;
  const csp = tags.reduce<Csp>((all, t) => mergeCsp(all, t.csp), {});
  return movingOnPage('Redirecting', target, 2, `<h1>Redirecting…</h1><p class="muted">${escapeHtml(target)}</p>`, { script, csp }, tags.map((t) => t.html).join(''));
}
