import type { Page } from '../html/page.ts';
import { escapeHtml, htmlPage, originSource } from '../html/page.ts';
import type { Bio } from '../resources/bios.ts';
import { isHttpUrl } from '../resources/fields.ts';

/** The colours of one bio theme: page, card, text, muted text, buttons and their text. */
interface Theme {
  page: string;
  card: string;
  text: string;
  muted: string;
  button: string;
  buttonText: string;
}

const THEMES: Readonly<Record<string, Theme>> = {
  light: { page: '#f6f8fa', card: '#ffffff', text: '#1f2328', muted: '#59636e', button: '#1f883d', buttonText: '#ffffff' },
  dark: { page: '#0d1117', card: '#161b22', text: '#e6edf3', muted: '#9198a1', button: '#238636', buttonText: '#ffffff' },
  ocean: { page: '#dbeafe', card: '#ffffff', text: '#0c2a4d', muted: '#3d5a80', button: '#0969da', buttonText: '#ffffff' },
  sunset: { page: '#fff1e5', card: '#ffffff', text: '#3d1f0a', muted: '#7a4a2a', button: '#bc4c00', buttonText: '#ffffff' },
};

// Only colours of the table above reach the stylesheet: nothing a user stored is written into CSS.
const themeCss = (t: Theme) =>
  `body{background:${t.page};color:${t.text}}main{background:${t.card};border-color:${t.muted}40;text-align:center}.muted{color:${t.muted}}
.avatar{width:96px;height:96px;border-radius:50%;object-fit:cover;display:block;margin:0 auto 12px}.about{white-space:pre-line}
.links{list-style:none;padding:0;margin:20px 0 0}.links li{margin:10px 0}.links .btn{display:block;width:100%;padding:12px 16px;background:${t.button};border-color:${t.button};color:${t.buttonText};font-weight:600}
.links span.btn{opacity:.6;cursor:default}`;

/**
 * The public page of a bio: its avatar, name, description and links, in its theme. Everything the
 * user stored is escaped; only http(s) URLs become links or images (the API refuses anything else,
 * but an import or an older version may have stored it), and the CSP allows the avatar's origin only.
 */
export function bioPage(bio: Bio): Page {
  const theme = THEMES[bio.theme ?? ''] ?? THEMES.light!;
  const avatar = bio.avatar && isHttpUrl(bio.avatar) ? bio.avatar : null;
  const avatarOrigin = avatar ? originSource(avatar) : null;
  const links = (bio.links ?? []).map((l) => {
    const url = typeof l.url === 'string' && isHttpUrl(l.url) ? l.url : null;
    const label = escapeHtml(l.title || l.url);
    return url ? `<li><a class="btn" href="${escapeHtml(url)}" rel="noopener noreferrer nofollow ugc">${label}</a></li>` : `<li><span class="btn">${label}</span></li>`;
  });
  const body = `<main>${avatar && avatarOrigin ? `<img class="avatar" src="${escapeHtml(avatar)}" alt="" referrerpolicy="no-referrer">` : ''}<h1>${escapeHtml(bio.name)}</h1>
${bio.description ? `<p class="about">${escapeHtml(bio.description)}</p>` : ''}${links.length ? `<ul class="links">${links.join('')}</ul>` : '<p class="muted">No links yet.</p>'}</main>`;
  return htmlPage(bio.name, body, { css: themeCss(theme), ...(avatar && avatarOrigin ? { csp: { 'img-src': [avatarOrigin] } } : {}) });
}
