import type { ApiError } from '../../errors.ts';
import { ALLOWED_EXTENSIONS } from '../../files/content-type.ts';
import { countText } from '../../html/count-text.ts';
import { errorsByField } from '../form-errors.ts';
import { field } from '../guard.ts';
import type { Form } from '../guard.ts';
import { Csrf, FormError } from '../layout.tsx';
import { Field } from '../links/form.tsx';
import type { Choice } from '../links/options.ts';

/** Where the upload form posts: app.ts bounds its body by FILE_MAX_BYTES (as the API's upload), not BODY_LIMIT. */
export const DASHBOARD_UPLOAD_PATH = '/app/files/upload';

/** A size as a person reads it. */
export const sizeText = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

// The upload's optional fields, as POST /api/files/upload takes them.
const OPTIONAL = ['name', 'custom', 'domain', 'password', 'expiry'] as const;

/** The upload's optional fields as the API takes them: empty ones left out, the expiry box's minutes given seconds. */
export function uploadFieldsOf(form: Form): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of OPTIONAL) {
    const value = field(form, name);
    if (value.trim() !== '') out[name] = name === 'expiry' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value.replace('T', ' ')}:00` : value;
  }
  return out;
}

/** The API's refusal of an upload beside its field (an alias's is the `custom` box's). */
export function errorsOfUpload(err: ApiError): Record<string, string> {
  const errors = errorsByField(err, ['file', ...OPTIONAL, 'alias']);
  if (errors.alias !== undefined) return { custom: errors.alias };
  return errors;
}

/** The upload form: the file (its limits said), and the optional title, alias, domain, password and expiry. */
export function UploadForm(props: { csrf: string; values: Form; errors: Record<string, string>; maxBytes: number; domains: Choice[] }) {
  const { errors } = props;
  const value = (name: string) => field(props.values, name);
  return (
    <form class="stack" method="post" action={DASHBOARD_UPLOAD_PATH} enctype="multipart/form-data" novalidate>
      <Csrf token={props.csrf} />
      <FormError message={errors.form} />
      <Field name="file" label="File" errors={errors} hint={`At most ${sizeText(props.maxBytes)} (${countText(props.maxBytes)} bytes); ${ALLOWED_EXTENSIONS.join(', ')}.`}>
        {(aria) => <input {...aria} name="file" type="file" required accept={ALLOWED_EXTENSIONS.map((e) => `.${e}`).join(',')} />}
      </Field>
      <div class="row">
        <Field name="name" label="Title (optional)" errors={errors} hint="Empty: the file's name.">
          {(aria) => <input {...aria} name="name" value={value('name')} />}
        </Field>
        <Field name="custom" label="Alias (optional)" errors={errors} hint="Empty: one is made up.">
          {(aria) => <input {...aria} name="custom" value={value('custom')} />}
        </Field>
      </div>
      <div class="row">
        <Field name="domain" label="Domain" errors={errors}>
          {(aria) => (
            <select {...aria} name="domain">
              <option value="">The main domain</option>
              {props.domains.map((d) => (
                <option value={d.value} selected={d.value === value('domain')}>
                  {d.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="password" label="Password (optional)" errors={errors}>
          {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" />}
        </Field>
        <Field name="expiry" label="Expires (UTC, optional)" errors={errors}>
          {(aria) => <input {...aria} name="expiry" type="datetime-local" value={value('expiry')} />}
        </Field>
      </div>
      <div class="actions">
        <button type="submit">Upload the file</button>
      </div>
    </form>
  );
}
