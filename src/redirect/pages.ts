import { escapeHtml, htmlPage, scriptJson } from '../html/page.ts';

/** The page of an unknown alias. */
export function notFoundPage(): string {
  return htmlPage('Link not found', '<main><h1>Link not found</h1><p>This short link does not exist, or it was removed.</p></main>');
}

/** The page of a link past its expiry date. */
export function expiredPage(): string {
  return htmlPage('Link expired', '<main><h1>This link has expired</h1><p>The owner set it to stop working after a date that has passed.</p></main>');
}

/** The form a password-protected link shows; `error` after a wrong password. */
export function passwordPage(action: string, error = false): string {
  return htmlPage(
    'Password required',
    `<main><h1>This link is protected</h1><p>Enter the password to continue.</p>${error ? '<p class="error" role="alert">Wrong password. Please try again.</p>' : ''}
<form method="post" action="${escapeHtml(action)}"><input type="password" name="password" aria-label="Password" required autofocus><button type="submit">Continue</button></form></main>`,
  );
}

/** The answer to a password attempt while the link (or this client) has had too many wrong ones. */
export function tooManyAttemptsPage(retryAfterSeconds: number): string {
  return htmlPage('Too many attempts', `<main><h1>Too many attempts</h1><p>There were too many wrong passwords. Please try again in ${waitText(retryAfterSeconds)}.</p></main>`);
}

/** The answer to a password attempt while too many are being checked already. */
export function busyPage(): string {
  return htmlPage('Busy', '<main><h1>Please try again</h1><p>The server is busy checking passwords. Please try again in a moment.</p></main>');
}

/** "3 minutes", "1 minute" or "40 seconds". */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** A page that moves on to `target` after `seconds` (meta refresh, and a visible link for no-refresh browsers). */
export function movingOnPage(title: string, target: string, seconds: number, body: string, extraHead = ''): string {
  const refresh = `<meta http-equiv="refresh" content="${seconds};url=${escapeHtml(target)}">`;
  return htmlPage(title, `${body}<p class="muted" style="text-align:center">Not redirected? <a href="${escapeHtml(target)}" rel="noreferrer">Continue</a></p>`, refresh + extraHead);
}

/** The built-in splash page, or a user's splash page (title, text, image, countdown). */
export function splashPage(target: string, splash: { title?: string; text?: string; image?: string; countdown?: number } | null): string {
  const seconds = splash?.countdown ?? 5;
  const title = splash?.title || 'You are leaving for another site';
  const body = `<main><h1>${escapeHtml(title)}</h1>${splash?.image ? `<p><img src="${escapeHtml(splash.image)}" alt=""></p>` : ''}
<p>${escapeHtml(splash?.text || 'You are being redirected to')}</p><p><a href="${escapeHtml(target)}" rel="noreferrer">${escapeHtml(target)}</a></p>
<p class="muted">Redirecting in ${seconds} seconds.</p></main>`;
  return movingOnPage(title, target, seconds, body);
}

/** The target in a full-page frame, with a thin bar linking to it directly. */
export function framePage(target: string, title: string, overlay = ''): string {
  const body = `<div style="position:fixed;inset:0;display:flex;flex-direction:column"><div class="muted" style="padding:4px 12px;background:#fff;border-bottom:1px solid #d0d7de">
<a href="${escapeHtml(target)}" rel="noreferrer">${escapeHtml(title || target)}</a></div><iframe src="${escapeHtml(target)}" title="${escapeHtml(title || target)}" style="flex:1;border:0;width:100%"></iframe></div>${overlay}`;
  return htmlPage(title || target, body);
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

/** The target framed, with the CTA overlay's box on top (a message with a button, or a contact form). */
export function overlayPage(target: string, title: string, o: OverlayView): string {
  const colour = (c: string | undefined, fallback: string) => (c && /^#[0-9a-fA-F]{6}$/.test(c) ? c : fallback);
  const style = `position:fixed;${POSITIONS[o.position ?? 'bottom-left'] ?? POSITIONS['bottom-left']};max-width:360px;padding:16px;border-radius:10px;box-shadow:0 4px 24px #0003;background:${colour(o.bgcolor, '#ffffff')};color:${colour(o.textcolor, '#1f2328')}`;
  const button = `background:${colour(o.buttoncolor, '#1f883d')};border-color:${colour(o.buttoncolor, '#1f883d')}`;
  const inner =
    o.type === 'contact'
      ? `<form method="post" action="${o.email ? `mailto:${escapeHtml(o.email)}` : '#'}" enctype="text/plain" style="flex-direction:column">${(o.fields ?? ['email'])
          .map((f) => `<input name="${escapeHtml(f)}" placeholder="${escapeHtml(f)}" aria-label="${escapeHtml(f)}">`)
          .join('')}<button type="submit" style="${button}">${escapeHtml(o.buttontext || 'Send')}</button></form>`
      : o.buttonlink
        ? `<p><a href="${escapeHtml(o.buttonlink)}" rel="noreferrer"><button type="button" style="${button}">${escapeHtml(o.buttontext || 'Learn more')}</button></a></p>`
        : '';
  const box = `<aside style="${style}" aria-label="Message"><p>${escapeHtml(o.message ?? '')}</p>${inner}</aside>`;
  return framePage(target, title, box);
}

/** A short interstitial that fires the link's pixels, then moves on to the target. */
export function pixelsPage(target: string, tags: string[]): string {
  const script = `<script>setTimeout(function(){location.replace(${scriptJson(target)})},800)</script>`;
  return movingOnPage('Redirecting', target, 2, `<main><h1>Redirecting…</h1><p class="muted">${escapeHtml(target)}</p></main>${tags.join('')}${script}`);
}
