import { Hono } from 'hono';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../../errors.ts';
import { cleanFilename, tooLarge } from '../../files/upload-body.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { countText } from '../../html/count-text.ts';
import { files } from '../../resources/files.ts';
import type { StoredFile } from '../../resources/files.ts';
import { entriesOf, hookContext, listQueryOf } from '../../routes/crud.ts';
import { storeUpload } from '../../routes/link-api/files.ts';
import { allows, audit, chromeOf, lacking, screen } from '../guard.ts';
import { deleteScreen } from '../removal.ts';
import type { Dashboard, Form } from '../guard.ts';
import { answerPage, Layout, messagePage } from '../layout.tsx';
import { AskFirstForm } from '../ask-first.tsx';
import { ListSearch, listPage, PAGE_SIZE, Pages } from '../pages.tsx';
import type { SignedIn } from '../sessions.ts';
import { DASHBOARD_UPLOAD_PATH, errorsOfUpload, sizeText, UploadForm, uploadFieldsOf } from './upload-form.tsx';

const READ = 'files:read';
const WRITE = 'files:write';
const HOME = '/app/files';

/**
 * `/app/files`: the user's files (title, name, type, size, downloads, short link), upload (multipart,
 * FILE_MAX_BYTES and the allowed types: the API's storeUpload, its checks and messages), delete (the
 * API's removeRecord). The API has no update of a file: a file is replaced by uploading it again.
 */
export function fileScreens(d: Dashboard): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { s } = d;

  const listPageOf = async (c: Context<AppEnv>, who: SignedIn, state: { values?: Form; errors?: Record<string, string> }, status: ContentfulStatusCode = 200) => {
    const ctx = hookContext(s, c);
    const { q, page } = listPage(c.req.query());
    const [found, domains] = await Promise.all([
      s.store.find<StoredFile>(files.collection, { ...listQueryOf(files, ctx, { q }), sort: { field: 'id', direction: 'desc' }, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE }),
      s.store.find('domains', { owner: who.user.id, limit: 500 }),
    ]);
    const entries = await entriesOf(files, found.items, ctx);
    const done = c.req.query('done');
    return answerPage(
      c,
      <Layout title="Files" chrome={chromeOf(who, HOME)}>
        <h1>Files</h1>
        {done && (
          <p class="card ok" role="status">
            {done === 'deleted' ? 'The file was deleted.' : 'The file was uploaded.'}
          </p>
        )}
        <section class="card">
          <ListSearch path={HOME} q={q} placeholder="Title or file name" />
          {found.items.length === 0 ? (
            <p>{q ? 'No file matches.' : 'You have no files yet.'}</p>
          ) : (
            <div class="scroll">
              <table class="links">
                <caption class="sr">Your files</caption>
                <thead>
                  <tr>
                    <th scope="col">File and short link</th>
                    <th scope="col">Size</th>
                    <th scope="col" class="n">
                      Downloads
                    </th>
                    {allows(who, WRITE) && <th scope="col">Delete</th>}
                  </tr>
                </thead>
                <tbody>
                  {found.items.map((f, i) => (
                    <tr>
                      <td>
                        <strong>{f.name}</strong>
                        <br />
                        <a class="short" href={String(entries[i]?.shorturl)}>
                          {String(entries[i]?.shorturl)}
                        </a>{' '}
                        <button type="button" class="secondary" data-copy={String(entries[i]?.shorturl)} hidden>
                          Copy
                        </button>
                        <br />
                        <span class="muted">
                          {f.filename} · {f.type}
                          {f.password ? ' · password' : ''}
                          {f.expiry ? ` · expires ${f.expiry}` : ''} · {f.date.slice(0, 10)}
                        </span>
                      </td>
                      <td class="nowrap">{sizeText(f.size)}</td>
                      <td class="n">{countText(Number(entries[i]?.downloads ?? 0))}</td>
                      {allows(who, WRITE) && (
                        <td>
                          <AskFirstForm action={`${HOME}/${f.id}/delete`} question="Delete this file?" csrf={who.csrf} buttonClass="danger nowrap" label={`Delete ${f.name}`}>
                            Delete
                          </AskFirstForm>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pages path={HOME} q={q} page={page} total={found.total} noun="files" />
        </section>
        {allows(who, WRITE) && (
          <section class="card" aria-labelledby="upload-h">
            <h2 id="upload-h">Upload a file</h2>
            <UploadForm csrf={who.csrf} values={state.values ?? {}} errors={state.errors ?? {}} maxBytes={s.config.fileMaxBytes} domains={domains.items.map((r) => ({ value: String(r.domain).replace(/^https?:\/\//, ''), label: String(r.domain).replace(/^https?:\/\//, '') }))} />
          </section>
        )}
      </Layout>,
      status,
    );
  };

  routes.get(
    HOME,
    screen(d, async (c, who) => (allows(who, READ) ? listPageOf(c, who, {}) : lacking(c, who, READ))),
  );

  routes.post(
    DASHBOARD_UPLOAD_PATH,
    screen(
      d,
      async (c, who, form, uploads) => {
        if (!allows(who, WRITE)) return lacking(c, who, WRITE);
        try {
          const file = uploads.file;
          if (!file) throw new ApiError(400, 'Missing required parameter: file');
          if (file.size > s.config.fileMaxBytes) throw tooLarge(s.config.fileMaxBytes);
          const bytes = new Uint8Array(await file.arrayBuffer());
          if (bytes.byteLength === 0) throw new ApiError(400, 'The file is empty.');
          const stored = await storeUpload(s, hookContext(s, c), cleanFilename(file.name), bytes, uploadFieldsOf(form));
          audit(d, c, who, DASHBOARD_UPLOAD_PATH, files.collection, stored.id, 200);
          return c.redirect(`${HOME}?done=uploaded`, 303);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          audit(d, c, who, DASHBOARD_UPLOAD_PATH, files.collection, null, err.status);
          return listPageOf(c, who, { values: form, errors: errorsOfUpload(err) }, 400);
        }
      },
      { files: true },
    ),
  );

  const missing = (c: Context, who: SignedIn) => messagePage(c, 404, 'Not found', 'There is no such file among yours.', chromeOf(who, HOME));
  routes.post(`${HOME}/:id/delete`, deleteScreen(d, files, HOME, WRITE, missing, { noun: 'file', detail: 'The file and its bytes are deleted for good; its short link stops.' }));
  return routes;
}
