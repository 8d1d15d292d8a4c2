import type { Child } from 'hono/jsx';
import { ApiError } from '../../errors.ts';
import { DEVICES } from '../../links/fields.ts';
import type { Link } from '../../links/shape.ts';
import { field, fields } from '../guard.ts';
import type { Form } from '../guard.ts';
import { Csrf } from '../layout.tsx';
import type { Choice, LinkChoices } from './options.ts';

/** One targeting rule as the form holds it: what is targeted and where it sends. */
export interface TargetRow {
  key: string;
  link: string;
}

/** The link form's values as the user typed them (kept when the API refuses them). */
export interface LinkFormValues {
  url: string;
  custom: string;
  domain: string;
  password: string;
  /** "on" when the user asks to remove the link's password (editing). */
  removePassword: string;
  /** As an `<input type="datetime-local">` gives it: YYYY-MM-DDTHH:MM, UTC. */
  expiry: string;
  type: string;
  status: string;
  campaign: string;
  channel: string;
  description: string;
  metatitle: string;
  metadescription: string;
  pixels: string[];
  geo: TargetRow[];
  device: TargetRow[];
  language: TargetRow[];
}

const TEXTS = ['url', 'custom', 'domain', 'password', 'removePassword', 'expiry', 'type', 'status', 'campaign', 'channel', 'description', 'metatitle', 'metadescription'] as const;
const TARGETS = { geo: 'geotarget', device: 'devicetarget', language: 'languagetarget' } as const;
// Empty rows the form offers for new rules (no script adds rows).
const SPARE_ROWS = 2;

/** The values of a posted link form. */
export function valuesOfForm(form: Form): LinkFormValues {
  const rows = (name: keyof typeof TARGETS) => {
    const keys = fields(form, `${name}_key`);
    const links = fields(form, `${name}_link`);
    return keys.map((key, i) => ({ key: key.trim(), link: (links[i] ?? '').trim() })).filter((r) => r.key !== '' || r.link !== '');
  };
  const texts = Object.fromEntries(TEXTS.map((n) => [n, field(form, n)])) as Record<(typeof TEXTS)[number], string>;
  return { ...texts, pixels: fields(form, 'pixels'), geo: rows('geo'), device: rows('device'), language: rows('language') };
}

/** The values of a stored link, for its edit form (`domain`: its branded domain's host name, '' on the main host). */
export function valuesOfLink(link: Link, domain: string): LinkFormValues {
  const type = link.type === 'splash' && link.splashId !== null ? String(link.splashId) : link.type === 'overlay' && link.overlayId !== null ? `overlay-${link.overlayId}` : link.type;
  return {
    url: link.url,
    custom: link.alias,
    domain,
    password: '',
    removePassword: '',
    expiry: link.expiry ? link.expiry.slice(0, 16).replace(' ', 'T') : '',
    type,
    status: link.status,
    campaign: link.campaign === null ? '' : String(link.campaign),
    channel: '',
    description: link.description ?? '',
    metatitle: typeof link.metatitle === 'string' ? link.metatitle : '',
    metadescription: link.metadescription ?? '',
    pixels: link.pixels.map(String),
    geo: (link.geotarget ?? []).map((r) => ({ key: r.location, link: r.link })),
    device: (link.devicetarget ?? []).map((r) => ({ key: r.device, link: r.link })),
    language: (link.languagetarget ?? []).map((r) => ({ key: r.language, link: r.link })),
  };
}

// An id typed in a select or box: a number when it is one, else the text (the API's message then names the field).
const idValue = (s: string): number | string => (/^\d{1,15}$/.test(s) ? Number(s) : s);

/**
 * The API's create or update body of the form's values: what the API would be sent for the same
 * link, so its validation, hooks and messages are the API's own. Empty boxes are left out (on an
 * update, the API then resets what it resets: no domain, expiry, targets or description).
 */
export function bodyOfValues(v: LinkFormValues, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { url: v.url, type: v.type || 'direct', status: v.status || 'private' };
  for (const name of ['custom', 'domain', 'description', 'metatitle', 'metadescription'] as const) if (v[name].trim() !== '') body[name] = v[name];
  if (v.password !== '') body.password = v.password;
  else if (editing && v.removePassword === 'on') body.password = '';
  // datetime-local gives minutes; the API takes seconds (and says so when the text is no date).
  if (v.expiry !== '') body.expiry = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v.expiry) ? `${v.expiry.replace('T', ' ')}:00` : v.expiry;
  if (v.campaign !== '') body.campaign = idValue(v.campaign);
  if (v.channel !== '') body.channel = idValue(v.channel);
  if (editing || v.pixels.length > 0) body.pixels = v.pixels.map(idValue);
  if (v.geo.length > 0) body.geotarget = v.geo.map((r) => ({ location: r.key, link: r.link }));
  if (v.device.length > 0) body.devicetarget = v.device.map((r) => ({ device: r.key, link: r.link }));
  if (v.language.length > 0) body.languagetarget = v.language.map((r) => ({ language: r.key, link: r.link }));
  return body;
}

/** Whether an update keeps the stored password: none typed and no removal asked (the API's update would remove it). */
export const keepsPassword = (v: LinkFormValues): boolean => v.password === '' && v.removePassword !== 'on';

// The API's field names, as the form names them.
const FORM_FIELD: Record<string, string> = { geotarget: 'geo', devicetarget: 'device', languagetarget: 'language', alias: 'custom' };
const FORM_FIELDS = ['url', 'custom', 'domain', 'password', 'expiry', 'type', 'status', 'campaign', 'channel', 'description', 'metatitle', 'metadescription', 'pixels', 'geotarget', 'devicetarget', 'languagetarget', 'alias'];

/** The form field an API error is about (shown beside it), or 'form' when it names none. */
export function errorField(err: ApiError): string {
  const fromIssues = Object.keys(err.fields ?? {})[0]?.split('.')[0];
  const named = /^(?:Invalid ([\w]+)|Missing required parameter: ([\w]+))/.exec(err.message);
  const name = fromIssues && FORM_FIELDS.includes(fromIssues) ? fromIssues : (named?.[1] ?? named?.[2] ?? FORM_FIELDS.find((n) => new RegExp(`\\b${n}\\b`, 'i').test(err.message)));
  return name && FORM_FIELDS.includes(name) ? (FORM_FIELD[name] ?? name) : 'form';
}

/**
 * A labelled control with its hint and its error, tied together for screen readers (every dashboard
 * form uses it). Its ids come from `id` (default: the name): a page with two forms that ask for the
 * same field gives one of them another.
 */
export function Field(props: { name: string; id?: string; label: string; errors: Record<string, string>; hint?: string; children: (aria: Record<string, string | undefined>) => Child }) {
  const error = props.errors[props.name];
  const id = props.id ?? props.name;
  const described = [error ? `${id}-error` : '', props.hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={`f-${id}`}>
        <span>{props.label}</span>
      </label>
      {props.children({ id: `f-${id}`, 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': described || undefined })}
      {props.hint && (
        <span class="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      )}
      {error && (
        <p class="err" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

const Options = (props: { choices: readonly Choice[]; selected: string; none?: string }) => (
  <>
    {props.none !== undefined && <option value="">{props.none}</option>}
    {props.choices.map((ch) => (
      <option value={ch.value} selected={ch.value === props.selected}>
        {ch.label}
      </option>
    ))}
  </>
);

/** Rows of targeting rules: the stored ones and a few empty ones, each a pair of boxes. */
function Targets(props: { name: keyof typeof TARGETS; legend: string; keyLabel: string; rows: TargetRow[]; errors: Record<string, string>; keyInput?: (row: TargetRow, label: string) => Child }) {
  const rows = [...props.rows, ...Array.from({ length: SPARE_ROWS }, () => ({ key: '', link: '' }))];
  const error = props.errors[props.name];
  return (
    <fieldset aria-describedby={error ? `${props.name}-error` : undefined}>
      <legend>{props.legend}</legend>
      {rows.map((row, i) => (
        <div class="row">
          <label class="field">
            <span>
              {props.keyLabel} {i + 1}
            </span>
            {props.keyInput ? props.keyInput(row, props.keyLabel) : <input name={`${props.name}_key`} value={row.key} />}
          </label>
          <label class="field">
            <span>Sends to {i + 1}</span>
            <input name={`${props.name}_link`} type="url" value={row.link} placeholder="https://" />
          </label>
        </div>
      ))}
      {error && (
        <p class="err" id={`${props.name}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** The form that creates or edits a link, with every option of the API; errors shown beside their fields. */
export function LinkForm(props: { action: string; csrf: string; values: LinkFormValues; choices: LinkChoices; errors: Record<string, string>; editing: boolean; hasPassword?: boolean }) {
  const { values: v, choices, errors } = props;
  const types: Choice[] = [
    { value: 'direct', label: 'Direct redirect' },
    { value: 'frame', label: 'Framed page' },
    ...choices.splash.map((c) => ({ value: c.value, label: `Splash page: ${c.label}` })),
    ...choices.overlays.map((c) => ({ value: c.value, label: `Overlay: ${c.label}` })),
  ];
  const open = (...names: string[]) => names.some((n) => errors[n] !== undefined || (Array.isArray(v[n as keyof LinkFormValues]) ? (v[n as keyof LinkFormValues] as unknown[]).length > 0 : v[n as keyof LinkFormValues] !== '' && !['type', 'status'].includes(n)));
  return (
    <form class="stack" method="post" action={props.action} novalidate>
      <Csrf token={props.csrf} />
      {errors.form && (
        <p class="err" role="alert">
          {errors.form}
        </p>
      )}
      {Object.keys(errors).length > 0 && !errors.form && (
        <p class="err" role="alert">
          The link was not saved: see the messages beside the fields.
        </p>
      )}
      <Field name="url" label="Long URL" errors={errors}>
        {(aria) => <input {...aria} name="url" type="url" required value={v.url} placeholder="https://example.com/page" />}
      </Field>
      <div class="row">
        <Field name="custom" label="Alias (optional)" errors={errors} hint="3 to 64 letters, digits, - or _; empty: one is made up.">
          {(aria) => <input {...aria} name="custom" value={v.custom} />}
        </Field>
        <Field name="domain" label="Domain" errors={errors}>
          {(aria) => (
            <select {...aria} name="domain">
              <Options choices={choices.domains} selected={v.domain} none="The main domain" />
            </select>
          )}
        </Field>
      </div>
      <Field name="description" label="Description (only you see it)" errors={errors}>
        {(aria) => <input {...aria} name="description" value={v.description} />}
      </Field>
      <details open={open('password', 'expiry')}>
        <summary>Password and expiry</summary>
        <div class="row">
          <Field name="password" label={props.editing && props.hasPassword ? 'New password (empty: keep it)' : 'Password (optional)'} errors={errors}>
            {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" value="" />}
          </Field>
          <Field name="expiry" label="Expires (UTC, optional)" errors={errors}>
            {(aria) => <input {...aria} name="expiry" type="datetime-local" value={v.expiry} />}
          </Field>
        </div>
        {props.editing && props.hasPassword && (
          <label>
            <input type="checkbox" name="removePassword" checked={v.removePassword === 'on'} /> Remove the password
          </label>
        )}
      </details>
      <details open={open('geo', 'device', 'language')}>
        <summary>Targeting: country, device, language</summary>
        <Targets name="geo" legend="By country" keyLabel="Country (code or English name)" rows={v.geo} errors={errors} />
        <Targets
          name="device"
          legend="By device"
          keyLabel="Device"
          rows={v.device}
          errors={errors}
          keyInput={(row) => (
            <select name="device_key">
              <option value="">None</option>
              {DEVICES.map((dev) => (
                <option value={dev} selected={row.key === dev}>
                  {dev}
                </option>
              ))}
            </select>
          )}
        />
        <Targets name="language" legend="By language" keyLabel="Language (en, pt-br)" rows={v.language} errors={errors} />
      </details>
      <details open={open('type', 'metatitle', 'metadescription') || (v.type !== '' && v.type !== 'direct')}>
        <summary>Page: redirect, splash, overlay, meta</summary>
        <div class="row">
          <Field name="type" label="What the short URL shows" errors={errors}>
            {(aria) => (
              <select {...aria} name="type">
                <Options choices={types} selected={v.type || 'direct'} />
              </select>
            )}
          </Field>
          <Field name="status" label="Visibility" errors={errors}>
            {(aria) => (
              <select {...aria} name="status">
                <Options choices={[{ value: 'private', label: 'Private' }, { value: 'public', label: 'Public' }]} selected={v.status || 'private'} />
              </select>
            )}
          </Field>
        </div>
        <div class="row">
          <Field name="metatitle" label="Meta title" errors={errors}>
            {(aria) => <input {...aria} name="metatitle" value={v.metatitle} />}
          </Field>
          <Field name="metadescription" label="Meta description" errors={errors}>
            {(aria) => <input {...aria} name="metadescription" value={v.metadescription} />}
          </Field>
        </div>
      </details>
      <details open={open('campaign', 'channel', 'pixels')}>
        <summary>Campaign, channel, pixels</summary>
        <div class="row">
          <Field name="campaign" label="Campaign" errors={errors}>
            {(aria) => (
              <select {...aria} name="campaign">
                <Options choices={choices.campaigns} selected={v.campaign} none={props.editing ? 'Keep as it is' : 'None'} />
              </select>
            )}
          </Field>
          <Field name="channel" label={props.editing ? 'Add to a channel' : 'Channel'} errors={errors}>
            {(aria) => (
              <select {...aria} name="channel">
                <Options choices={choices.channels} selected={v.channel} none="None" />
              </select>
            )}
          </Field>
        </div>
        <fieldset aria-describedby={errors.pixels ? 'pixels-error' : undefined}>
          <legend>Pixels</legend>
          {choices.pixels.length === 0 && <p class="hint">You have no pixels yet.</p>}
          {choices.pixels.map((p) => (
            <label>
              <input type="checkbox" name="pixels" value={p.value} checked={v.pixels.includes(p.value)} /> {p.label}
            </label>
          ))}
          {errors.pixels && (
            <p class="err" id="pixels-error">
              {errors.pixels}
            </p>
          )}
        </fieldset>
      </details>
      <div class="actions">
        <button type="submit">{props.editing ? 'Save the link' : 'Create the link'}</button>
        <a href="/app/links">Cancel</a>
      </div>
    </form>
  );
}

/** The errors of a refused save, by form field. */
export function errorsOf(err: ApiError): Record<string, string> {
  return { [errorField(err)]: err.message };
}
