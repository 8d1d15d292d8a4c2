import { parseRgb, rgbToHex } from '../../qr/color.ts';
import { isQrType, QR_TYPES, WIFI_ENCRYPTIONS } from '../../qr/data.ts';
import type { QrType } from '../../qr/data.ts';
import type { Qr } from '../../resources/qrs.ts';
import { field } from '../guard.ts';
import type { Form } from '../guard.ts';

/** What each QR type is called on the screen. */
export const QR_TYPE_LABELS: Record<QrType, string> = { text: 'Text', link: 'Link (scans counted)', email: 'Email', phone: 'Phone call', sms: 'Text message (SMS)', wifi: 'Wi-Fi network', vcard: 'Contact card (vCard)' };

/** One box of a type's data: its key in the API's `data` ('' when the data is the text itself), its label, its kind of control. */
export interface DataField {
  key: string;
  label: string;
  input: 'text' | 'textarea' | 'url' | 'email' | 'tel' | 'password' | 'select' | 'checkbox';
  options?: readonly string[];
  hint?: string;
}

const vcardText = (key: string, label: string): DataField => ({ key, label, input: 'text' });
const social = (key: string, label: string): DataField => ({ key, label, input: 'url' });

/** The boxes of each QR type, as the API's `data` of that type takes them (src/qr/data.ts). */
export const DATA_FIELDS: Record<QrType, readonly DataField[]> = {
  text: [{ key: '', label: 'Text', input: 'textarea' }],
  link: [{ key: '', label: 'Link', input: 'url', hint: 'The code holds a URL of this server that counts the scan, then sends here.' }],
  phone: [{ key: '', label: 'Phone number', input: 'tel' }],
  email: [
    { key: 'email', label: 'Email address', input: 'email' },
    { key: 'subject', label: 'Subject', input: 'text' },
    { key: 'body', label: 'Message', input: 'textarea' },
  ],
  sms: [
    { key: 'phone', label: 'Phone number', input: 'tel' },
    { key: 'message', label: 'Message', input: 'textarea' },
  ],
  wifi: [
    { key: 'ssid', label: 'Network name (SSID)', input: 'text' },
    { key: 'password', label: 'Network password', input: 'password' },
    { key: 'encryption', label: 'Encryption', input: 'select', options: WIFI_ENCRYPTIONS, hint: 'Empty: WPA with a password, none without.' },
    { key: 'hidden', label: 'The network is hidden', input: 'checkbox' },
  ],
  vcard: [
    vcardText('name', 'Full name'),
    vcardText('fname', 'First name (optional)'),
    vcardText('lname', 'Last name (optional)'),
    { key: 'phone', label: 'Phone', input: 'tel' },
    { key: 'email', label: 'Email', input: 'email' },
    vcardText('company', 'Company'),
    vcardText('title', 'Job title'),
    { key: 'website', label: 'Website', input: 'url' },
    vcardText('street', 'Street'),
    { key: 'address', label: 'Address on one line (when there is no street)', input: 'text' },
    vcardText('city', 'City'),
    vcardText('state', 'State or region'),
    vcardText('zip', 'Postal code'),
    vcardText('country', 'Country'),
    social('facebook', 'Facebook'),
    social('instagram', 'Instagram'),
    social('twitter', 'X (Twitter)'),
    social('linkedin', 'LinkedIn'),
    { key: 'note', label: 'Note', input: 'textarea' },
  ],
};

/** The form's name of a data box: `data` for a type whose data is one text, else `data_<key>`. */
export const dataName = (f: DataField): string => (f.key === '' ? 'data' : `data_${f.key}`);

/** Every name of the QR form, for placing the API's messages beside their fields. */
export const QR_FORM_NAMES: readonly string[] = ['name', 'type', 'foreground', 'background', 'logo', 'data', ...new Set(QR_TYPES.flatMap((t) => DATA_FIELDS[t].map(dataName)))];

/** The QR form's values as typed (kept when the API refuses them); colours as `#rrggbb` where they are colours. */
export interface QrFormValues {
  type: QrType;
  name: string;
  data: Record<string, string>;
  foreground: string;
  background: string;
  /** The logo URL typed (a stored data: URI is not shown: `uploadedLogo` says there is one). */
  logo: string;
  removeLogo: boolean;
}

/** The type a page was asked for (?type= or the form's), or text. */
export const typeOf = (raw: string | undefined): QrType => (isQrType(raw) ? raw : 'text');

// rgb(r,g,b) as the colour box shows it; anything else as it was (the API's message then says why).
const hexOf = (colour: string): string => {
  const rgb = parseRgb(colour);
  return rgb ? rgbToHex(rgb) : colour;
};

/** The API's `rgb(r,g,b)` of a colour box's `#rrggbb`; other text as it was typed. */
export function rgbOf(value: string): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(value.trim());
  return hex ? `rgb(${hex.slice(1).map((h) => Number.parseInt(h, 16)).join(',')})` : value;
}

/** The values of a posted QR form. */
export function valuesOfForm(form: Form): QrFormValues {
  const type = typeOf(field(form, 'type'));
  return {
    type,
    name: field(form, 'name'),
    data: Object.fromEntries(DATA_FIELDS[type].map((f) => [dataName(f), field(form, dataName(f))])),
    foreground: field(form, 'foreground') || '#000000',
    background: field(form, 'background') || '#ffffff',
    logo: field(form, 'logo'),
    removeLogo: field(form, 'remove_logo') === 'on',
  };
}

/** The values of a stored QR code, shown as `type` (its own, or another the page was asked for: then its data boxes start empty). */
export function valuesOfQr(qr: Qr, type: QrType = qr.type): QrFormValues {
  const data: Record<string, string> = {};
  if (type === qr.type) {
    for (const f of DATA_FIELDS[type]) {
      const stored = f.key === '' ? qr.data : (qr.data as Record<string, unknown> | null)?.[f.key];
      data[dataName(f)] = stored === true ? 'on' : typeof stored === 'string' ? stored : '';
    }
  }
  return { type, name: qr.name, data, foreground: hexOf(qr.foreground), background: hexOf(qr.background), logo: qr.logo && !qr.logo.startsWith('data:') ? qr.logo : '', removeLogo: false };
}

/**
 * The API's create or update body of the form's values (`logo`: an uploaded image's data: URI, if
 * one came): what the API would be sent for the same code, so its rules and messages are its own.
 * Empty data boxes are left out; a logo box left empty keeps the stored logo (the API's update does).
 */
export function bodyOfValues(v: QrFormValues, uploadedLogo: string | null): Record<string, unknown> {
  const boxes = DATA_FIELDS[v.type];
  let data: unknown;
  if (boxes.length === 1 && boxes[0]!.key === '') data = v.data.data ?? '';
  else {
    const object: Record<string, unknown> = {};
    for (const f of boxes) {
      const value = v.data[dataName(f)] ?? '';
      if (f.input === 'checkbox') object[f.key] = value === 'on';
      else if (value !== '') object[f.key] = value;
    }
    data = object;
  }
  const body: Record<string, unknown> = { type: v.type, data, foreground: rgbOf(v.foreground), background: rgbOf(v.background) };
  if (v.name.trim() !== '') body.name = v.name;
  const logo = uploadedLogo ?? (v.removeLogo ? '' : v.logo.trim());
  if (logo !== '') body.logo = logo;
  return body;
}
