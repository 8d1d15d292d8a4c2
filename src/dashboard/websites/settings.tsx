import type { Website } from '../../analytics/websites.ts';
import { field } from '../guard.ts';
import type { Form } from '../guard.ts';
import { Csrf, FormError } from '../layout.tsx';
import { Field } from '../links/form.tsx';

/** The choices of a website's `privacy`, in its numbers' order. */
export const PRIVACY = ['Public', 'Only me (signed in with my key)', 'Anyone with the password'] as const;

/** The options of a privacy select. */
export const PrivacyOptions = (props: { selected: string }) => (
  <>
    {PRIVACY.map((label, i) => (
      <option value={String(i)} selected={props.selected === String(i)}>
        {label}
      </option>
    ))}
  </>
);

/** A website's settings: who sees its statistics page, its password, and what is not counted. */
export function SettingsCard(props: { site: Website; csrf: string; values: Form | undefined; errors: Record<string, string> }) {
  const { site, values, errors } = props;
  const value = (name: string, stored: string) => (values ? field(values, name) : stored);
  return (
    <section class="card" aria-labelledby="settings-h">
      <h2 id="settings-h">Settings</h2>
      <FormError message={errors.form} />
      <form method="post" action={`/app/websites/${site.id}/settings`} class="stack">
        <Csrf token={props.csrf} />
        <Field name="privacy" label="Who sees the statistics page" errors={errors}>
          {(aria) => (
            <select {...aria} name="privacy">
              <PrivacyOptions selected={value('privacy', String(site.privacy))} />
            </select>
          )}
        </Field>
        <Field name="password" label="Page password" errors={errors} hint={site.password ? 'Empty: keep the current one.' : 'Needed with the password option.'}>
          {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" />}
        </Field>
        <label>
          <input type="checkbox" name="exclude_bots" value="1" checked={value('exclude_bots', String(site.exclude_bots)) === '1'} /> Leave out bots
        </label>
        <Field name="exclude_params" label="Query parameters left out of page addresses (one a line)" errors={errors}>
          {(aria) => (
            <textarea {...aria} name="exclude_params" rows={3}>
              {value('exclude_params', site.exclude_params)}
            </textarea>
          )}
        </Field>
        <Field name="exclude_ips" label="Addresses not counted (IP or CIDR range, one a line)" errors={errors}>
          {(aria) => (
            <textarea {...aria} name="exclude_ips" rows={3}>
              {value('exclude_ips', site.exclude_ips)}
            </textarea>
          )}
        </Field>
        <div class="actions">
          <button type="submit">Save the settings</button>
        </div>
      </form>
    </section>
  );
}
