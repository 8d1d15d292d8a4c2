import { Hono } from 'hono';
import type { Context } from 'hono';
import { ACCOUNT_DISABLED, isDisabled } from '../auth/disabled-users.ts';
import { keyExpired, allowedFrom } from '../auth/key-checks.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { ApiError } from '../errors.ts';
import type { Credential } from '../auth/key-index.ts';
import type { AppEnv } from '../http/app-env.ts';
import { clientIp } from '../http/client-ip.ts';
import { clientBucket, retryAfter } from '../http/rate-limit.ts';
import { fromOwnPage, isPageLoad } from '../html/page-headers.ts';
import type { UserRecord } from '../resources/define.ts';
import { registerUser } from '../routes/link-api/register.ts';
import { field, readForm, screen } from './guard.ts';
import type { Dashboard } from './guard.ts';
import { answerPage, Layout, messagePage } from './layout.tsx';
import { ADMIN_COOKIE } from './sessions.ts';
import { getCookie } from 'hono/cookie';

const WRONG = 'Wrong username, email or password.';
const WRONG_KEY = 'This API key is not valid.';

// Checked when no user has the name, so that a wrong name costs as long as a wrong password.
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashPassword('decoy password never matched'));

/** The sign-in page: username or email and password, or an API key; the form keeps the name typed. */
function LoginPage(props: { token: string; login?: string; error?: string; keyError?: string; register: boolean }) {
  return (
    <Layout title="Sign in">
      <section class="card" aria-labelledby="signin">
        <h1 id="signin">Sign in</h1>
        {props.error && (
          <p class="err" role="alert">
            {props.error}
          </p>
        )}
        <form class="stack" method="post" action="/app/login">
          <input type="hidden" name="csrf" value={props.token} />
          <label class="field">
            <span>Username or email</span>
            <input name="login" autocomplete="username" required value={props.login ?? ''} autofocus />
          </label>
          <label class="field">
            <span>Password</span>
            <input type="password" name="password" autocomplete="current-password" required />
          </label>
          <button type="submit">Sign in</button>
        </form>
      </section>
      <section class="card" aria-labelledby="withkey">
        <h2 id="withkey">Or sign in with an API key</h2>
        {props.keyError && (
          <p class="err" role="alert">
            {props.keyError}
          </p>
        )}
        <form class="stack" method="post" action="/app/login">
          <input type="hidden" name="csrf" value={props.token} />
          <label class="field">
            <span>API key</span>
            <input type="password" name="apikey" autocomplete="off" required />
          </label>
          <button type="submit" class="secondary">
            Sign in with the key
          </button>
        </form>
        <p class="hint">No password yet? Ask your administrator for a one-time sign-in link: it gives you an API key to sign in with here.</p>
      </section>
      {props.register && (
        <p>
          No account? <a href="/app/register">Create one</a>.
        </p>
      )}
    </Layout>
  );
}

/** The registration page (OPEN_REGISTRATION on); the form keeps what was typed but the password. */
function RegisterPage(props: { token: string; values?: Record<string, string>; error?: string; errorField?: string }) {
  const f = (name: string, label: string, type: string, autocomplete: string) => {
    const bad = props.errorField === name;
    return (
      <label class="field">
        <span>{label}</span>
        <input name={name} type={type} autocomplete={autocomplete} required value={type === 'password' ? '' : (props.values?.[name] ?? '')} aria-invalid={bad ? 'true' : undefined} aria-describedby={bad ? 'register-error' : undefined} />
        {bad && (
          <p class="err" id="register-error">
            {props.error}
          </p>
        )}
      </label>
    );
  };
  return (
    <Layout title="Create an account">
      <section class="card">
        <h1>Create an account</h1>
        {props.error && !props.errorField && (
          <p class="err" role="alert">
            {props.error}
          </p>
        )}
        <form class="stack" method="post" action="/app/register">
          <input type="hidden" name="csrf" value={props.token} />
          {f('username', 'Username', 'text', 'username')}
          {f('email', 'Email', 'email', 'email')}
          {f('password', 'Password (at least 5 characters)', 'password', 'new-password')}
          <button type="submit">Create the account</button>
        </form>
        <p>
          Have an account? <a href="/app/login">Sign in</a>.
        </p>
      </section>
    </Layout>
  );
}

/** The field an API error names ("Invalid email: …", "Missing required parameter: email", "… username …"), if one. */
export function fieldOfMessage(message: string, names: readonly string[]): string | undefined {
  const named = /^(?:Invalid ([\w.]+)|Missing required parameter: ([\w.]+))/.exec(message);
  const first = (named?.[1] ?? named?.[2])?.split('.')[0];
  if (first && names.includes(first)) return first;
  return names.find((n) => new RegExp(`\\b${n}\\b`, 'i').test(message));
}

/** `/app/login`, `/app/register` (OPEN_REGISTRATION on) and `/app/logout`. */
export function signInRoutes(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;

  const refused = (c: Context, kind: 'blocked' | 'busy', wait: number) => {
    c.header('Retry-After', String(wait));
    return kind === 'blocked'
      ? messagePage(c, 429, 'Too many attempts', `Too many wrong attempts from your address or for this account. Try again in ${wait} seconds.`)
      : messagePage(c, 503, 'Please try again', 'The server is busy checking passwords. Try again in a moment.');
  };

  routes.get('/app/login', async (c) => {
    if (await d.sessions.current(c)) return c.redirect('/app', 302);
    return answerPage(c, <LoginPage token={d.sessions.preToken(c)} register={s.config.openRegistration} />);
  });

  routes.post('/app/login', async (c) => {
    const form = await readForm(c);
    if (!fromOwnPage(c) || !isPageLoad(c) || !d.sessions.preTokenMatches(c, form.csrf)) {
      return messagePage(c, 403, 'Form expired', 'This form could not be checked. Open the sign-in page again.');
    }
    const ip = clientIp(c, s.config.trustProxy);
    const again = (status: 401 | 400 | 403, props: { login?: string; error?: string; keyError?: string }) =>
      answerPage(c, <LoginPage token={d.sessions.preToken(c)} register={s.config.openRegistration} {...props} />, status);
    const apikey = field(form, 'apikey').trim();
    if (apikey !== '') {
      const got: { found: Credential | null } = { found: null };
      // Keys are counted per client only: a count per target would let anyone lock every key out.
      const outcome = await d.attempts.attempt(ip, `dashboard key ${clientBucket(ip)}`, async () => {
        const found = (got.found = apikey.length <= 256 ? await d.keys.lookup(apikey) : null);
        const key = found?.key;
        if (!found || keyExpired(key ? key.expires : found.user.keyExpires, s.clock.now())) return false;
        return !key || key.ips.length === 0 || allowedFrom(key, ip);
      });
      if (outcome.kind === 'blocked' || outcome.kind === 'busy') return refused(c, outcome.kind, outcome.retryAfter);
      const credential = got.found;
      if (outcome.kind === 'wrong' || !credential) return again(401, { keyError: WRONG_KEY });
      if (isDisabled(credential.user)) return again(403, { keyError: ACCOUNT_DISABLED });
      await d.sessions.open(c, credential.user, 'key', credential.key?.id ?? null);
      return c.redirect('/app/links', 303);
    }
    const login = field(form, 'login').trim().slice(0, 254);
    const password = field(form, 'password');
    if (login === '' || password === '') return again(400, { login, error: 'Enter your username or email and your password.' });
    const user = await s.store.lookup<UserRecord>('users', login.includes('@') ? 'email' : 'username', login.toLowerCase());
    const outcome = await d.attempts.attempt(ip, `dashboard ${login.toLowerCase()}`, async () => {
      if (user && typeof user.password === 'string' && user.password !== '') return verifyPassword(password.slice(0, 256), user.password);
      await verifyPassword(password.slice(0, 256), await decoyHash());
      return false;
    });
    if (outcome.kind === 'blocked' || outcome.kind === 'busy') return refused(c, outcome.kind, outcome.retryAfter);
    if (outcome.kind === 'wrong' || !user) return again(401, { login, error: WRONG });
    // Said only to whoever knows the password: a wrong one never tells that the account is disabled.
    if (isDisabled(user)) return again(403, { login, error: ACCOUNT_DISABLED });
    await d.sessions.open(c, user, 'password', null);
    return c.redirect('/app/links', 303);
  });

  routes.post(
    '/app/logout',
    screen(d, async (c, who) => {
      await d.sessions.revoke(who.user.id, who.session.id);
      // Signing out while signed in as another user signs this browser out of the admin's own session too.
      if (who.by) {
        const own = await d.sessions.named(getCookie(c, ADMIN_COOKIE));
        if (own?.userId === who.by.id) await d.sessions.revoke(own.userId, own.id);
        d.sessions.keepAdminCookie(c, null);
      }
      d.sessions.clearCookie(c);
      return c.redirect('/app/login', 303);
    }, { uncounted: true }),
  );

  if (s.config.openRegistration) {
    routes.get('/app/register', async (c) => {
      if (await d.sessions.current(c)) return c.redirect('/app', 302);
      return answerPage(c, <RegisterPage token={d.sessions.preToken(c)} />);
    });
    routes.post('/app/register', async (c) => {
      const form = await readForm(c);
      if (!fromOwnPage(c) || !isPageLoad(c) || !d.sessions.preTokenMatches(c, form.csrf)) {
        return messagePage(c, 403, 'Form expired', 'This form could not be checked. Open the registration page again.');
      }
      const values = { username: field(form, 'username'), email: field(form, 'email'), password: field(form, 'password') };
      const ip = clientIp(c, s.config.trustProxy);
      // Sign-ups share the failed-authentication budget of the address, as POST /api/register's do.
      const decision = await d.failures?.hit(clientBucket(ip));
      if (decision && !decision.allowed) {
        c.header('Retry-After', String(retryAfter(decision.reset, s.clock.now())));
        return messagePage(c, 429, 'Too many attempts', 'Too many sign-ups or failed sign-ins from your address. Try again later.');
      }
      try {
        const { user, apikey } = await registerUser(s, values);
        await d.sessions.open(c, user, 'password', null);
        return answerPage(
          c,
          <Layout title="Welcome">
            <section class="card ok">
              <h1>Welcome, {user.username}</h1>
              <p>Your account is ready. This is your API key, shown only this once: keep it to use the API.</p>
              <p>
                <code class="short">{apikey}</code>
              </p>
              <p>
                <a class="btn" href="/app/links">
                  Go to your links
                </a>
              </p>
            </section>
          </Layout>,
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const { password: _p, ...kept } = values;
        const errorField = fieldOfMessage(err.message, ['username', 'email', 'password']);
        return answerPage(c, <RegisterPage token={d.sessions.preToken(c)} values={kept} error={err.message} {...(errorField ? { errorField } : {})} />, 400);
      }
    });
  }
  return routes;
}
