import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../../http/app-env.ts';
import { pathId } from '../../http/validate.ts';
import { allows, chromeOf, lacking, screen } from '../guard.ts';
import type { Dashboard } from '../guard.ts';
import { answerPage, Csrf, Layout, messagePage } from '../layout.tsx';
import { askFirst, ConfirmedField } from '../ask-first.tsx';
import type { SignedIn } from '../sessions.ts';
import { changeProfile, DONE, ProfileCards } from './profile.tsx';
import type { ProfileState } from './profile.tsx';

const READ = 'account:read';
const WRITE = 'account:write';

const METHODS = { password: 'password', key: 'API key', link: 'sign-in link', admin: 'an admin\'s "sign in as"' } as const;

/**
 * `/app/account`: who is signed in, the plan and its end, the email and password forms (through the
 * API's account update), and every session of the account, each with its own sign-out, and "sign out everywhere".
 */
export function accountRoutes(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  const page = async (c: Context<AppEnv>, who: SignedIn, state: ProfileState, status: ContentfulStatusCode = 200) => {
      const list = await d.sessions.list(who.user.id);
      return answerPage(
        c,
        <Layout title="Account" chrome={chromeOf(who, '/app/account')}>
          <ProfileCards who={who} state={state} />
          <section class="card" aria-labelledby="sessions">
            <h2 id="sessions">Where you are signed in</h2>
            <div class="scroll">
              <table class="links">
                <thead>
                  <tr>
                    <th scope="col">Signed in</th>
                    <th scope="col">With</th>
                    <th scope="col">Browser and address</th>
                    <th scope="col">Ends</th>
                    <th scope="col">
                      <span class="sr">Sign out</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((r) => (
                    <tr>
                      <td>
                        {r.created.slice(0, 16).replace('T', ' ')} UTC{r.id === who.session.id && <strong> (this browser)</strong>}
                      </td>
                      <td>{METHODS[r.method]}</td>
                      <td>
                        {r.agent || 'unknown browser'}, {r.ip}
                      </td>
                      <td>{new Date(r.expires).toISOString().slice(0, 10)}</td>
                      <td>
                        <form method="post" action={`/app/account/sessions/${r.id}/revoke`}>
                          <Csrf token={who.csrf} />
                          <button type="submit" class="secondary">
                            Sign out<span class="sr"> the session of {r.created.slice(0, 16)}</span>
                          </button>
                        </form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <form method="post" action="/app/account/sessions/revoke-all" data-confirm="Sign out of every browser, this one included?">
              <Csrf token={who.csrf} />
              <ConfirmedField />
              <div class="actions">
                <button type="submit" class="danger">
                  Sign out everywhere
                </button>
              </div>
            </form>
          </section>
        </Layout>,
        status,
      );
  };

  routes.get(
    '/app/account',
    screen(d, async (c, who) => {
      // The account's email, plan and sessions are what GET /api/account answers: a key's scope decides, as there.
      if (!allows(who, READ)) return lacking(c, who, READ);
      const done = c.req.query('done');
      return page(c, who, done && done in DONE ? { done: DONE[done as keyof typeof DONE] } : {});
    }),
  );

  for (const what of ['email', 'password'] as const) {
    routes.post(
      `/app/account/${what}`,
      screen(d, async (c, who, form) => {
        const outcome = await changeProfile(d, c, who, form, what);
        return outcome.ok ? c.redirect(`/app/account?done=${outcome.done}`, 303) : page(c, who, outcome.state, outcome.status);
      }),
    );
  }

  routes.post(
    '/app/account/sessions/revoke-all',
    screen(
      d,
      askFirst(
        () => ({ question: 'Sign out everywhere?', detail: 'Every browser signed in to this account is signed out, this one included.', button: 'Sign out everywhere', back: '/app/account' }),
        async (c, who) => {
          if (!allows(who, WRITE)) return lacking(c, who, WRITE);
          await d.sessions.revokeAll(who.user.id);
          d.sessions.clearCookie(c);
          return c.redirect('/app/login', 303);
        },
      ),
    ),
  );

  routes.post(
    '/app/account/sessions/:id/revoke',
    screen(d, async (c, who) => {
      const id = pathId(c.req.param('id'));
      // Another user's session answers as a missing one does.
      // Signing this session out is anyone's; another one is the account's to end.
      if (id !== who.session.id && !allows(who, WRITE)) return lacking(c, who, WRITE);
      if (id === null || !(await d.sessions.revoke(who.user.id, id))) return messagePage(c, 404, 'Not found', 'There is no such session.', chromeOf(who));
      if (id === who.session.id) {
        d.sessions.clearCookie(c);
        return c.redirect('/app/login', 303);
      }
      return c.redirect('/app/account', 303);
    }),
  );
  return routes;
}
