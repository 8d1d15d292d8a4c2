import type { Config } from '../config.ts';
import { inputsOf } from '../dashboard/resources/inputs.ts';
import { RESOURCE_SCREENS } from '../dashboard/resources/rows.ts';
import type { ResourceScreen } from '../dashboard/resources/screen.ts';
import { ASKING, CONFIRMED_BODY, CSRF, form, page, posted, screen, signIn } from './dashboard-operations.ts';
import type { OpSpec } from './operation.ts';

// An operation id's part for a screen: "pixels" → "Pixels", "splash" → "Splash".
const idOf = (spec: ResourceScreen) => spec.path.charAt(0).toUpperCase() + spec.path.slice(1);

// A row's create example as a form posts it: a list as its first value, yes as "on".
function formExample(spec: ResourceScreen): Record<string, string> {
  const out: Record<string, string> = { csrf: 'token' };
  for (const [k, value] of Object.entries(spec.row.example(1))) {
    if (value === false) continue;
    out[k] = value === true ? 'on' : String(Array.isArray(value) ? value[0] : value);
  }
  return out;
}

// The fields of a row's create or update form, described for the document.
function formFields(spec: ResourceScreen, kind: 'create' | 'update'): Record<string, string> {
  const fields = inputsOf(spec.row, kind).map((i) => [i.name, `${i.kind === 'checkbox' ? '"on" for yes, absent for no' : i.kind === 'checks' || i.kind === 'references' ? 'Repeated, once per value' : 'As the API takes it'}${i.required ? '' : ' (optional)'}.`]);
  return { ...CSRF, ...Object.fromEntries(fields) };
}

/** The table-driven screens' pages and forms (src/dashboard/resources): list, new, the record's page, edit, delete, and a channel's item. */
export function resourceScreenOperations(config: Config): OpSpec[] {
  if (!config.dashboard) return [];
  const ops: OpSpec[] = [];
  for (const spec of RESOURCE_SCREENS) {
    const id = idOf(spec);
    const base = `/app/${spec.path}`;
    const none = { '404': page(`No such ${spec.one} among the user's (another user's answers the same).`) };
    const refused = { '400': page(`The form again, with the API's message beside the field; nothing stored.`) };
        ops.push(
      screen(`dashboard${id}`, 'get', base, `The list of ${spec.title.toLowerCase()}`, { '200': page('The page.'), ...signIn }, {
        query: [
          { name: 'q', description: 'Search, as the API list searches.', schema: { type: 'string' }, lenient: true },
          { name: 'page', schema: { type: 'integer', minimum: 1, default: 1 }, lenient: true },
        ],
      }),
      screen(`dashboardNew${id}`, 'get', `${base}/new`, `The form of a new ${spec.one}`, { '200': page('The form.'), ...signIn }),
      screen(`dashboardCreate${id}`, 'post', base, `Create a ${spec.one}`, { ...posted, ...refused }, { body: form(formFields(spec, 'create'), formExample(spec)) }),
      screen(`dashboard${id}Page`, 'get', `${base}/:id`, `A ${spec.one}'s page and its edit form`, { '200': page('The page.'), ...signIn, ...none }),
      screen(`dashboardSave${id}`, 'post', `${base}/:id/edit`, `Save a ${spec.one}`, { ...posted, ...none, ...refused }, { body: form(formFields(spec, 'update'), formExample(spec)) }),
      screen(`dashboardConfirmDelete${id}`, 'get', `${base}/:id/delete`, `The question before a ${spec.one} is deleted`, { '200': page('The page.'), ...signIn, ...none }),
      screen(`dashboardDelete${id}`, 'post', `${base}/:id/delete`, `Delete a ${spec.one}`, { ...posted, ...none, ...ASKING }, { body: CONFIRMED_BODY }),
    );
  }
  ops.push(
    screen('dashboardAddChannelItem', 'post', '/app/channels/:id/items', "Add one of the user's links, QR codes or bio pages to a channel", { ...posted, '400': page('Not a kind of item, or already in the channel.'), '404': page("No such channel or item among the user's.") }, {
      body: form({ ...CSRF, item: '<type>:<id>: links, qr or bio, and the item\'s id.' }, { csrf: 'token', item: 'links:1' }),
    }),
  );
  return ops;
}
