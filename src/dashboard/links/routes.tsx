import { Hono } from 'hono';
import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { linkEntries, originOf } from '../../links/shape.ts';
import type { Link } from '../../links/shape.ts';
import type { HookContext } from '../../resources/define.ts';
import { links } from '../../resources/links.ts';
import { removeMany } from '../../routes/change-many.ts';
import { createBody, findVisible, hookContext, listQueryOf, removeRecord, updateRecord } from '../../routes/crud.ts';
import { assignToCampaign } from '../../routes/link-api/campaigns.ts';
import { allows, audit, chromeOf, field, fields, lacking, screen } from '../guard.ts';
import type { Dashboard } from '../guard.ts';
import type { SignedIn } from '../sessions.ts';
import { answerPage, Layout, messagePage } from '../layout.tsx';
import { QrPreview } from '../qr-image.tsx';
import { AskFirstForm, askPage, CONFIRMED } from '../ask-first.tsx';
import { bodyOfValues, errorsOf, keepsPassword, LinkForm, valuesOfForm, valuesOfLink } from './form.tsx';
import type { LinkFormValues } from './form.tsx';
import { LinkTable, ListFilters, listHref, listParams, listStoreQuery } from './list.tsx';
import type { ListedLink } from './list.tsx';
import { linkChoices } from './options.ts';
import { LinkStatsView, linkStats, PERIODS } from './stats.tsx';

const READ = 'links:read';
const WRITE = 'links:write';
const BLANK: LinkFormValues = valuesOfForm({});

/**
 * The links screens: the list (search, filters, order, pages; delete or move several), create, the
 * link's page (short URL, QR code, statistics), edit, delete, QR downloads. Every read and write goes
 * through the functions the API's link routes call (crud.ts, change-many.ts, the campaign assign), so
 * validation, tenancy, plan limits, webhooks and events hold as they do there; each write is audited.
 */
export function linkScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;

  // The link the path names, if it is the user's; another user's answers as a missing one.
  const find = async (c: Context<AppEnv>, who: SignedIn): Promise<Link | null> => {
    try {
      return await findVisible<Link>(s, links, c.req.param('id'), who.user.id);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  };
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such link among yours.', chromeOf(who, '/app/links'));
  const domainOf = async (link: Link) => (link.domainId === null ? '' : (await originOf(link, s)).replace(/^https?:\/\//, ''));

  const formPage = async (c: Context<AppEnv>, who: SignedIn, props: { values: LinkFormValues; errors?: Record<string, string>; link?: Link }, status: 200 | 400 = 200) => {
    const choices = await linkChoices(s, who.user.id);
    const editing = props.link !== undefined;
    const title = editing ? `Edit ${props.link!.alias}` : 'New link';
    return answerPage(
      c,
      <Layout title={title} chrome={chromeOf(who, '/app/links')}>
        <p class="crumbs">
          <a href="/app/links">Links</a>
          {editing && (
            <>
              {' '}
              / <a href={`/app/links/${props.link!.id}`}>{props.link!.alias}</a>
            </>
          )}
        </p>
        <section class="card">
          <h1>{title}</h1>
          <LinkForm action={editing ? `/app/links/${props.link!.id}/edit` : '/app/links'} csrf={who.csrf} values={props.values} choices={choices} errors={props.errors ?? {}} editing={editing} hasPassword={props.link?.password != null} />
        </section>
      </Layout>,
      status,
    );
  };

  routes.get(
    '/app/links',
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const ctx = hookContext(s, c);
      const p = listParams(c.req.query());
      const base = listQueryOf(links, ctx, { q: p.q, ...(p.sort === 'clicks' ? { order: 'click' } : {}) });
      const [found, choices] = await Promise.all([s.store.find<Link>('links', listStoreQuery(base, p)), linkChoices(s, who.user.id)]);
      const items = (await linkEntries(found.items, ctx)) as unknown as ListedLink[];
      const domains = (await s.store.find('domains', { owner: who.user.id, limit: 500 })).items.map((r) => ({ value: String(r.id), label: String(r.domain).replace(/^https?:\/\//, '') }));
      const done = c.req.query('done');
      return answerPage(
        c,
        <Layout title="Links" chrome={chromeOf(who, '/app/links')}>
          <div class="head">
            <h1>Links</h1>
            {allows(who, WRITE) && (
              <a class="btn" href="/app/links/new">
                New link
              </a>
            )}
          </div>
          {done && (
            <p class="card ok" role="status">
              {done === 'deleted' ? 'The link was deleted.' : done === 'bulk-deleted' ? 'The selected links were deleted.' : done === 'moved' ? 'The selected links were moved to the campaign.' : 'Done.'}
            </p>
          )}
          <section class="card">
            <ListFilters p={p} domains={domains} campaigns={choices.campaigns} channels={choices.channels} />
            <LinkTable p={p} items={items} total={found.total} more={found.more} csrf={who.csrf} campaigns={choices.campaigns} canWrite={allows(who, WRITE)} />
          </section>
        </Layout>,
      );
    }),
  );

  routes.get(
    '/app/links/new',
    screen(d, async (c, who) => (allows(who, WRITE) ? formPage(c, who, { values: BLANK }) : lacking(c, who, WRITE))),
  );

  routes.post(
    '/app/links',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const values = valuesOfForm(form);
      try {
        const made = await createBody(s, links, hookContext(s, c), bodyOfValues(values, false));
        audit(d, c, who, '/app/links', 'links', Number(made.id), 200);
        return c.redirect(`/app/links/${String(made.id)}?done=created`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/links', 'links', null, err.status);
        return formPage(c, who, { values, errors: errorsOf(err) }, 400);
      }
    }),
  );

  routes.get(
    '/app/links/:id',
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const link = await find(c, who);
      if (!link) return notFound(c, who);
      const days = (PERIODS as readonly number[]).includes(Number(c.req.query('days'))) ? Number(c.req.query('days')) : 30;
      const ctx: HookContext = hookContext(s, c);
      const [[entry], stats] = await Promise.all([linkEntries([link], ctx), linkStats(s, link.id, days)]);
      const short = String(entry!.shorturl);
      const done = c.req.query('done');
      return answerPage(
        c,
        <Layout title={link.alias} chrome={chromeOf(who, '/app/links')}>
          <p class="crumbs">
            <a href="/app/links">Links</a> / {link.alias}
          </p>
          {done && (
            <p class="card ok" role="status">
              {done === 'created' ? 'The link was created.' : 'The link was saved.'}
            </p>
          )}
          <section class="card">
            <h1>
              <a class="short" href={short}>
                {short}
              </a>
            </h1>
            <p class="muted">Sends to {link.url}</p>
            {link.description && <p>{link.description}</p>}
            <div class="actions">
              <button type="button" class="secondary" data-copy={short} hidden>
                Copy the short URL
              </button>
              {allows(who, WRITE) && (
                <a class="btn secondary" href={`/app/links/${link.id}/edit`}>
                  Edit
                </a>
              )}
              {allows(who, WRITE) && (
                <AskFirstForm action={`/app/links/${link.id}/delete`} question="Delete this link and its statistics?" csrf={who.csrf}>
                  Delete
                </AskFirstForm>
              )}
            </div>
            <p class="muted">
              {link.password ? 'Protected by a password. ' : ''}
              {link.expiry ? `Expires ${link.expiry} UTC. ` : ''}
              {link.status === 'public' ? 'Public.' : 'Private.'} Created {link.date}.
            </p>
          </section>
          <section class="card" aria-labelledby="qr">
            <h2 id="qr">QR code</h2>
            <QrPreview src={`/app/links/${link.id}/qr`} name={link.alias} alt={`QR code of ${short}`} />
          </section>
          <LinkStatsView id={link.id} alias={link.alias} stats={stats} />
        </Layout>,
      );
    }),
  );

  routes.get(
    '/app/links/:id/qr',
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const link = await find(c, who);
      if (!link) return notFound(c, who);
      return d.qr.answer(c, { payload: `${await originOf(link, s)}/${link.alias}`, foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)', logo: null }, link.alias);
    }, { image: true }),
  );

  routes.get(
    '/app/links/:id/edit',
    screen(d, async (c, who) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const link = await find(c, who);
      if (!link) return notFound(c, who);
      return formPage(c, who, { values: valuesOfLink(link, await domainOf(link)), link });
    }),
  );

  routes.post(
    '/app/links/:id/edit',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const link = await find(c, who);
      if (!link) return notFound(c, who);
      const values = valuesOfForm(form);
      try {
        // The form cannot show the stored password: left empty, the link keeps it (the API's update would remove it).
        await updateRecord(s, links, hookContext(s, c), link, bodyOfValues(values, true), (f) => {
          if (keepsPassword(values)) delete f.password;
        });
        audit(d, c, who, '/app/links/:id/edit', 'links', link.id, 200);
        return c.redirect(`/app/links/${link.id}?done=saved`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/links/:id/edit', 'links', link.id, err.status);
        return formPage(c, who, { values, errors: errorsOf(err), link }, 400);
      }
    }),
  );

  routes.post(
    '/app/links/:id/delete',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const link = await find(c, who);
      if (!link) return notFound(c, who);
      if (field(form, CONFIRMED) !== 'yes') {
        const short = `${await originOf(link, s)}/${link.alias}`;
        return askPage(c, who, `/app/links/${link.id}/delete`, { question: `Delete ${short}?`, detail: 'It is deleted for good, with its statistics.', button: 'Delete the link', back: `/app/links/${link.id}` }, form);
      }
      await removeRecord(s, links, hookContext(s, c), link);
      audit(d, c, who, '/app/links/:id/delete', 'links', link.id, 200);
      return c.redirect('/app/links?done=deleted', 303);
    }),
  );

  routes.post(
    '/app/links/bulk',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const ids = fields(form, 'ids').slice(0, 1000);
      const back = listHref(listParams(Object.fromEntries(new URL(field(form, 'back') || '/app/links', 'http://x').searchParams)));
      const action = field(form, 'action');
      if (ids.length === 0) return messagePage(c, 400, 'Nothing selected', 'Select the links first, then the action.', chromeOf(who, '/app/links'));
      if (action === 'delete' && field(form, CONFIRMED) !== 'yes') {
        const n = ids.length === 1 ? 'the selected link' : `the ${ids.length} selected links`;
        return askPage(c, who, '/app/links/bulk', { question: `Delete ${n}?`, detail: 'They are deleted for good, with their statistics.', button: 'Delete them', back }, form);
      }
      if (action === 'delete') {
        // All or none, as an atomic bulk delete of the API: a link not the user's deletes nothing.
        const outcomes = await removeMany(s, links, hookContext(s, c), ids, true);
        const failed = outcomes.find((o) => !o.ok);
        audit(d, c, who, '/app/links/bulk', 'links', null, failed ? 404 : 200);
        if (failed) return messagePage(c, 404, 'Not deleted', 'Some of the selected links are not yours or are gone: nothing was deleted.', chromeOf(who, '/app/links'));
        return c.redirect(`${back}${back.includes('?') ? '&' : '?'}done=bulk-deleted`, 303);
      }
      if (action === 'move') {
        try {
          await assignToCampaign(s, who.user.id, field(form, 'campaign'), ids);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, '/app/links/bulk', 'links', null, err.status);
          return messagePage(c, err.status === 404 ? 404 : 400, 'Not moved', `${err.message} Nothing was moved.`, chromeOf(who, '/app/links'));
        }
        audit(d, c, who, '/app/links/bulk', 'links', null, 200);
        return c.redirect(`${back}${back.includes('?') ? '&' : '?'}done=moved`, 303);
      }
      return messagePage(c, 400, 'Unknown action', 'Choose delete or move.', chromeOf(who, '/app/links'));
    }),
  );
  return routes;
}
