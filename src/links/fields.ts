import * as v from 'valibot';
import { dateTime, httpUrl } from '../resources/fields.ts';
import { customAlias } from './alias.ts';
import { countryCodeOf, deviceNameOf } from './target-names.ts';

const text = (max: number, what: string) => v.pipe(v.string(), v.trim(), v.maxLength(max, `${what} must be at most ${max} characters.`));
const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const target = <K extends string>(key: K, check: v.GenericSchema<string, string>) =>
  v.pipe(v.array(v.object({ [key]: check, link: httpUrl } as { [P in K]: typeof check } & { link: typeof httpUrl })), v.maxLength(50, 'At most 50 targeting rules.'));

const parameter = v.object({ name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)), value: text(500, 'Parameter value') });

/** Device names a device target may name. */
export const DEVICES = ['iphone', 'ipad', 'android', 'windows', 'macintosh', 'linux', 'chromeos', 'blackberry', 'windows phone'] as const;

/** Request fields of short links (../shared/spec/compat-notes.md, "Links"). */
export const linkFields = {
  url: httpUrl,
  custom: customAlias,
  type: v.pipe(v.string(), v.regex(/^(direct|frame|splash|\d{1,12}|overlay-\d{1,12})$/, 'Invalid type: must be direct, frame, splash, a splash page id or overlay-<id>.')),
  password: v.pipe(v.string(), v.maxLength(128, 'Password must be at most 128 characters.')),
  domain: text(255, 'Domain'),
  expiry: dateTime,
  // Country names and the real product's device names are taken as well (docs/compatibility.md).
  geotarget: target('location', v.pipe(
    v.string(),
    v.check((s) => countryCodeOf(s) !== null, 'Invalid geotarget location: use a two-letter country code or an English country name.'),
    v.transform((s) => countryCodeOf(s) ?? s),
  )),
  devicetarget: target('device', v.pipe(v.string(), v.transform(deviceNameOf), v.picklist(DEVICES, `Invalid devicetarget device: must be one of ${DEVICES.join(', ')}.`))),
  languagetarget: target('language', v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/, 'Invalid languagetarget language: use a language code such as en or pt-br.'))),
  metatitle: text(200, 'Meta title'),
  metadescription: text(500, 'Meta description'),
  metaimage: httpUrl,
  description: text(500, 'Description'),
  pixels: v.pipe(v.array(id), v.maxLength(20, 'At most 20 pixels.')),
  channel: id,
  campaign: id,
  deeplink: v.strictObject({ auto: v.optional(v.boolean()), apple: v.optional(httpUrl), google: v.optional(httpUrl) }),
  status: v.picklist(['public', 'private'], 'Invalid status: must be public or private.'),
  // Malformed entries are skipped, as the real product skips them; the list itself must be a list.
  parameters: v.pipe(
    v.array(v.fallback(v.nullable(parameter), null)),
    v.transform((entries) => entries.filter((e) => e !== null)),
    v.maxLength(20, 'At most 20 parameters.'),
  ),
};
