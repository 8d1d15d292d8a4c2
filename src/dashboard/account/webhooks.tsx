import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { WEBHOOK_EVENTS, webhooks } from '../../resources/webhooks.ts';
import type { Webhook } from '../../resources/webhooks.ts';
import { createBody, hookContext, listQueryOf, removeRecord } from '../../routes/crud.ts';
import { sendTestEvent } from '../../routes/link-api/webhooks.ts';
import { allows, audit, chromeOf, field, fields, lacking, ownRecord, screen } from '../guard.ts';
import type { Dashboard, Form } from '../guard.ts';
import { answerPage, Csrf, FormError, Layout, messagePage } from '../layout.tsx';
import { AskFirstForm } from '../ask-first.tsx';
import { deleteScreen } from '../removal.ts';
import { Field } from '../links/form.tsx';
import type { SignedIn } from '../sessions.ts';
import { ShownOnce } from '../shown-once.ts';

const READ = 'webhooks:read';
const WRITE = 'webhooks:write';

/** What the new-webhook form shows: what was typed, each field's message, and the secret just made (shown this once). */
interface HookFormState {
  values?: Form;
  errors?: Record<string, string>;
  made?: { url: string; secret: string };
  done?: string;
}

const HOOKS_PATH = '/app/account/webhooks';
const DONE: Record<string, string> = { made: 'The webhook was made. Its secret was shown once, on the page that followed its form, and is not shown again: if you did not copy it, delete the webhook and make another.', deleted: 'The webhook was deleted.', tested: 'The test event is on its way: its outcome is in the delivery log (GET /api/webhooks/:id/deliveries).' };

/** The form field a webhook error is about. */
const hookErrorField = (err: ApiError): string => (/^Invalid events/.test(err.message) ? 'events' : /url|address|host/i.test(err.message) ? 'url' : 'form');

/**
 * `/app/account/webhooks`: the user's webhooks (URL, events, whether active), a new one (its signing
 * secret shown once, on the answer to its form), a test event, and deleting one, through the
 * functions `/api/webhooks` uses (the table's create and delete, the test route's sendTestEvent).
 */
export function webhookScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const once = new ShownOnce(s);
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such webhook among yours.', chromeOf(who, '/app/account'));

  const page = async (c: Context<AppEnv>, who: SignedIn, state: HookFormState, status: ContentfulStatusCode = 200) => {
    const ctx = hookContext(s, c);
    // A session whose key may make webhooks but not read them sees the secret it made, not the list.
    const canRead = allows(who, READ);
    const hooks = canRead ? (await s.store.find<Webhook>(webhooks.collection, { ...listQueryOf(webhooks, ctx, {}), sort: { field: 'id', direction: 'asc' } })).items : [];
    const errors = state.errors ?? {};
    const picked = new Set(state.values ? fields(state.values, 'events') : []);
    const canWrite = allows(who, WRITE);
    return answerPage(
      c,
      <Layout title="Webhooks" chrome={chromeOf(who, '/app/account')}>
        <p class="crumbs">
          <a href="/app/account">Account</a> / Webhooks
        </p>
        {state.made && (
          <section class="card ok" role="status" aria-labelledby="made-h">
            <h2 id="made-h">The webhook to {state.made.url} was made</h2>
            <p>Its signing secret, shown this once: keep it where your receiver checks signatures.</p>
            <p>
              <code class="secret">{state.made.secret}</code>
            </p>
            <button type="button" class="secondary" data-copy={state.made.secret} hidden>
              Copy the secret
            </button>
          </section>
        )}
        {state.done && (
          <p class="card ok" role="status">
            {state.done}
          </p>
        )}
        {canRead && (
          <section class="card" aria-labelledby="hooks-h">
            <h1 id="hooks-h">Webhooks</h1>
            <div class="scroll">
              <table class="links">
                <thead>
                  <tr>
                    <th scope="col">Sends to</th>
                    <th scope="col">Events</th>
                    <th scope="col">State</th>
                    <th scope="col">
                      <span class="sr">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {hooks.length === 0 && (
                    <tr>
                      <td colspan={4}>No webhooks yet.</td>
                    </tr>
                  )}
                  {hooks.map((h) => (
                    <tr>
                      <td class="short">{h.url}</td>
                      <td>{h.events.join(', ')}</td>
                      <td>{h.active !== false ? 'active' : `off: ${h.disabledReason ?? ''}`}</td>
                      <td>
                        {canWrite && (
                          <div class="actions">
                            <form method="post" action={`/app/account/webhooks/${h.id}/test`}>
                              <Csrf token={who.csrf} />
                              <button type="submit" class="secondary">
                                Send a test event<span class="sr"> to {h.url}</span>
                              </button>
                            </form>
                            <AskFirstForm action={`/app/account/webhooks/${h.id}/delete`} question="Delete this webhook and its delivery log?" csrf={who.csrf}>
                              Delete<span class="sr"> the webhook to {h.url}</span>
                            </AskFirstForm>
                          </div>
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
          <section class="card" aria-labelledby="new-hook-h">
            <h2 id="new-hook-h">New webhook</h2>
            <FormError message={errors.form} />
            <form method="post" action="/app/account/webhooks">
              <Csrf token={who.csrf} />
              <Field name="url" label="Sends to (URL)" errors={errors}>
                {(aria) => <input {...aria} name="url" type="url" placeholder="https://" value={state.values ? field(state.values, 'url') : ''} required />}
              </Field>
              <fieldset aria-describedby={errors.events ? 'events-error' : undefined}>
                <legend>Events</legend>
                <div class="checks">
                  {WEBHOOK_EVENTS.map((type) => (
                    <label>
                      <input type="checkbox" name="events" value={type} checked={picked.has(type)} /> {type === '*' ? 'every event (*)' : type}
                    </label>
                  ))}
                </div>
                {errors.events && (
                  <p class="err" id="events-error">
                    {errors.events}
                  </p>
                )}
              </fieldset>
              <div class="actions">
                <button type="submit">Make the webhook</button>
              </div>
            </form>
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    '/app/account/webhooks',
    screen(d, async (c, who) => {
      const made = once.take(c, who, HOOKS_PATH, c.req.query('made'));
      if (made?.secret) return page(c, who, { made: { url: made.url ?? '', secret: made.secret } });
      if (!allows(who, READ)) return lacking(c, who, READ);
      return page(c, who, { done: c.req.query('made') !== undefined ? DONE.made : DONE[c.req.query('done') ?? ''] });
    }),
  );

  routes.post(
    '/app/account/webhooks',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      try {
        const made = await createBody(s, webhooks, hookContext(s, c), { url: field(form, 'url'), events: fields(form, 'events') });
        audit(d, c, who, '/app/account/webhooks', webhooks.collection, Number(made.id), 200);
        // The secret goes to the page the redirect opens, once (shown-once.ts): a reload of it sends no form again.
        const nonce = once.hand(c, who, HOOKS_PATH, { url: field(form, 'url').trim(), secret: String(made.secret) });
        return c.redirect(`${HOOKS_PATH}?made=${nonce}`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/account/webhooks', webhooks.collection, null, err.status);
        return page(c, who, { values: form, errors: { [hookErrorField(err)]: err.message } }, 400);
      }
    }),
  );

  routes.post(
    '/app/account/webhooks/:id/test',
    screen(d, async (c, who) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const hook = await ownRecord<Webhook>(d, webhooks, c, who);
      if (!hook) return notFound(c, who);
      await sendTestEvent(s, hook);
      audit(d, c, who, '/app/account/webhooks/:id/test', webhooks.collection, hook.id, 202);
      return c.redirect('/app/account/webhooks?done=tested', 303);
    }),
  );

  routes.post(
    '/app/account/webhooks/:id/delete',
    deleteScreen(d, webhooks, HOOKS_PATH, WRITE, notFound, { noun: 'webhook', detail: 'It is deleted for good, with its delivery log; its events stop.', listOnly: true }),
  );
  return routes;
}
