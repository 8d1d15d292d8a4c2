import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { createBody, entriesOf, hookContext, listQueryOf, updateRecord } from '../../routes/crud.ts';
import type { StoredRecord } from '../../store/store.ts';
import { allows, audit, chromeOf, lacking, ownRecord, screen } from '../guard.ts';
import { deleteScreen } from '../removal.ts';
import type { Dashboard, Form } from '../guard.ts';
import { answerPage, Csrf, Layout, messagePage } from '../layout.tsx';
import { CONFIRMED } from '../ask-first.tsx';
import type { Choice } from '../links/options.ts';
import { labelOf, ResourceForm } from './form.tsx';
import { bodyOf, errorsOf, inputsOf, valuesOf } from './inputs.ts';
import type { Input } from './inputs.ts';
import { listAsk, PER_PAGE, ResourceList, Value } from './list.tsx';
import { columnsOf, scopesOf, titleOf } from './screen.ts';
import type { ResourceScreen, ScreenContext } from './screen.ts';
import type { SignedIn } from '../sessions.ts';

// A reference field's select lists at most this many of the user's records, newest first.
const MAX_CHOICES = 500;

// What the page says after a write that went through.
const DONE: Record<string, string> = { created: 'was created.', saved: 'was saved.', deleted: 'was deleted.', 'item-added': 'holds one more item.' };

/**
 * The screens of one row of the resource table, built from the row: the list (search, pages), a
 * new record's form, the record's page with its edit form, and delete (a confirmation page, then
 * the post). Every read and write goes through the functions the API's generic routes call
 * (crud.ts), so validation, tenancy, references, limits, webhooks and events hold as they do
 * there; each write is audited; reads need the row's `<scope>:read`, writes its `<scope>:write`.
 */
export function resourceScreens(d: Dashboard, spec: ResourceScreen): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const { row } = spec;
  const base = `/app/${spec.path}`;
  const scope = scopesOf(row);
  const creates = row.create !== undefined && row.paths.create !== undefined;
  const updates = row.update !== undefined && row.paths.update !== undefined;
  const removes = row.paths.remove !== undefined;
  const createInputs = creates ? inputsOf(row, 'create') : [];
  const updateInputs = updates ? inputsOf(row, 'update') : [];
  const chrome = (who: SignedIn) => chromeOf(who, base);
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', `There is no such ${spec.one} among yours.`, chrome(who));
  // A screen of one record: the scope it needs, then the user's record the path names (404 for any other).
  const onRecord = (need: string, handler: (c: Context<AppEnv>, who: SignedIn, record: StoredRecord, form: Form) => Promise<Response>) =>
    screen(d, async (c, who, form) => {
      if (!allows(who, need)) return lacking(c, who, need);
      const record = await ownRecord(d, row, c, who);
      return record ? handler(c, who, record, form) : notFound(c, who);
    });

  // The user's records each reference field may name, for its select.
  const choicesOf = async (inputs: readonly Input[], userId: number): Promise<Record<string, Choice[]>> => {
    const out: Record<string, Choice[]> = {};
    for (const i of inputs) {
      if (!i.collection) continue;
      const { items } = await s.store.find(i.collection, { owner: userId, sort: { field: 'id', direction: 'desc' }, limit: MAX_CHOICES });
      out[i.name] = items.map((r) => ({ value: String(r.id), label: typeof r.name === 'string' && r.name ? r.name : `${i.collection} ${r.id}` }));
    }
    return out;
  };

  const doneNote = (c: Context) => {
    const done = c.req.query('done');
    return done && DONE[done] ? (
      <p class="card ok" role="status">
        The {spec.one} {DONE[done]}
      </p>
    ) : null;
  };

  const newPage = async (c: Context<AppEnv>, who: SignedIn, values: Form, errors: Record<string, string> = {}, status: ContentfulStatusCode = 200) =>
    answerPage(
      c,
      <Layout title={`New ${spec.one}`} chrome={chrome(who)}>
        <p class="crumbs">
          <a href={base}>{spec.title}</a> / new
        </p>
        {spec.beforeNew && (await spec.beforeNew({ d, c, who }))}
        <section class="card">
          <h1>New {spec.one}</h1>
          <ResourceForm screen={spec} action={base} csrf={who.csrf} inputs={createInputs} values={values} errors={errors} choices={await choicesOf(createInputs, who.user.id)} submit={`Create the ${spec.one}`} creating />
        </section>
      </Layout>,
      status,
    );

  const recordPage = async (c: Context<AppEnv>, who: SignedIn, record: StoredRecord, values?: Form, errors: Record<string, string> = {}, status: ContentfulStatusCode = 200) => {
    const x: ScreenContext = { d, c, who };
    const title = titleOf(spec, record);
    const canWrite = allows(who, scope.write);
    const [entry] = await entriesOf(row, [record], hookContext(s, c));
    return answerPage(
      c,
      <Layout title={title} chrome={chrome(who)}>
        <p class="crumbs">
          <a href={base}>{spec.title}</a> / {title}
        </p>
        {doneNote(c)}
        <section class="card">
          <h1>{title}</h1>
          <dl class="facts">
            {(spec.facts ?? columnsOf(spec)).map((k) => (
              <div>
                <dt>{labelOf(spec, k)}</dt>
                <dd>
                  <Value value={entry?.[k]} />
                </dd>
              </div>
            ))}
          </dl>
          {canWrite && removes && (
            <div class="actions">
              <a class="btn danger" href={`${base}/${record.id}/delete`}>
                Delete…
              </a>
            </div>
          )}
        </section>
        {spec.details && (await spec.details(x, record))}
        {canWrite && updates && (
          <section class="card" aria-labelledby="edit-h">
            <h2 id="edit-h">Edit</h2>
            <ResourceForm screen={spec} action={`${base}/${record.id}/edit`} csrf={who.csrf} inputs={updateInputs} values={values ?? valuesOf(updateInputs, record)} errors={errors} choices={await choicesOf(updateInputs, who.user.id)} submit="Save" creating={false} />
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    base,
    screen(d, async (c, who) => {
      if (!allows(who, scope.read)) return lacking(c, who, scope.read);
      const ctx = hookContext(s, c);
      const ask = listAsk(c.req.query());
      const found = await s.store.find(row.collection, { ...listQueryOf(row, ctx, { q: ask.q }), offset: (ask.page - 1) * PER_PAGE, limit: PER_PAGE });
      const entries = await entriesOf(row, found.items, ctx);
      return answerPage(
        c,
        <Layout title={spec.title} chrome={chrome(who)}>
          <div class="head">
            <h1>{spec.title}</h1>
            {creates && allows(who, scope.write) && (
              <a class="btn" href={`${base}/new`}>
                New {spec.one}
              </a>
            )}
          </div>
          {doneNote(c)}
          <section class="card">
            <ResourceList screen={spec} ask={ask} total={found.total} entries={entries} titles={found.items.map((r) => titleOf(spec, r))} />
          </section>
        </Layout>,
      );
    }),
  );

  if (creates) {
    routes.get(
      `${base}/new`,
      screen(d, async (c, who) => (allows(who, scope.write) ? newPage(c, who, valuesOf(createInputs)) : lacking(c, who, scope.write))),
    );
    routes.post(
      base,
      screen(d, async (c, who, form) => {
        if (!allows(who, scope.write)) return lacking(c, who, scope.write);
        try {
          const made = await createBody(s, row, hookContext(s, c), bodyOf(createInputs, form, 'create'));
          audit(d, c, who, base, row.collection, Number(made.id), 200);
          return c.redirect(`${base}/${String(made.id)}?done=created`, 303);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, base, row.collection, null, err.status);
          return newPage(c, who, form, errorsOf(err, createInputs.map((i) => i.name)), 400);
        }
      }),
    );
  }

  routes.get(
    `${base}/:id`,
    onRecord(scope.read, (c, who, record) => recordPage(c, who, record)),
  );

  if (updates) {
    routes.post(
      `${base}/:id/edit`,
      onRecord(scope.write, async (c, who, record, form) => {
        const route = `${base}/:id/edit`;
        try {
          await updateRecord(s, row, hookContext(s, c), record, bodyOf(updateInputs, form, 'update'));
          audit(d, c, who, route, row.collection, record.id, 200);
          return c.redirect(`${base}/${record.id}?done=saved`, 303);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, route, row.collection, record.id, err.status);
          return recordPage(c, who, record, form, errorsOf(err, updateInputs.map((i) => i.name)), 400);
        }
      }),
    );
  }

  if (removes) {
    routes.get(
      `${base}/:id/delete`,
      onRecord(scope.write, async (c, who, record) => {
        const title = titleOf(spec, record);
        return answerPage(
          c,
          <Layout title={`Delete ${title}`} chrome={chrome(who)}>
            <section class="card alert">
              <h1>Delete {title}?</h1>
              <p>The {spec.one} is deleted for good; what uses it stops using it.</p>
              <form method="post" action={`${base}/${record.id}/delete`} class="actions">
                <Csrf token={who.csrf} />
                <input type="hidden" name={CONFIRMED} value="yes" />
                <button type="submit" class="danger">
                  Delete the {spec.one}
                </button>
                <a href={`${base}/${record.id}`}>Cancel</a>
              </form>
            </section>
          </Layout>,
        );
      }),
    );
    routes.post(`${base}/:id/delete`, deleteScreen(d, row, base, scope.write, notFound, { noun: spec.one }));
  }
  spec.routes?.(d, routes);
  return routes;
}
