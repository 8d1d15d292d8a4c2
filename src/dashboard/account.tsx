import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import { pathId } from '../http/validate.ts';
import { chromeOf, screen } from './guard.ts';
import type { Dashboard } from './guard.ts';
import { answerPage, Csrf, Layout, messagePage } from './layout.tsx';

const METHODS = { password: 'password', key: 'API key', link: 'sign-in link' } as const;

/** `/app/account`: who is signed in, and every session of the account, each with its own sign-out, and "sign out everywhere". */
export function accountRoutes(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get(
    '/app/account',
    screen(d, async (c, who) => {
      const list = await d.sessions.list(who.user.id);
      return answerPage(
        c,
        <Layout title="Account" chrome={chromeOf(who, '/app/account')}>
          <section class="card">
            <h1>{who.user.username}</h1>
            <p class="muted">{who.user.email}</p>
            {who.key && <p class="muted">Signed in with the API key {who.key.name}: this session can do what that key may ({who.key.scopes.join(', ')}).</p>}
          </section>
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
              <div class="actions">
                <button type="submit" class="danger">
                  Sign out everywhere
                </button>
              </div>
            </form>
          </section>
        </Layout>,
      );
    }),
  );

  routes.post(
    '/app/account/sessions/revoke-all',
    screen(d, async (c, who) => {
      await d.sessions.revokeAll(who.user.id);
      d.sessions.clearCookie(c);
      return c.redirect('/app/login', 303);
    }),
  );

  routes.post(
    '/app/account/sessions/:id/revoke',
    screen(d, async (c, who) => {
      const id = pathId(c.req.param('id'));
      // Another user's session answers as a missing one does.
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
