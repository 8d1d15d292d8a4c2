import { Hono } from 'hono';
import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { bios, bioUrl } from '../../resources/bios.ts';
import type { Bio } from '../../resources/bios.ts';
import { createBody, hookContext, listQueryOf, updateRecord } from '../../routes/crud.ts';
import { allows, audit, chromeOf, lacking, ownRecord, screen } from '../guard.ts';
import { deleteScreen } from '../removal.ts';
import type { Dashboard } from '../guard.ts';
import { answerPage, Layout, messagePage } from '../layout.tsx';
import { AskFirstForm } from '../ask-first.tsx';
import { ListSearch, listPage, PAGE_SIZE, Pages } from '../pages.tsx';
import type { SignedIn } from '../sessions.ts';
import { BioForm, bodyOfValues, errorsOfBio, valuesOfBio, valuesOfForm } from './form.tsx';
import type { BioFormValues } from './form.tsx';

const READ = 'bios:read';
const WRITE = 'bios:write';
const HOME = '/app/bios';

/**
 * `/app/bios`: the user's bio pages with their public addresses (/u/<alias>), a new one, edit (its
 * links as rows, empty ones to fill), delete: through the functions the API's /api/bio routes call
 * (crud.ts), so its rules (the alias one namespace, 50 links at most) hold; each write audited.
 */
export function bioScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such bio page among yours.', chromeOf(who, HOME));
  const find = (c: Context, who: SignedIn) => ownRecord<Bio>(d, bios, c, who);

  const formPage = (c: Context<AppEnv>, who: SignedIn, props: { values: BioFormValues; errors?: Record<string, string>; bio?: Bio }, status: 200 | 400 = 200) => {
    const { bio } = props;
    const title = bio ? `Edit ${bio.name}` : 'New bio page';
    const done = c.req.query('done');
    return answerPage(
      c,
      <Layout title={title} chrome={chromeOf(who, HOME)}>
        <p class="crumbs">
          <a href={HOME}>Bio pages</a>
          {bio && ` / ${bio.name}`}
        </p>
        {done && (
          <p class="card ok" role="status">
            {done === 'created' ? 'The bio page was created.' : 'The bio page was saved.'}
          </p>
        )}
        <section class="card">
          <h1>{title}</h1>
          {bio && (
            <p>
              Its public page:{' '}
              <a class="short" href={bioUrl(s.config, bio)}>
                {bioUrl(s.config, bio)}
              </a>
            </p>
          )}
          <BioForm action={bio ? `${HOME}/${bio.id}/edit` : HOME} csrf={who.csrf} values={props.values} errors={props.errors ?? {}} editing={bio !== undefined} />
        </section>
        {bio && (
          <section class="card">
            <AskFirstForm action={`${HOME}/${bio.id}/delete`} question="Delete this bio page?" csrf={who.csrf}>
              Delete the bio page
            </AskFirstForm>
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    HOME,
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const { q, page } = listPage(c.req.query());
      const found = await s.store.find<Bio>(bios.collection, { ...listQueryOf(bios, hookContext(s, c), { q }), sort: { field: 'id', direction: 'desc' }, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
      return answerPage(
        c,
        <Layout title="Bio pages" chrome={chromeOf(who, HOME)}>
          <div class="head">
            <h1>Bio pages</h1>
            {allows(who, WRITE) && (
              <a class="btn" href={`${HOME}/new`}>
                New bio page
              </a>
            )}
          </div>
          {c.req.query('done') === 'deleted' && (
            <p class="card ok" role="status">
              The bio page was deleted.
            </p>
          )}
          <section class="card">
            <ListSearch path={HOME} q={q} placeholder="Name or alias" />
            {found.items.length === 0 ? (
              <p>{q ? 'No bio page matches.' : 'You have no bio pages yet.'}</p>
            ) : (
              <ul>
                {found.items.map((b) => (
                  <li>
                    {allows(who, WRITE) ? <a href={`${HOME}/${b.id}/edit`}>{b.name}</a> : <strong>{b.name}</strong>}{' '}
                    <span class="muted">
                      {(b.links ?? []).length} links · <a href={bioUrl(s.config, b)}>/u/{b.alias}</a>
                    </span>
                  </li>
                ))}
              </ul>
            )}
            <Pages path={HOME} q={q} page={page} total={found.total} noun="bio pages" />
          </section>
        </Layout>,
      );
    }),
  );

  routes.get(
    `${HOME}/new`,
    screen(d, async (c, who) => (allows(who, WRITE) ? formPage(c, who, { values: valuesOfForm({}) }) : lacking(c, who, WRITE))),
  );

  routes.post(
    HOME,
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const values = valuesOfForm(form);
      try {
        const made = await createBody(s, bios, hookContext(s, c), bodyOfValues(values));
        audit(d, c, who, HOME, bios.collection, Number(made.id), 200);
        return c.redirect(`${HOME}/${String(made.id)}/edit?done=created`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, HOME, bios.collection, null, err.status);
        return formPage(c, who, { values, errors: errorsOfBio(err) }, 400);
      }
    }),
  );

  routes.get(
    `${HOME}/:id/edit`,
    screen(d, async (c, who) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const bio = await find(c, who);
      return bio ? formPage(c, who, { values: valuesOfBio(bio), bio }) : notFound(c, who);
    }),
  );

  routes.post(
    `${HOME}/:id/edit`,
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const bio = await find(c, who);
      if (!bio) return notFound(c, who);
      const values = valuesOfForm(form);
      try {
        await updateRecord(s, bios, hookContext(s, c), bio, bodyOfValues(values));
        audit(d, c, who, `${HOME}/:id/edit`, bios.collection, bio.id, 200);
        return c.redirect(`${HOME}/${bio.id}/edit?done=saved`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, `${HOME}/:id/edit`, bios.collection, bio.id, err.status);
        return formPage(c, who, { values, errors: errorsOfBio(err), bio }, 400);
      }
    }),
  );

  routes.post(`${HOME}/:id/delete`, deleteScreen(d, bios, HOME, WRITE, notFound, { noun: 'bio page' }));
  return routes;
}
