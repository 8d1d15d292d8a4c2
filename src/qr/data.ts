import * as v from 'valibot';
import { URL_MESSAGES, urlChecks } from '../resources/fields.ts';
import { withRealKeys } from './real-keys.ts';

/** The kinds of content a QR code can carry. */
export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'] as const;

/** One of QR_TYPES. */
export type QrType = (typeof QR_TYPES)[number];

/** Wi-Fi authentication modes understood by phone cameras' WIFI: parser. */
export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;

const MAX_TEXT = 2000;

// Only JSON-Schema-friendly actions (maxLength, regex, email, url, picklist) are used in the
// schemas so that they can be converted without losing rules; cross-field rules live in parseQrData.
const str = (max: number) =>
  v.pipe(v.string('Expected a string.'), v.maxLength(max, `Must be at most ${max} characters.`));
const required = (max: number) =>
  v.pipe(str(max), v.regex(/\S/, 'This field must not be empty.'));
const optional = (max: number) => v.optional(str(max));

// A "plausible" number: an optional leading +, then digits, spaces, dashes, dots, parentheses,
// with at least 3 digits.
const PHONE_RE = /^(?=(?:\D*\d){3})\+?[\d\s().-]+$/;
const phone = v.pipe(str(30), v.regex(PHONE_RE, 'Please enter a valid phone number.'));
const email = v.pipe(str(254), v.email('Please enter a valid email.'));
// Stored as given, as every URL field (resources/fields.ts); "" in a vCard's URL fields means none.
const url = (orEmpty: boolean) => v.pipe(str(MAX_TEXT), v.trim(), ...urlChecks(URL_MESSAGES, orEmpty));
const httpUrl = url(false);
const urlOrEmpty = v.optional(url(true));

/** Valibot schema of `data` for each QR type (also the source for JSON Schema). */
export const qrDataSchemas = {
  text: required(MAX_TEXT),
  link: httpUrl,
  phone,
  vcard: v.object({
    name: required(200),
    fname: optional(100),
    lname: optional(100),
    phone: v.optional(v.union([v.literal(''), phone], 'Please enter a valid phone number.')),
    email: v.optional(v.union([v.literal(''), email], 'Please enter a valid email.')),
    company: optional(200),
    title: optional(200),
    address: optional(500),
    website: urlOrEmpty,
    facebook: urlOrEmpty,
    instagram: urlOrEmpty,
    twitter: urlOrEmpty,
    linkedin: urlOrEmpty,
    // The address in parts, as the real product takes it; `address` is the street when `street` is not sent.
    street: optional(200),
    city: optional(100),
    state: optional(100),
    zip: optional(20),
    country: optional(100),
    note: optional(1000),
  }),
  email: v.object({
    email,
    subject: optional(500),
    body: optional(MAX_TEXT),
  }),
  sms: v.object({
    phone,
    message: optional(1000),
  }),
  wifi: v.object({
    ssid: v.pipe(str(32), v.minLength(1, 'This field must not be empty.')),
    password: optional(63),
    encryption: v.optional(
      v.picklist(WIFI_ENCRYPTIONS, `Must be one of ${WIFI_ENCRYPTIONS.join(', ')}.`),
    ),
    hidden: v.optional(v.boolean('Expected true or false.')),
  }),
} satisfies Record<QrType, v.GenericSchema>;

/** Validated Wi-Fi data, with the encryption resolved. */
export type WifiData = Omit<v.InferOutput<typeof qrDataSchemas.wifi>, 'encryption'> & {
  encryption: (typeof WIFI_ENCRYPTIONS)[number];
};

/** Validated `data` for each QR type. */
export type QrDataByType = {
  [K in Exclude<QrType, 'wifi'>]: v.InferOutput<(typeof qrDataSchemas)[K]>;
} & { wifi: WifiData };

/** A validated QR content: its type and its data. */
export type QrData = { [K in QrType]: { type: K; data: QrDataByType[K] } }[QrType];

/** Result of parseQrData: the value, or a sentence saying what is wrong. */
export type QrDataResult = { ok: true; value: QrData } | { ok: false; message: string };

/** The message used when `data` does not have the shape its type needs. */
export const INVALID_QR_DATA = 'Invalid QR format or missing data.';

/** True when `type` is one of QR_TYPES. */
export function isQrType(type: unknown): type is QrType {
  return typeof type === 'string' && (QR_TYPES as readonly string[]).includes(type);
}

/** Validates `data` for a QR of `type` and returns it typed, or a message naming the problem. */
export function parseQrData(type: string, data: unknown): QrDataResult {
  if (!isQrType(type)) {
    return { ok: false, message: `Unknown QR type. Use one of: ${QR_TYPES.join(', ')}.` };
  }
  // v.object accepts arrays, but no QR type's data is a list.
  if (Array.isArray(data)) return { ok: false, message: INVALID_QR_DATA };
  const result = v.safeParse(qrDataSchemas[type], withRealKeys(type, data));
  if (!result.success) return { ok: false, message: issueMessage(result.issues[0]) };
  if (type !== 'wifi') {
    // The cast is safe: the schema picked by `type` produced this output.
    return { ok: true, value: { type, data: result.output } as QrData };
  }
  const wifi = result.output as v.InferOutput<typeof qrDataSchemas.wifi>;
  const hasPassword = wifi.password !== undefined && wifi.password !== '';
  const encryption = wifi.encryption ?? (hasPassword ? 'WPA' : 'nopass');
  if (encryption !== 'nopass' && !hasPassword) {
    return { ok: false, message: `data.password: A password is required for ${encryption} networks.` };
  }
  return { ok: true, value: { type, data: { ...wifi, encryption } } };
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
  if (path === '') {
    // The root has the wrong type (e.g. an object where a string belongs, or nothing at all).
    return issue.kind === 'schema' ? INVALID_QR_DATA : `data: ${issue.message}`;
  }
  if (issue.input === undefined) return `data.${path}: This field is required.`;
  return `data.${path}: ${issue.message}`;
}
