import { Hono } from 'hono';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import type { UserRecord } from '../../resources/define.ts';
import { NOT_SELF_DELETE, users } from '../../resources/users.ts';
import { MAX_REASON, NOT_SELF, setUserDisabled } from '../../resources/user-disable.ts';
import { isDisabled } from '../../auth/disabled-users.ts';
import { createBody, hookContext, listQueryOf, removeRecord } from '../../routes/crud.ts';
import { fieldOfMessage } from '../sign-in.tsx';
import { audit, chromeOf, field, ownRecord, screen } from '../guard.ts';
import type { Dashboard, Form, Screen } from '../guard.ts';
import { answerPage, Csrf, FormError, Layout, messagePage } from '../layout.tsx';
import { askFirst, AskFirstForm, ConfirmedField } from '../ask-first.tsx';
import { Field } from '../links/form.tsx';
import { SESSION_COOKIE, ADMIN_COOKIE } from '../sessions.ts';
import type { SignedIn } from '../sessions.ts';
import { ShownOnce } from '../shown-once.ts';

/** Users a page of the list shows. */
const PER_PAGE = 25;
const USERS_PATH = '/app/admin/users';

interface UsersState {
  values?: Form;
  errors?: Record<string, string>;
  made?: { username: string; apikey: string };
  done?: string;
}

const DONE: Record<string, string> = {
  made: 'The user was made. Their API key was shown once, on the page that followed the form, and is not shown again: if it was not copied, rotate it (POST /api/user/:id/rotate-key).',
  deleted: 'The user was deleted, with everything they had.',
  back: 'You are back in your own account.',
  disabled: 'The user was disabled: their keys, sessions and links stopped.',
  enabled: 'The user was enabled again.',
};

/** Whether a session may use the admin screens: the admin's own session (not "sign in as"), opened without a key narrower than `*`. */
const isAdmin = (who: SignedIn): boolean => who.user.admin && who.by === null && (who.key === null || who.key.scopes.includes('*'));

/**
 * `/app/admin/users`, for the admin only (anyone else gets the 404 of a page that does not exist):
 * the users (search, pages), a new one (its API key shown once), disable and enable, delete, and "sign in as", which
 * opens a session as that user (audited under the admin's name) and keeps the admin's own to go back to.
 */
export function adminScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const once = new ShownOnce(s);
  const adminOnly = (handler: Screen) =>
    screen(d, async (c, who, form, files) => (isAdmin(who) ? handler(c, who, form, files) : messagePage(c, 404, 'Not found', 'There is no such page.', chromeOf(who))));
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such user.', chromeOf(who, '/app/admin/users'));

  const page = async (c: Context<AppEnv>, who: SignedIn, state: UsersState, status: ContentfulStatusCode = 200) => {
    const q = (c.req.query('q') ?? '').trim().slice(0, 200);
    const at = Math.max(1, Math.min(10_000, Number.parseInt(c.req.query('page') ?? '1', 10) || 1));
    const found = await s.store.find<UserRecord>('users', { ...listQueryOf(users, hookContext(s, c), { q }), sort: { field: 'id', direction: 'asc' }, offset: (at - 1) * PER_PAGE, limit: PER_PAGE });
    const pages = Math.max(1, Math.ceil(found.total / PER_PAGE));
    const href = (p: number) => `/app/admin/users?${new URLSearchParams({ ...(q ? { q } : {}), page: String(p) }).toString()}`;
    const errors = state.errors ?? {};
    const typed = (name: string) => (state.values ? field(state.values, name) : '');
    return answerPage(
      c,
      <Layout title="Users" chrome={chromeOf(who, '/app/admin/users')}>
        {state.made && (
          <section class="card ok" role="status">
            <h2>The user {state.made.username} was made</h2>
            <p>Their API key, shown this once:</p>
            <code class="secret">{state.made.apikey}</code>
          </section>
        )}
        {state.done && (
          <p class="card ok" role="status">
            {state.done}
          </p>
        )}
        <section class="card" aria-labelledby="users-h">
          <h1 id="users-h">Users</h1>
          <form method="get" action="/app/admin/users" role="search" class="toolbar">
            <label>
              Search by username or email
              <input type="search" name="q" value={q} />
            </label>
            <button type="submit" class="secondary">
              Search
            </button>
          </form>
          <p class="muted">
            {found.total} {found.total === 1 ? 'user' : 'users'}; page {at} of {pages}.
          </p>
          <div class="scroll">
            <table class="links">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Registered</th>
                  <th scope="col">
                    <span class="sr">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {found.items.map((u) => (
                  <tr>
                    <td>
                      {u.username}
                      {u.admin && <strong> (admin)</strong>}
                      <br />
                      <span class="muted">{u.email}</span>
                      {u.disabled && (
                        <>
                          <br />
                          <strong>Disabled</strong> since {u.disabledAt}
                          {u.disabledReason ? `: ${u.disabledReason}` : ''}
                        </>
                      )}
                    </td>
                    <td>
                      {u.status}
                      {u.expires ? `, until ${u.expires}` : ''}
                    </td>
                    <td>{u.registered}</td>
                    <td>
                      {u.id !== who.user.id && (
                        <div class="actions">
                          {!u.disabled && (
                            <form method="post" action={`/app/admin/users/${u.id}/sign-in-as`}>
                              <Csrf token={who.csrf} />
                              <button type="submit" class="secondary">
                                Sign in as<span class="sr"> {u.username}</span>
                              </button>
                            </form>
                          )}
                          {u.disabled ? (
                            <form method="post" action={`/app/admin/users/${u.id}/enable`}>
                              <Csrf token={who.csrf} />
                              <button type="submit" class="secondary">
                                Enable<span class="sr"> {u.username}</span>
                              </button>
                            </form>
                          ) : (
                            <form method="post" action={`/app/admin/users/${u.id}/disable`} data-confirm={`Disable ${u.username}? Their keys, sessions and links stop until you enable them.`}>
                              <ConfirmedField />
                              <Csrf token={who.csrf} />
                              <label>
                                Reason<span class="sr"> for disabling {u.username}</span> (optional)
                                <input name="reason" maxlength={MAX_REASON} />
                              </label>
                              <button type="submit" class="danger">
                                Disable<span class="sr"> {u.username}</span>
                              </button>
                            </form>
                          )}
                          <AskFirstForm action={`/app/admin/users/${u.id}/delete`} question={`Delete ${u.username} with all their links, statistics and keys?`} csrf={who.csrf}>
                            Delete<span class="sr"> {u.username}</span>
                          </AskFirstForm>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pages" aria-label="Pages">
            {at > 1 && <a href={href(at - 1)}>Previous page</a>}
            {at < pages && <a href={href(at + 1)}>Next page</a>}
          </nav>
        </section>
        <section class="card" aria-labelledby="new-user-h">
          <h2 id="new-user-h">New user</h2>
          <FormError message={errors.form} />
          <form method="post" action="/app/admin/users" class="stack">
            <Csrf token={who.csrf} />
            <Field name="username" label="Username" errors={errors}>
              {(aria) => <input {...aria} name="username" value={typed('username')} required />}
            </Field>
            <Field name="email" label="Email" errors={errors}>
              {(aria) => <input {...aria} name="email" type="email" value={typed('email')} required />}
            </Field>
            <Field name="password" label="Password" errors={errors} hint="5 to 256 characters.">
              {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" required />}
            </Field>
            <div class="actions">
              <button type="submit">Make the user</button>
            </div>
          </form>
        </section>
      </Layout>,
      status,
    );
  };

  routes.get(
    '/app/admin/users',
    adminOnly(async (c, who) => {
      const made = once.take(c, who, USERS_PATH, c.req.query('made'));
      if (made?.apikey) return page(c, who, { made: { username: made.username ?? '', apikey: made.apikey } });
      return page(c, who, { done: c.req.query('made') !== undefined ? DONE.made : DONE[c.req.query('done') ?? ''] });
    }),
  );

  routes.post(
    '/app/admin/users',
    adminOnly(async (c, who, form) => {
      const body = { username: field(form, 'username'), email: field(form, 'email'), password: field(form, 'password') };
      try {
        const made = (await createBody(s, users, hookContext(s, c), body)) as { data: { id: number; username: string; apikey: string } };
        audit(d, c, who, '/app/admin/users', 'users', made.data.id, 200);
        // The key goes to the page the redirect opens, once (shown-once.ts): a reload of it sends no form again.
        const nonce = once.hand(c, who, USERS_PATH, { username: made.data.username, apikey: made.data.apikey });
        return c.redirect(`${USERS_PATH}?made=${nonce}`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/admin/users', 'users', null, err.status);
        const { password: _never, ...kept } = form;
        return page(c, who, { values: kept, errors: { [fieldOfMessage(err.message, ['username', 'email', 'password']) ?? 'form']: err.message } }, 400);
      }
    }),
  );

  routes.post(
    '/app/admin/users/:id/delete',
    adminOnly(askFirst(() => ({ question: 'Delete this user?', detail: 'The user is deleted for good, with everything they own: links, statistics, keys.', button: 'Delete the user', back: USERS_PATH }), async (c, who) => {
      const target = await ownRecord<UserRecord>(d, users, c, who);
      if (!target) return notFound(c, who);
      if (target.id === who.user.id) return messagePage(c, 400, 'Not deleted', NOT_SELF_DELETE, chromeOf(who, '/app/admin/users'));
      await removeRecord(s, users, hookContext(s, c), target);
      audit(d, c, who, '/app/admin/users/:id/delete', 'users', target.id, 200);
      return c.redirect('/app/admin/users?done=deleted', 303);
    })),
  );

  // Disable (with an optional reason) and enable: the API's own service (user-disable.ts), audited as the API's calls are.
  for (const action of ['disable', 'enable'] as const) {
    const route = `/app/admin/users/:id/${action}`;
    routes.post(
      route,
      adminOnly(async (c, who, form, files) => {
        const done: Screen = async () => {
          const target = await ownRecord<UserRecord>(d, users, c, who);
          if (!target) return notFound(c, who);
          if (action === 'disable' && target.id === who.user.id) return messagePage(c, 400, 'Not disabled', NOT_SELF, chromeOf(who, '/app/admin/users'));
          const reason = action === 'disable' ? field(form, 'reason').trim().slice(0, MAX_REASON) : undefined;
          await setUserDisabled(s, target, who.user.id, reason);
          audit(d, c, who, route, 'users', target.id, 200);
          return c.redirect(`/app/admin/users?done=${action}d`, 303);
        };
        // Disabling stops a user's keys, sessions and links: asked first; enabling gives them back at once.
        if (action === 'enable') return done(c, who, form, files);
        return askFirst(() => ({ question: 'Disable this user?', detail: 'Their keys, sessions and links stop until you enable them.', button: 'Disable the user', back: USERS_PATH }), done)(c, who, form, files);
      }),
    );
  }

  routes.post(
    '/app/admin/users/:id/sign-in-as',
    adminOnly(async (c, who) => {
      const target = await ownRecord<UserRecord>(d, users, c, who);
      if (!target) return notFound(c, who);
      if (target.id === who.user.id) return c.redirect('/app/account', 303);
      if (isDisabled(target)) return messagePage(c, 400, 'Not signed in', `${target.username} is disabled: enable them first to sign in as them.`, chromeOf(who, '/app/admin/users'));
      // The audit line is the admin's (userId: the admin), naming the user signed in as.
      audit(d, c, who, '/app/admin/users/:id/sign-in-as', 'users', target.id, 200);
      d.sessions.keepAdminCookie(c, getCookie(c, SESSION_COOKIE) ?? null);
      await d.sessions.open(c, target, 'admin', null, who.user.id);
      return c.redirect('/app/links', 303);
    }),
  );

  // Back from "sign in as": this session ends; the admin's own, kept aside, is the browser's again.
  routes.post(
    '/app/admin/return',
    screen(d, async (c, who) => {
      if (!who.by) return messagePage(c, 404, 'Not found', 'There is no such page.', chromeOf(who));
      const kept = getCookie(c, ADMIN_COOKIE);
      const own = await d.sessions.named(kept);
      await d.sessions.revoke(who.user.id, who.session.id);
      d.sessions.keepAdminCookie(c, null);
      d.s.audit.record({ userId: who.by.id, keyId: null, method: 'POST', route: '/app/admin/return', resource: 'users', resourceId: who.user.id, status: 200, ip: clientIp(c, d.s.config.trustProxy) });
      if (!kept || own?.userId !== who.by.id) {
        d.sessions.clearCookie(c);
        return c.redirect('/app/login', 303);
      }
      d.sessions.restoreCookie(c, kept);
      return c.redirect('/app/admin/users?done=back', 303);
    }, { uncounted: true }),
  );
  return routes;
}
