import type { Context } from 'hono';
import { verifyPassword } from '../../auth/passwords.ts';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import { planOf } from '../../resources/plans.ts';
import { updateAccount } from '../../routes/link-api/account.ts';
import { fieldOfMessage } from '../sign-in.tsx';
import { allows, audit, field } from '../guard.ts';
import type { Dashboard, Form } from '../guard.ts';
import { Csrf } from '../layout.tsx';
import { Field } from '../links/form.tsx';
import type { SignedIn } from '../sessions.ts';

/** What the profile forms show again after a refusal: what was typed (never a password) and each field's message. */
export interface ProfileState {
  email?: string;
  errors?: Record<string, string>;
  /** The form the errors are about (its current password's message is shown in it only). */
  form?: 'email' | 'password';
  done?: string;
}

const hasPassword = (who: SignedIn): boolean => typeof who.user.password === 'string' && who.user.password !== '';

/** The account's name, plan and expiry, and its email and password forms (the current password asked for when there is one). */
export function ProfileCards(props: { who: SignedIn; state: ProfileState }) {
  const { who, state } = props;
  const errors = state.errors ?? {};
  const plan = planOf(who.user);
  // Both forms ask for it: the password form's box has ids of its own, and each shows the message of its own post.
  const current = (form: 'email' | 'password') =>
    hasPassword(who) && (
      <Field name="current_password" id={form === 'email' ? 'current_password' : 'password-current_password'} label="Current password" errors={state.form === form ? errors : {}}>
        {(aria) => <input {...aria} name="current_password" type="password" autocomplete="current-password" required />}
      </Field>
    );
  return (
    <>
      <section class="card">
        <h1>{who.user.username}</h1>
        <p class="muted">{who.user.email}</p>
        <p>
          Plan: <strong>{plan.name}</strong>
          {who.user.expires ? `, until ${who.user.expires} UTC` : ', without an end'}.
        </p>
        {who.key && <p class="muted">Signed in with the API key {who.key.name}: this session can do what that key may ({who.key.scopes.join(', ')}).</p>}
        <p>
          <a href="/app/account/keys">API keys</a> · <a href="/app/account/webhooks">Webhooks</a>
        </p>
      </section>
      {state.done && (
        <p class="card ok" role="status">
          {state.done}
        </p>
      )}
      {errors.form && (
        <p class="card err" role="alert">
          {errors.form}
        </p>
      )}
      <section class="card" aria-labelledby="email-h">
        <h2 id="email-h">Email</h2>
        <form method="post" action="/app/account/email">
          <Csrf token={who.csrf} />
          <Field name="email" label="Email" errors={errors}>
            {(aria) => <input {...aria} name="email" type="email" autocomplete="email" value={state.email ?? who.user.email} required />}
          </Field>
          {current('email')}
          <div class="actions">
            <button type="submit">Change the email</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="password-h">
        <h2 id="password-h">Password</h2>
        {!hasPassword(who) && <p class="muted">This account has no password yet: set one to sign in with your username or email.</p>}
        <form method="post" action="/app/account/password">
          <Csrf token={who.csrf} />
          {current('password')}
          <Field name="password" label="New password" errors={errors} hint="5 to 256 characters.">
            {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" minlength={5} maxlength={256} required />}
          </Field>
          <Field name="password_again" label="New password again" errors={errors}>
            {(aria) => <input {...aria} name="password_again" type="password" autocomplete="new-password" required />}
          </Field>
          <div class="actions">
            <button type="submit">{hasPassword(who) ? 'Change the password' : 'Set the password'}</button>
          </div>
        </form>
      </section>
    </>
  );
}

/** The sentence of each outcome a profile form redirects with (`?done=`). */
export const DONE = { email: 'The email was changed.', password: 'The password was saved.', same: 'Nothing changed.' } as const;

/** The outcome of a profile form: the page again with the message beside its field. */
export type ProfileAnswer = { ok: true; done: keyof typeof DONE } | { ok: false; status: 400 | 401 | 403 | 429; state: ProfileState };

/**
 * Applies the email or password form through the API's account update (updateAccount), once the
 * current password (when the account has one) is right; wrong ones are counted with sign-in's.
 */
export async function changeProfile(d: Dashboard, c: Context<AppEnv>, who: SignedIn, form: Form, what: 'email' | 'password'): Promise<ProfileAnswer> {
  const route = `/app/account/${what}`;
  const email = what === 'email' ? field(form, 'email') : undefined;
  const refuse = (status: 400 | 401 | 403 | 429, errors: Record<string, string>): ProfileAnswer => {
    audit(d, c, who, route, 'users', who.user.id, status);
    return { ok: false, status, state: { ...(email === undefined ? {} : { email }), errors, form: what } };
  };
  if (!allows(who, 'account:write')) return refuse(403, { form: 'You signed in with an API key that lacks the scope account:write.' });
  if (field(form, what) === '') return refuse(400, { [what]: what === 'email' ? 'Enter an email.' : 'Enter a new password.' });
  if (what === 'password' && field(form, 'password') !== field(form, 'password_again')) return refuse(400, { password_again: 'The two new passwords differ.' });
  if (hasPassword(who)) {
    const typed = field(form, 'current_password');
    if (typed === '') return refuse(400, { current_password: 'Enter your current password.' });
    const outcome = await d.attempts.attempt(clientIp(c, d.s.config.trustProxy), `dashboard ${who.user.username.toLowerCase()}`, () => verifyPassword(typed.slice(0, 256), who.user.password));
    if (outcome.kind === 'blocked' || outcome.kind === 'busy') return refuse(429, { current_password: `Too many wrong passwords: try again in ${outcome.retryAfter} seconds.` });
    if (outcome.kind === 'wrong') return refuse(401, { current_password: 'That is not your current password.' });
  }
  try {
    const body = what === 'email' ? { email: email ?? '' } : { password: field(form, 'password') };
    const changed = await updateAccount(d.s, who.user, body);
    audit(d, c, who, route, 'users', who.user.id, 200);
    return { ok: true, done: changed ? what : 'same' };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    return refuse(400, { [fieldOfMessage(err.message, [what]) ?? what]: err.message });
  }
}
