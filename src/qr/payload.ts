import type { QrData, QrDataByType, QrType } from './data.ts';

/** Options for buildQrPayload. */
export type QrPayloadOptions = {
  /** A URL on our server that counts a scan and redirects; encoded instead of a link's target. */
  trackingUrl?: string;
};

/** Builds the string a QR code of `type` encodes, in the format phone cameras understand. */
export function buildQrPayload<T extends QrType>(
  type: T,
  data: QrDataByType[T],
  opts: QrPayloadOptions = {},
): string {
  // The cast re-joins the pair that the generic signature keeps in step for callers.
  const qr = { type, data } as QrData;
  switch (qr.type) {
    case 'text':
      return qr.data;
    case 'link':
      return opts.trackingUrl ?? qr.data.trim();
    case 'phone':
      return `tel:${dialable(qr.data)}`;
    case 'sms':
      return `SMSTO:${dialable(qr.data.phone)}:${qr.data.message ?? ''}`;
    case 'email':
      return mailto(qr.data);
    case 'vcard':
      return vcard(qr.data);
    case 'wifi':
      return wifi(qr.data);
  }
}

/** Reduces a phone number to `+` and digits, as tel: URIs and SMSTO: want. */
export function dialable(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return phone.trim().startsWith('+') ? `+${digits}` : digits;
}

function mailto(data: QrDataByType['email']): string {
  const query: string[] = [];
  // RFC 6068: line breaks in a body are CRLF, percent-encoded; spaces are %20, not +.
  if (data.subject) query.push(`subject=${encodeURIComponent(data.subject)}`);
  if (data.body) query.push(`body=${encodeURIComponent(data.body.replace(/\r?\n/g, '\r\n'))}`);
  return `mailto:${data.email.trim()}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** Escapes a vCard 3.0 text value (RFC 2426 §4: backslash, comma, semicolon, newline). */
export function escapeVcardText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/,/g, '\\,')
    .replace(/;/g, '\\;')
    .replace(/\r\n|\r|\n/g, '\\n');
}

function vcard(data: QrDataByType['vcard']): string {
  const text = (value: string | undefined) => (value?.trim() ? escapeVcardText(value.trim()) : '');
  const name = text(data.name);
  // N is family;given: from the real product's lname/fname when sent, else the whole name as family name.
  const n = data.fname?.trim() || data.lname?.trim() ? `${text(data.lname)};${text(data.fname)}` : `${name};`;
  const street = text(data.street) || text(data.address);
  const parts = [street, text(data.city), text(data.state), text(data.zip), text(data.country)];
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `N:${n}`, `FN:${name}`];
  const optional: [string, string][] = [
    ['ORG', text(data.company)],
    ['TITLE', text(data.title)],
    ['TEL', data.phone?.trim() ?? ''],
    ['EMAIL', data.email?.trim() ?? ''],
    // ADR is structured (PO box;ext;street;city;region;code;country); a free-form address goes in street.
    ['ADR', parts.some((p) => p !== '') ? `;;${parts.join(';')}` : ''],
    // URL's value type is uri, not text, so it is not escaped.
    ['URL', data.website?.trim() ?? ''],
    ...SOCIAL.map((network): [string, string] => [`URL;TYPE=${network}`, data[network]?.trim() ?? '']),
    ['NOTE', text(data.note)],
  ];
  for (const [property, value] of optional) if (value !== '') lines.push(`${property}:${value}`);
  lines.push('END:VCARD');
  return lines.join('\r\n');
}

/** The social profiles a vCard may carry, each as a typed URL, as the real product writes them. */
const SOCIAL = ['facebook', 'instagram', 'twitter', 'linkedin'] as const;

/** Escapes a value of the WIFI: format (ZXing's spec: backslash, semicolon, comma, colon, quote). */
export function escapeWifiValue(value: string): string {
  return value.replace(/[\\;,:"]/g, (ch) => `\\${ch}`);
}

function wifi(data: QrDataByType['wifi']): string {
  let out = `WIFI:T:${data.encryption};S:${escapeWifiValue(data.ssid)};`;
  if (data.encryption !== 'nopass') out += `P:${escapeWifiValue(data.password ?? '')};`;
  if (data.hidden) out += 'H:true;';
  return `${out};`;
}
