import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SCOPES } from '../../auth/scopes.ts';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { apiKeys } from '../../resources/api-keys.ts';
import { createBody, entriesOf, hookContext, listQueryOf, removeRecord } from '../../routes/crud.ts';
import { allows, audit, chromeOf, field, fields, lacking, ownRecord, screen } from '../guard.ts';
import type { Dashboard, Form } from '../guard.ts';
import { answerPage, Csrf, FormError, Layout, messagePage } from '../layout.tsx';
import { askFirst, AskFirstForm } from '../ask-first.tsx';
import { Field } from '../links/form.tsx';
import type { SignedIn } from '../sessions.ts';
import { ShownOnce } from '../shown-once.ts';

const READ = 'keys:read';
const WRITE = 'keys:write';
/** Keys listed on the page at most (newest first). */
const LISTED = 200;
const KEYS_PATH = '/app/account/keys';
const NOT_SHOWN_AGAIN = 'The key was made. It was shown once, on the page that followed its form, and is not shown again: if you did not copy it, revoke it and make another.';

interface KeyEntry {
  id: number;
  name: string;
  scopes: string[];
  expires: string | null;
  ips: string[];
  hint: string;
  date: string;
  last_used: string | null;
}

/** What the new-key form shows: what was typed, each field's message, and the key just made (shown this once). */
interface KeyFormState {
  values?: Form;
  errors?: Record<string, string>;
  made?: { name: string; apikey: string };
  done?: string;
}

/** The form field an API key error is about. */
function keyErrorField(err: ApiError): string {
  if (/^Invalid scopes|scope /.test(err.message)) return 'scopes';
  if (/^Invalid ips|addresses/.test(err.message)) return 'ips';
  if (/^Key name|^Missing required parameter: name/.test(err.message)) return 'name';
  if (/^Dates|expir/i.test(err.message)) return 'expires';
  return 'form';
}

/** The API body of the new-key form: the names the API takes, an expiry from the browser's date-time box, one address or range a line. */
function keyBody(form: Form): Record<string, unknown> {
  const body: Record<string, unknown> = { name: field(form, 'name'), scopes: fields(form, 'scopes') };
  const expires = field(form, 'expires');
  if (expires !== '') body.expires = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(expires) ? `${expires.replace('T', ' ')}:00` : expires;
  const ips = field(form, 'ips').split(/[\s,]+/).filter(Boolean);
  if (ips.length > 0) body.ips = ips;
  return body;
}

/**
 * `/app/account/keys`: the user's API keys (scopes, expiry, addresses, last use), a new one (shown
 * once, on the answer to its form, never again) and revoking one, through the functions `/api/keys` uses.
 */
export function keyScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const once = new ShownOnce(s);

  const page = async (c: Context<AppEnv>, who: SignedIn, state: KeyFormState, status: ContentfulStatusCode = 200) => {
    const ctx = hookContext(s, c);
    // A session whose key may make keys but not read them sees the key it made, not the list.
    const canRead = allows(who, READ);
    const found = canRead ? await s.store.find(apiKeys.collection, { ...listQueryOf(apiKeys, ctx, {}), sort: { field: 'id', direction: 'desc' }, limit: LISTED }) : { items: [] };
    const keys = (await entriesOf(apiKeys, found.items, ctx)) as unknown as KeyEntry[];
    const errors = state.errors ?? {};
    const picked = new Set(state.values ? fields(state.values, 'scopes') : []);
    const canWrite = allows(who, WRITE);
    return answerPage(
      c,
      <Layout title="API keys" chrome={chromeOf(who, '/app/account')}>
        <p class="crumbs">
          <a href="/app/account">Account</a> / API keys
        </p>
        {state.made && (
          <section class="card ok" role="status" aria-labelledby="made-h">
            <h2 id="made-h">The key {state.made.name} was made</h2>
            <p>Copy it now: it is shown this once, and only its hash is kept.</p>
            <p>
              <code class="secret">{state.made.apikey}</code>
            </p>
            <button type="button" class="secondary" data-copy={state.made.apikey} hidden>
              Copy the key
            </button>
          </section>
        )}
        {state.done && (
          <p class="card ok" role="status">
            {state.done}
          </p>
        )}
        {canRead && (
          <section class="card" aria-labelledby="keys-h">
            <h1 id="keys-h">API keys</h1>
            <p class="muted">Besides the account key, each of these keys can do what its scopes allow, until it expires, from the addresses it lists.</p>
            <div class="scroll">
              <table class="links">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Ends</th>
                    <th scope="col">Addresses</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span class="sr">Revoke</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {keys.length === 0 && (
                    <tr>
                      <td colspan={6}>No keys yet.</td>
                    </tr>
                  )}
                  {keys.map((k) => (
                    <tr>
                      <td>
                        {k.name} <span class="muted">{k.hint}</span>
                      </td>
                      <td>{k.scopes.join(', ')}</td>
                      <td>{k.expires ?? 'never'}</td>
                      <td>{k.ips.length ? k.ips.join(', ') : 'any'}</td>
                      <td>{k.last_used ?? 'never'}</td>
                      <td>
                        {canWrite && (
                          <AskFirstForm action={`/app/account/keys/${k.id}/revoke`} question={`Revoke the key ${k.name}? What uses it stops working.`} csrf={who.csrf}>
                            Revoke<span class="sr"> {k.name}</span>
                          </AskFirstForm>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        )}
        {canWrite && (
          <section class="card" aria-labelledby="new-key-h">
            <h2 id="new-key-h">New API key</h2>
            <FormError message={errors.form} />
            <form method="post" action="/app/account/keys">
              <Csrf token={who.csrf} />
              <Field name="name" label="Name" errors={errors}>
                {(aria) => <input {...aria} name="name" value={state.values ? field(state.values, 'name') : ''} maxlength={100} required />}
              </Field>
              <fieldset aria-describedby={errors.scopes ? 'scopes-error' : undefined}>
                <legend>Scopes</legend>
                <div class="checks">
                  {SCOPES.map((scope) => (
                    <label>
                      <input type="checkbox" name="scopes" value={scope} checked={picked.has(scope)} /> {scope}
                    </label>
                  ))}
                </div>
                {errors.scopes && (
                  <p class="err" id="scopes-error">
                    {errors.scopes}
                  </p>
                )}
              </fieldset>
              <Field name="expires" label="Expires (UTC, optional)" errors={errors}>
                {(aria) => <input {...aria} name="expires" type="datetime-local" value={state.values ? field(state.values, 'expires') : ''} />}
              </Field>
              <Field name="ips" label="Allowed addresses (optional)" errors={errors} hint="IP addresses or CIDR ranges, one a line; empty: any address.">
                {(aria) => <textarea {...aria} name="ips" rows={3}>{state.values ? field(state.values, 'ips') : ''}</textarea>}
              </Field>
              <div class="actions">
                <button type="submit">Make the key</button>
              </div>
            </form>
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    '/app/account/keys',
    screen(d, async (c, who) => {
      const made = once.take(c, who, KEYS_PATH, c.req.query('made'));
      if (made?.apikey) return page(c, who, { made: { name: made.name ?? '', apikey: made.apikey } });
      if (!allows(who, READ)) return lacking(c, who, READ);
      if (c.req.query('made') !== undefined) return page(c, who, { done: NOT_SHOWN_AGAIN });
      return page(c, who, c.req.query('done') === 'revoked' ? { done: 'The key was revoked.' } : {});
    }),
  );

  routes.post(
    '/app/account/keys',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      try {
        const made = await createBody(s, apiKeys, hookContext(s, c), keyBody(form));
        audit(d, c, who, '/app/account/keys', apiKeys.collection, Number(made.id), 200);
        // The key goes to the page the redirect opens, once (shown-once.ts): a reload of it sends no form again.
        const nonce = once.hand(c, who, KEYS_PATH, { name: field(form, 'name').trim(), apikey: String(made.apikey) });
        return c.redirect(`${KEYS_PATH}?made=${nonce}`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/account/keys', apiKeys.collection, null, err.status);
        return page(c, who, { values: form, errors: { [keyErrorField(err)]: err.message } }, 400);
      }
    }),
  );

  routes.post(
    '/app/account/keys/:id/revoke',
    screen(d, askFirst(() => ({ question: 'Revoke this key?', detail: 'What uses it stops working, for good.', button: 'Revoke the key', back: KEYS_PATH }), async (c, who) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const ctx = hookContext(s, c);
      const key = await ownRecord(d, apiKeys, c, who);
      if (!key) return messagePage(c, 404, 'Not found', 'There is no such key among yours.', chromeOf(who, '/app/account'));
      try {
        await removeRecord(s, apiKeys, ctx, key);
      } catch (err) {
        // A narrow session's key revoking a wider one (api-keys.ts): the API's message, on a page.
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/account/keys/:id/revoke', apiKeys.collection, key.id, err.status);
        return messagePage(c, err.status === 403 ? 403 : 400, 'Not revoked', err.message, chromeOf(who, '/app/account'));
      }
      audit(d, c, who, '/app/account/keys/:id/revoke', apiKeys.collection, key.id, 200);
      return c.redirect('/app/account/keys?done=revoked', 303);
    })),
  );
  return routes;
}
