import type { Config } from '../config.ts';
import { ASKING, CONFIRMED_BODY, CSRF, form, page, posted, redirect, screen, signIn } from './dashboard-operations.ts';
import type { Body, OpSpec, Param, Reply } from './operation.ts';

const none = (what: string) => ({ '404': page(`No such ${what} among the user's (another user's answers the same).`) });
const refused = { '400': page("The form again, with the API's message beside the field; nothing stored.") };
const scopeless = { '403': page("The session's API key lacks the area's write scope.") };
const listQuery: readonly Param[] = [
  { name: 'q', description: 'Search.', schema: { type: 'string' }, lenient: true },
  { name: 'page', schema: { type: 'integer', minimum: 1, default: 1 }, lenient: true },
];
const listed = (what: string): Record<string, Reply> => ({ '200': page(`The ${what}, 25 a page.`), ...signIn, '403': page("The session's API key lacks the area's read scope.") });

// The QR form: its boxes change with the type (data for text, link and phone; data_<key> for the others); multipart when a logo is uploaded.
const QR_FORM: Body = {
  ...form(
    {
      ...CSRF,
      type: 'text, link, email, phone, sms, wifi or vcard.',
      data: "The content of a text, link or phone code; the other types' boxes are data_<key> (data_email, data_ssid, …).",
      name: 'The name (optional).',
      foreground: 'The colour, #rrggbb or rgb(r,g,b).',
      background: 'The colour, #rrggbb or rgb(r,g,b).',
      logo: 'A logo URL (.png or .jpg; optional).',
      logo_file: 'A PNG or JPEG logo of at most 500 KB (multipart; optional).',
      remove_logo: 'on: remove the logo (edit).',
    },
    { csrf: 'token', type: 'text', data: 'Hello' },
  ),
  types: ['application/x-www-form-urlencoded', 'multipart/form-data'],
};
const BIO_FORM = form(
  { ...CSRF, name: 'The name.', alias: 'The alias (empty: made up on create, kept on edit).', description: 'The description.', avatar: 'An image URL, or empty.', theme: 'light, dark, ocean or sunset.', link_title: 'Link titles (repeated, with link_url; empty rows left out).', link_url: 'Link URLs (repeated).' },
  { csrf: 'token', name: 'My links' },
);
const UPLOAD_FORM: Body = {
  ...form({ ...CSRF, file: 'The file (FILE_MAX_BYTES at most, an allowed type).', name: 'A title (optional).', custom: 'The alias (optional).', domain: 'A branded domain (optional).', password: 'A password (optional).', expiry: 'When it expires, YYYY-MM-DDTHH:MM UTC (optional).' }, { csrf: 'token' }),
  types: ['multipart/form-data'],
};

/** The QR codes, bio pages and files screens (DASHBOARD on). */
export function qrBioFileScreenOperations(config: Config): OpSpec[] {
  if (!config.dashboard) return [];
  return [
    screen('dashboardQrs', 'get', '/app/qrs', "The user's QR codes with their previews", listed('QR codes'), { query: listQuery }),
    screen('dashboardNewQr', 'get', '/app/qrs/new', 'The form of a new QR code, with the boxes of its type', { '200': page('The form.'), ...signIn, ...scopeless }, {
      query: [{ name: 'type', description: 'The type whose boxes the form shows; default text.', schema: { type: 'string' }, lenient: true }],
    }),
    screen('dashboardCreateQr', 'post', '/app/qrs', 'Create a QR code', { ...posted, ...refused }, { body: QR_FORM }),
    screen('dashboardQr', 'get', '/app/qrs/:id', "A QR code's page: preview, downloads, scans", { '200': page('The page.'), ...signIn, ...none('QR code') }),
    screen('dashboardQrImage', 'get', '/app/qrs/:id/image', "A QR code's image (PNG, or SVG with format=svg)", { '200': { description: 'The image.', type: ['image/png', 'image/svg+xml'] }, ...signIn, ...none('QR code') }, {
      query: [
        { name: 'format', schema: { type: 'string', enum: ['png', 'svg'], default: 'png' }, lenient: true },
        { name: 'download', description: '1: 1024 px, as an attachment.', schema: { type: 'string' }, lenient: true },
      ],
    }),
    screen('dashboardEditQr', 'get', '/app/qrs/:id/edit', 'The form of a QR code', { '200': page('The form.'), ...signIn, ...none('QR code') }, {
      query: [{ name: 'type', description: 'Show the boxes of another type.', schema: { type: 'string' }, lenient: true }],
    }),
    screen('dashboardSaveQr', 'post', '/app/qrs/:id/edit', 'Save a QR code', { ...posted, ...none('QR code'), ...refused }, { body: QR_FORM }),
    screen('dashboardDeleteQr', 'post', '/app/qrs/:id/delete', 'Delete a QR code', { ...posted, ...none('QR code'), ...ASKING }, { body: CONFIRMED_BODY }),
    screen('dashboardBios', 'get', '/app/bios', "The user's bio pages with their public addresses", listed('bio pages'), { query: listQuery }),
    screen('dashboardNewBio', 'get', '/app/bios/new', 'The form of a new bio page', { '200': page('The form.'), ...signIn, ...scopeless }),
    screen('dashboardCreateBio', 'post', '/app/bios', 'Create a bio page', { ...posted, ...refused }, { body: BIO_FORM }),
    screen('dashboardEditBio', 'get', '/app/bios/:id/edit', 'The form of a bio page, with its public address', { '200': page('The form.'), ...signIn, ...none('bio page') }),
    screen('dashboardSaveBio', 'post', '/app/bios/:id/edit', 'Save a bio page', { ...posted, ...none('bio page'), ...refused }, { body: BIO_FORM }),
    screen('dashboardDeleteBio', 'post', '/app/bios/:id/delete', 'Delete a bio page', { ...posted, ...none('bio page'), ...ASKING }, { body: CONFIRMED_BODY }),
    screen('dashboardFiles', 'get', '/app/files', "The user's files and the upload form", listed('files'), { query: listQuery }),
    screen('dashboardUploadFile', 'post', '/app/files/upload', 'Upload a file', { ...posted, ...refused, '413': { description: "The body is larger than FILE_MAX_BYTES and the multipart allowance: refused before it is read (a page to a browser's page load, else the API's error body).", type: ['text/html', 'application/json'] }, '303': redirect('Uploaded: to /app/files (or no session: to /app/login).') }, { body: UPLOAD_FORM }),
    screen('dashboardDeleteFile', 'post', '/app/files/:id/delete', 'Delete a file', { ...posted, ...none('file'), ...ASKING }, { body: CONFIRMED_BODY }),
  ];
}
