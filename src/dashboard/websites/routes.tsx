import { Hono } from 'hono';
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { pageQuery } from '../../analytics/stats-links.ts';
import { panelCard, totalsCard } from '../../analytics/stats-page-parts.ts';
import { statsView } from '../../analytics/stats-view.ts';
import { websites } from '../../analytics/websites.ts';
import type { Website } from '../../analytics/websites.ts';
import { hookContext } from '../../routes/crud.ts';
import { analyticsCreate, analyticsRemove, analyticsUpdate } from '../../routes/analytics/crud.ts';
import { WEBSITE_RULES } from '../../routes/analytics/websites.ts';
import { allows, audit, chromeOf, field, lacking, ownRecord, screen } from '../guard.ts';
import type { Dashboard, Form } from '../guard.ts';
import { answerPage, Csrf, FormError, Layout, messagePage } from '../layout.tsx';
import { AskFirstForm } from '../ask-first.tsx';
import { deleteScreen } from '../removal.ts';
import { Field } from '../links/form.tsx';
import type { SignedIn } from '../sessions.ts';
import { PRIVACY, PrivacyOptions, SettingsCard } from './settings.tsx';

const READ = 'websites:read';
const WRITE = 'websites:write';

const SETTINGS = ['privacy', 'password', 'exclude_bots', 'exclude_params', 'exclude_ips'];

/** The API's 422 as messages beside the form's fields ('form' for the rest). */
function fieldErrors(err: ApiError, names: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [name, messages] of Object.entries(err.fields ?? {})) errors[names.includes(name) ? name : 'form'] = messages.join(' ');
  if (Object.keys(errors).length === 0) errors.form = err.message;
  return errors;
}

/** The tag a website's pages embed to be counted: the tracker of this server, which names the site by its host. */
export const trackingSnippet = (baseUrl: string): string => `<script defer src="${baseUrl}/js/script.js" data-dnt="true"></script>`;

/**
 * `/app/websites`: the user's tracked websites, a new one (then its tracking snippet with a copy
 * button), each website's statistics (the stats page's loader and cards), and delete, through the
 * functions `/api/v1/websites` uses (analyticsCreate, analyticsRemove, the same body rules).
 */
export function websiteScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such website among yours.', chromeOf(who, '/app/websites'));

  const listPage = async (c: Context<AppEnv>, who: SignedIn, state: { values?: Form; errors?: Record<string, string> }, status: ContentfulStatusCode = 200) => {
    const mine = (await s.store.find<Website>(websites.collection, { owner: who.user.id, sort: { field: 'id', direction: 'asc' }, limit: 500 })).items;
    const errors = state.errors ?? {};
    return answerPage(
      c,
      <Layout title="Websites" chrome={chromeOf(who, '/app/websites')}>
        {c.req.query('done') === 'deleted' && (
          <p class="card ok" role="status">
            The website and its statistics were deleted.
          </p>
        )}
        <section class="card" aria-labelledby="sites-h">
          <h1 id="sites-h">Websites</h1>
          {mine.length === 0 ? (
            <p>No websites yet.</p>
          ) : (
            <ul>
              {mine.map((w) => (
                <li>
                  <a href={`/app/websites/${w.id}`}>{w.domain}</a> <span class="muted">{PRIVACY[w.privacy]}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
        {allows(who, WRITE) && (
          <section class="card" aria-labelledby="new-site-h">
            <h2 id="new-site-h">Add a website</h2>
            <FormError message={errors.form} />
            <form method="post" action="/app/websites" class="stack">
              <Csrf token={who.csrf} />
              <Field name="domain" label="Domain" errors={errors} hint="Such as example.com: its pages are counted.">
                {(aria) => <input {...aria} name="domain" value={state.values ? field(state.values, 'domain') : ''} required />}
              </Field>
              <Field name="privacy" label="Who sees the statistics page" errors={errors}>
                {(aria) => (
                  <select {...aria} name="privacy">
                    <PrivacyOptions selected={state.values ? field(state.values, 'privacy') : '1'} />
                  </select>
                )}
              </Field>
              <Field name="password" label="Page password (with the password option)" errors={errors}>
                {(aria) => <input {...aria} name="password" type="password" autocomplete="new-password" />}
              </Field>
              <div class="actions">
                <button type="submit">Add the website</button>
              </div>
            </form>
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    '/app/websites',
    screen(d, async (c, who) => (allows(who, READ) ? listPage(c, who, {}) : lacking(c, who, READ))),
  );

  routes.post(
    '/app/websites',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const body: Record<string, unknown> = { domain: field(form, 'domain'), privacy: field(form, 'privacy') || '1' };
      if (field(form, 'password') !== '') body.password = field(form, 'password');
      try {
        const made = await analyticsCreate(s, websites, WEBSITE_RULES, hookContext(s, c), body);
        audit(d, c, who, '/app/websites', websites.collection, made.id, 201);
        return c.redirect(`/app/websites/${made.id}?done=created`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/websites', websites.collection, null, err.status);
        const { password: _never, ...kept } = form;
        return listPage(c, who, { values: kept, errors: fieldErrors(err, ['domain', 'privacy', 'password']) }, 400);
      }
    }),
  );

  const sitePage = async (c: Context<AppEnv>, who: SignedIn, site: Website, state: { values?: Form; errors?: Record<string, string> }, status: ContentfulStatusCode = 200) => {
      const view = await statsView(s.counters, site.id, site.domain, pageQuery(c.req.query()), { nowMs: s.clock.now(), hourlyDays: s.config.statsHourlyDays, geoCredit: s.config.geoip });
      const snippet = trackingSnippet(s.config.baseUrl);
      const cards = totalsCard(site.domain, view.headline, view.previousHeadline, view.previous, view.series, view.hourlyDays) + `<div class="grid">${view.panels.map((p) => panelCard(site.domain, view.query, view.range, p.spec, p.tab, p.rows)).join('')}</div>`;
      return answerPage(
        c,
        <Layout title={site.domain} chrome={chromeOf(who, '/app/websites')}>
          <p class="crumbs">
            <a href="/app/websites">Websites</a> / {site.domain}
          </p>
          {c.req.query('done') === 'saved' && (
            <p class="card ok" role="status">
              The settings were saved.
            </p>
          )}
          {c.req.query('done') === 'created' && (
            <p class="card ok" role="status">
              The website was added. Put the tracking snippet in its pages.
            </p>
          )}
          <section class="card" aria-labelledby="snippet-h">
            <h1>{site.domain}</h1>
            <h2 id="snippet-h">Tracking snippet</h2>
            <p class="muted">Put this in the head of every page of {site.domain}:</p>
            <code class="secret">{snippet}</code>
            <div class="actions">
              <button type="button" class="secondary" data-copy={snippet} hidden>
                Copy the snippet
              </button>
              <a href={`/stats/${site.domain}`}>The statistics page</a>
              {allows(who, WRITE) && (
                <AskFirstForm action={`/app/websites/${site.id}/delete`} question="Delete this website and its statistics?" csrf={who.csrf}>
                  Delete
                </AskFirstForm>
              )}
            </div>
          </section>
          {allows(who, WRITE) && <SettingsCard site={site} csrf={who.csrf} values={state.values} errors={state.errors ?? {}} />}
          {/* The stats page's own cards (their markup escapes what they show); their links open the full statistics page. */}
          {raw(cards)}
        </Layout>,
        status,
      );
  };

  routes.get(
    '/app/websites/:id',
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const site = await ownRecord<Website>(d, websites, c, who);
      return site ? sitePage(c, who, site, {}) : notFound(c, who);
    }),
  );

  routes.post(
    '/app/websites/:id/settings',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const site = await ownRecord<Website>(d, websites, c, who);
      if (!site) return notFound(c, who);
      // An empty password keeps the stored one (the API's update reads an empty field as not sent).
      const body = { privacy: field(form, 'privacy'), password: field(form, 'password'), exclude_bots: field(form, 'exclude_bots') === '1' ? '1' : '0', exclude_params: field(form, 'exclude_params'), exclude_ips: field(form, 'exclude_ips') };
      try {
        await analyticsUpdate(s, websites, WEBSITE_RULES, hookContext(s, c), site, body);
        audit(d, c, who, '/app/websites/:id/settings', websites.collection, site.id, 200);
        return c.redirect(`/app/websites/${site.id}?done=saved`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, '/app/websites/:id/settings', websites.collection, site.id, err.status);
        const { password: _never, ...kept } = form;
        return sitePage(c, who, site, { values: kept, errors: fieldErrors(err, SETTINGS) }, 400);
      }
    }),
  );

  routes.post(
    '/app/websites/:id/delete',
    deleteScreen(d, websites, '/app/websites', WRITE, notFound, { noun: 'website', detail: 'It is deleted for good, with its statistics; its tracking script stops counting.', remove: analyticsRemove }),
  );
  return routes;
}
