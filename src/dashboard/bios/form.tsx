import type { ApiError } from '../../errors.ts';
import { BIO_THEMES } from '../../resources/bios.ts';
import type { Bio, BioLink } from '../../resources/bios.ts';
import { errorsByField, refusedPath } from '../form-errors.ts';
import { field, fields } from '../guard.ts';
import type { Form } from '../guard.ts';
import { Csrf, FormError } from '../layout.tsx';
import { Field } from '../links/form.tsx';

/** Empty link rows under a bio page's links, to fill without a script. */
export const SPARE_LINK_ROWS = 3;

/** The bio form's values as typed (kept when the API refuses them). */
export interface BioFormValues {
  name: string;
  alias: string;
  description: string;
  avatar: string;
  theme: string;
  links: { title: string; url: string }[];
}

const NAMES = ['name', 'alias', 'description', 'avatar', 'theme', 'links'] as const;

/** The values of a posted bio form: its link rows paired in order, the empty ones left out. */
export function valuesOfForm(form: Form): BioFormValues {
  const titles = fields(form, 'link_title');
  const urls = fields(form, 'link_url');
  const links = Array.from({ length: Math.min(Math.max(titles.length, urls.length), 200) }, (_, i) => ({ title: titles[i] ?? '', url: urls[i] ?? '' })).filter((l) => l.title.trim() !== '' || l.url.trim() !== '');
  return { name: field(form, 'name'), alias: field(form, 'alias'), description: field(form, 'description'), avatar: field(form, 'avatar'), theme: field(form, 'theme'), links };
}

/** The values of a stored bio page (pages stored before avatar, theme and links existed have none). */
export const valuesOfBio = (b: Bio): BioFormValues => ({ name: b.name, alias: b.alias, description: b.description ?? '', avatar: b.avatar ?? '', theme: b.theme ?? 'light', links: (b.links ?? []).map((l: BioLink) => ({ title: l.title, url: l.url })) });

/** The API's create or update body of the form's values (an empty alias: made up on create, kept on update). */
export function bodyOfValues(v: BioFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { name: v.name, description: v.description, avatar: v.avatar, theme: v.theme || 'light', links: v.links };
  if (v.alias.trim() !== '') body.alias = v.alias;
  return body;
}

/** The API's refusal beside its field; a link row's says which row (`links.2.url`: Link 3). */
export function errorsOfBio(err: ApiError): Record<string, string> {
  const row = /^links\.(\d+)/.exec(refusedPath(err, NAMES));
  return row ? { links: `Link ${Number(row[1]) + 1}: ${err.message}` } : errorsByField(err, NAMES);
}

/** The form that creates or edits a bio page: name, alias, description, avatar, theme, and rows of links (the stored ones, then empty ones). */
export function BioForm(props: { action: string; csrf: string; values: BioFormValues; errors: Record<string, string>; editing: boolean }) {
  const { values: v, errors } = props;
  const rows = [...v.links, ...Array.from({ length: SPARE_LINK_ROWS }, () => ({ title: '', url: '' }))];
  return (
    <form class="stack" method="post" action={props.action} novalidate>
      <Csrf token={props.csrf} />
      <FormError message={errors.form ?? (Object.keys(errors).length > 0 ? 'The bio page was not saved: see the messages beside the fields.' : undefined)} />
      <div class="row">
        <Field name="name" label="Name (the page's title)" errors={errors}>
          {(aria) => <input {...aria} name="name" value={v.name} required />}
        </Field>
        <Field name="alias" label="Alias (its address: /u/alias)" errors={errors} hint={props.editing ? '3 to 64 letters, digits, - or _.' : '3 to 64 letters, digits, - or _; empty: one is made up.'}>
          {(aria) => <input {...aria} name="alias" value={v.alias} />}
        </Field>
      </div>
      <Field name="description" label="Description" errors={errors}>
        {(aria) => (
          <textarea {...aria} name="description" rows={3}>
            {v.description}
          </textarea>
        )}
      </Field>
      <div class="row">
        <Field name="avatar" label="Avatar image URL (optional)" errors={errors}>
          {(aria) => <input {...aria} name="avatar" type="url" value={v.avatar} placeholder="https://" />}
        </Field>
        <Field name="theme" label="Theme" errors={errors}>
          {(aria) => (
            <select {...aria} name="theme">
              {BIO_THEMES.map((t) => (
                <option value={t} selected={t === (v.theme || 'light')}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <fieldset aria-describedby={errors.links ? 'links-error' : undefined}>
        <legend>Links (empty rows are left out)</legend>
        {rows.map((row, i) => (
          <div class="row">
            <label class="field">
              <span>Link {i + 1} title</span>
              <input name="link_title" value={row.title} />
            </label>
            <label class="field">
              <span>Link {i + 1} URL</span>
              <input name="link_url" type="url" value={row.url} placeholder="https://" />
            </label>
          </div>
        ))}
        {errors.links && (
          <p class="err" id="links-error">
            {errors.links}
          </p>
        )}
      </fieldset>
      <div class="actions">
        <button type="submit">{props.editing ? 'Save the bio page' : 'Create the bio page'}</button>
        <a href="/app/bios">Cancel</a>
      </div>
    </form>
  );
}
