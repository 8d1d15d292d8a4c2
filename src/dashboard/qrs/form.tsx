import { QR_TYPES } from '../../qr/data.ts';
import { MAX_LOGO_BYTES } from '../../qr/logo.ts';
import { Csrf, FormError } from '../layout.tsx';
import { Field } from '../links/form.tsx';
import { DATA_FIELDS, dataName, QR_TYPE_LABELS } from './fields.ts';
import type { DataField, QrFormValues } from './fields.ts';

function DataBox(props: { f: DataField; value: string; errors: Record<string, string> }) {
  const { f, value } = props;
  const name = dataName(f);
  if (f.input === 'checkbox') {
    return (
      <label class="check">
        <input type="checkbox" name={name} checked={value === 'on'} /> {f.label}
      </label>
    );
  }
  return (
    <Field name={name} label={f.label} errors={props.errors} {...(f.hint ? { hint: f.hint } : {})}>
      {(aria) =>
        f.input === 'textarea' ? (
          <textarea {...aria} name={name} rows={3}>
            {value}
          </textarea>
        ) : f.input === 'select' ? (
          <select {...aria} name={name}>
            <option value="">Automatic</option>
            {(f.options ?? []).map((o) => (
              <option value={o} selected={o === value}>
                {o}
              </option>
            ))}
          </select>
        ) : (
          <input {...aria} name={name} type={f.input} value={value} autocomplete={f.input === 'password' ? 'off' : undefined} />
        )
      }
    </Field>
  );
}

/**
 * The form that switches the QR form to another type: a GET of the same page with ?type= (no
 * script needed; what was typed in the type's boxes is not carried over).
 */
export function TypeSwitch(props: { action: string; type: string }) {
  return (
    <form class="toolbar" method="get" action={props.action}>
      <label>
        Type of content
        <select name="type">
          {QR_TYPES.map((t) => (
            <option value={t} selected={t === props.type}>
              {QR_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="secondary">
        Show its fields
      </button>
    </form>
  );
}

/** The form that creates or edits a QR code: its type's data boxes, name, colours, logo (URL or upload); errors beside their fields. */
export function QrForm(props: { action: string; csrf: string; values: QrFormValues; errors: Record<string, string>; editing: boolean; uploadedLogo: boolean; hasLogo: boolean }) {
  const { values: v, errors } = props;
  return (
    <form class="stack" method="post" action={props.action} enctype="multipart/form-data" novalidate>
      <Csrf token={props.csrf} />
      <input type="hidden" name="type" value={v.type} />
      <FormError message={errors.form ?? (Object.keys(errors).length > 0 ? 'The QR code was not saved: see the messages beside the fields.' : undefined)} />
      <fieldset>
        <legend>{QR_TYPE_LABELS[v.type]}</legend>
        {DATA_FIELDS[v.type].map((f) => (
          <DataBox f={f} value={v.data[dataName(f)] ?? ''} errors={errors} />
        ))}
        {errors.data && !DATA_FIELDS[v.type].some((f) => dataName(f) === 'data') && (
          <p class="err" id="data-error">
            {errors.data}
          </p>
        )}
      </fieldset>
      <Field name="name" label="Name (only you see it)" errors={errors} hint="Empty: named after its type.">
        {(aria) => <input {...aria} name="name" value={v.name} />}
      </Field>
      <div class="row">
        <Field name="foreground" label="Foreground colour" errors={errors}>
          {(aria) => <input {...aria} name="foreground" type="color" value={v.foreground} />}
        </Field>
        <Field name="background" label="Background colour" errors={errors}>
          {(aria) => <input {...aria} name="background" type="color" value={v.background} />}
        </Field>
      </div>
      <fieldset aria-describedby={errors.logo ? 'logo-error' : undefined}>
        <legend>Logo in the middle (optional)</legend>
        <Field name="logo" label="Logo URL (.png or .jpg)" errors={{}} hint="Fetched by this server from public addresses only.">
          {(aria) => <input {...aria} name="logo" type="url" value={v.logo} placeholder="https://" />}
        </Field>
        <Field name="logo_file" label="Or upload an image" errors={{}} hint={`PNG or JPEG, at most ${MAX_LOGO_BYTES / 1024} KB.`}>
          {(aria) => <input {...aria} name="logo_file" type="file" accept="image/png,image/jpeg" />}
        </Field>
        {props.uploadedLogo && <p class="hint">The logo is an uploaded image: a new URL or upload replaces it.</p>}
        {props.editing && props.hasLogo && (
          <label class="check">
            <input type="checkbox" name="remove_logo" checked={v.removeLogo} /> Remove the logo
          </label>
        )}
        {errors.logo && (
          <p class="err" id="logo-error">
            {errors.logo}
          </p>
        )}
      </fieldset>
      <div class="actions">
        <button type="submit">{props.editing ? 'Save the QR code' : 'Create the QR code'}</button>
        <a href="/app/qrs">Cancel</a>
      </div>
    </form>
  );
}
