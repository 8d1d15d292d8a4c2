/**
 * The real product's spellings of QR `data`, turned into ours before validation, so that its
 * clients work unchanged (docs/compatibility.md, "QR codes"). Where a request sends both spellings
 * of one field, ours wins. Values of the wrong type are left for the schema to refuse.
 */

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : '');

// The product's wifi encryption names (any letter case) → ours; empty means "by the password".
const WIFI_ENCRYPTION: Readonly<Record<string, string | undefined>> = {
  wpa: 'WPA',
  wpa2: 'WPA',
  'wpa/wpa2': 'WPA',
  wep: 'WEP',
  nopass: 'nopass',
  none: 'nopass',
  '': undefined,
};

function wifi(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  if (out.password === undefined && out.pass !== undefined) out.password = out.pass;
  if (typeof out.encryption === 'string') {
    const key = out.encryption.trim().toLowerCase();
    if (Object.hasOwn(WIFI_ENCRYPTION, key)) out.encryption = WIFI_ENCRYPTION[key];
  }
  return out;
}

function vcard(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  if (out.company === undefined && out.org !== undefined) out.company = out.org;
  if (out.website === undefined && out.site !== undefined) out.website = out.site;
  // The product has no full name, only first and last: the card's name is them joined.
  if (out.name === undefined && (out.fname !== undefined || out.lname !== undefined)) out.name = `${text(out.fname)} ${text(out.lname)}`.trim();
  return out;
}

/** `data` of a QR of `type` with the real product's keys read as ours (an email QR's data may be the bare address, an SMS QR's the bare number). */
export function withRealKeys(type: string, data: unknown): unknown {
  if (type === 'email' && typeof data === 'string') return { email: data };
  if (type === 'sms' && typeof data === 'string') return { phone: data };
  if (!isObject(data)) return data;
  if (type === 'wifi') return wifi(data);
  if (type === 'vcard') return vcard(data);
  return data;
}
