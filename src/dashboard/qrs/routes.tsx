import { Hono } from 'hono';
import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { countText } from '../../html/count-text.ts';
import { sniffLogoMime } from '../../qr/logo.ts';
import { qrPayloadOf, qrs } from '../../resources/qrs.ts';
import type { Qr } from '../../resources/qrs.ts';
import { createBody, entriesOf, hookContext, listQueryOf, updateRecord } from '../../routes/crud.ts';
import { errorsByField } from '../form-errors.ts';
import { allows, audit, chromeOf, lacking, ownRecord, screen } from '../guard.ts';
import { deleteScreen } from '../removal.ts';
import type { Dashboard, Uploads } from '../guard.ts';
import { answerPage, Layout, messagePage } from '../layout.tsx';
import { AskFirstForm } from '../ask-first.tsx';
import { ListSearch, listPage, PAGE_SIZE, Pages } from '../pages.tsx';
import { QrPreview } from '../qr-image.tsx';
import type { SignedIn } from '../sessions.ts';
import { bodyOfValues, QR_FORM_NAMES, QR_TYPE_LABELS, typeOf, valuesOfForm, valuesOfQr } from './fields.ts';
import type { QrFormValues } from './fields.ts';
import { QrForm, TypeSwitch } from './form.tsx';

const READ = 'qr:read';
const WRITE = 'qr:write';
const HOME = '/app/qrs';

/** An uploaded logo as the API's `logo` takes one: a data: URI of its bytes (the API then checks type and size). */
async function uploadedLogo(files: Uploads): Promise<string | null> {
  const file = files.logo_file;
  if (!file) return null;
  const bytes = new Uint8Array(await file.arrayBuffer());
  return `data:${sniffLogoMime(bytes) ?? 'application/octet-stream'};base64,${Buffer.from(bytes).toString('base64')}`;
}

/**
 * `/app/qrs`: the user's QR codes with a preview of each, a new one of any type (the type's boxes,
 * colours, a logo by URL or upload), a code's page (preview, PNG and SVG downloads, scans), edit,
 * delete: through the functions the API's /api/qr routes call (crud.ts), so its validation, limits,
 * webhooks and events hold; each write audited.
 */
export function qrScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;
  const notFound = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such QR code among yours.', chromeOf(who, HOME));
  const find = (c: Context, who: SignedIn) => ownRecord<Qr>(d, qrs, c, who);

  const formPage = (c: Context<AppEnv>, who: SignedIn, props: { values: QrFormValues; errors?: Record<string, string>; qr?: Qr }, status: 200 | 400 = 200) => {
    const { qr } = props;
    const title = qr ? `Edit ${qr.name}` : 'New QR code';
    const action = qr ? `${HOME}/${qr.id}/edit` : HOME;
    return answerPage(
      c,
      <Layout title={title} chrome={chromeOf(who, HOME)}>
        <p class="crumbs">
          <a href={HOME}>QR codes</a>
          {qr && (
            <>
              {' '}
              / <a href={`${HOME}/${qr.id}`}>{qr.name}</a>
            </>
          )}
        </p>
        <section class="card">
          <h1>{title}</h1>
          <TypeSwitch action={qr ? `${HOME}/${qr.id}/edit` : `${HOME}/new`} type={props.values.type} />
          <QrForm action={action} csrf={who.csrf} values={props.values} errors={props.errors ?? {}} editing={qr !== undefined} uploadedLogo={qr?.logo?.startsWith('data:') ?? false} hasLogo={Boolean(qr?.logo)} />
        </section>
      </Layout>,
      status,
    );
  };

  routes.get(
    HOME,
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const ctx = hookContext(s, c);
      const { q, page } = listPage(c.req.query());
      const found = await s.store.find<Qr>(qrs.collection, { ...listQueryOf(qrs, ctx, { q }), sort: { field: 'id', direction: 'desc' }, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
      const entries = await entriesOf(qrs, found.items, ctx);
      const done = c.req.query('done');
      return answerPage(
        c,
        <Layout title="QR codes" chrome={chromeOf(who, HOME)}>
          <div class="head">
            <h1>QR codes</h1>
            {allows(who, WRITE) && (
              <a class="btn" href={`${HOME}/new`}>
                New QR code
              </a>
            )}
          </div>
          {done === 'deleted' && (
            <p class="card ok" role="status">
              The QR code was deleted.
            </p>
          )}
          <section class="card">
            <ListSearch path={HOME} q={q} placeholder="Name" />
            {found.items.length === 0 ? (
              <p>{q ? 'No QR code matches.' : 'You have no QR codes yet.'}</p>
            ) : (
              <ul class="tiles">
                {found.items.map((qr, i) => (
                  <li>
                    <a href={`${HOME}/${qr.id}`}>
                      <img class="qr" src={`${HOME}/${qr.id}/image?format=svg`} width={96} height={96} alt="" loading="lazy" />
                      <strong>{qr.name}</strong>
                    </a>
                    <span class="muted">
                      {QR_TYPE_LABELS[qr.type]} · {countText(Number(entries[i]?.scans ?? 0))} scans · {qr.date.slice(0, 10)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
            <Pages path={HOME} q={q} page={page} total={found.total} noun="QR codes" />
          </section>
        </Layout>,
      );
    }),
  );

  routes.get(
    `${HOME}/new`,
    screen(d, async (c, who) => (allows(who, WRITE) ? formPage(c, who, { values: valuesOfForm({ type: typeOf(c.req.query('type')) }) }) : lacking(c, who, WRITE))),
  );

  routes.post(
    HOME,
    screen(
      d,
      async (c, who, form, files) => {
        if (!allows(who, WRITE)) return lacking(c, who, WRITE);
        const values = valuesOfForm(form);
        try {
          const made = await createBody(s, qrs, hookContext(s, c), bodyOfValues(values, await uploadedLogo(files)));
          audit(d, c, who, HOME, qrs.collection, Number(made.id), 200);
          return c.redirect(`${HOME}/${String(made.id)}?done=created`, 303);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, HOME, qrs.collection, null, err.status);
          return formPage(c, who, { values, errors: errorsByField(err, QR_FORM_NAMES) }, 400);
        }
      },
      { files: true },
    ),
  );

  routes.get(
    `${HOME}/:id`,
    screen(d, async (c, who) => {
      if (!allows(who, READ)) return lacking(c, who, READ);
      const qr = await find(c, who);
      if (!qr) return notFound(c, who);
      const [entry] = await entriesOf(qrs, [qr], hookContext(s, c));
      const done = c.req.query('done');
      return answerPage(
        c,
        <Layout title={qr.name} chrome={chromeOf(who, HOME)}>
          <p class="crumbs">
            <a href={HOME}>QR codes</a> / {qr.name}
          </p>
          {done && (
            <p class="card ok" role="status">
              {done === 'created' ? 'The QR code was created.' : 'The QR code was saved.'}
            </p>
          )}
          <section class="card">
            <h1>{qr.name}</h1>
            <p class="muted">
              {QR_TYPE_LABELS[qr.type]} · {countText(Number(entry?.scans ?? 0))} scans · created {qr.date}
            </p>
            <QrPreview src={`${HOME}/${qr.id}/image`} name={`${qr.alias}`} alt={`QR code ${qr.name}`} />
            <p class="muted">
              Public image: <a class="short" href={String(entry?.link)}>{String(entry?.link)}</a>
            </p>
            {allows(who, WRITE) && (
              <div class="actions">
                <a class="btn secondary" href={`${HOME}/${qr.id}/edit`}>
                  Edit
                </a>
                <AskFirstForm action={`${HOME}/${qr.id}/delete`} question="Delete this QR code and its scan counts?" csrf={who.csrf}>
                  Delete
                </AskFirstForm>
              </div>
            )}
          </section>
        </Layout>,
      );
    }),
  );

  routes.get(
    `${HOME}/:id/image`,
    screen(
      d,
      async (c, who) => {
        if (!allows(who, READ)) return lacking(c, who, READ);
        const qr = await find(c, who);
        if (!qr) return notFound(c, who);
        return d.qr.answer(c, { payload: qrPayloadOf(s, qr), foreground: qr.foreground, background: qr.background, logo: qr.logo }, qr.alias);
      },
      { image: true },
    ),
  );

  routes.get(
    `${HOME}/:id/edit`,
    screen(d, async (c, who) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const qr = await find(c, who);
      if (!qr) return notFound(c, who);
      return formPage(c, who, { values: valuesOfQr(qr, c.req.query('type') ? typeOf(c.req.query('type')) : qr.type), qr });
    }),
  );

  routes.post(
    `${HOME}/:id/edit`,
    screen(
      d,
      async (c, who, form, files) => {
        if (!allows(who, WRITE)) return lacking(c, who, WRITE);
        const qr = await find(c, who);
        if (!qr) return notFound(c, who);
        const values = valuesOfForm(form);
        const logo = await uploadedLogo(files);
        try {
          // The API's update keeps a logo it is not sent; the form's "remove" clears it (what a code made without one has).
          await updateRecord(s, qrs, hookContext(s, c), qr, bodyOfValues(values, logo), (f) => {
            if (values.removeLogo && logo === null && values.logo.trim() === '') f.logo = null;
          });
          audit(d, c, who, `${HOME}/:id/edit`, qrs.collection, qr.id, 200);
          return c.redirect(`${HOME}/${qr.id}?done=saved`, 303);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, `${HOME}/:id/edit`, qrs.collection, qr.id, err.status);
          return formPage(c, who, { values, errors: errorsByField(err, QR_FORM_NAMES), qr }, 400);
        }
      },
      { files: true },
    ),
  );

  routes.post(`${HOME}/:id/delete`, deleteScreen(d, qrs, HOME, WRITE, notFound, { noun: 'QR code', detail: 'It is deleted for good, with its scan counts.' }));
  return routes;
}
