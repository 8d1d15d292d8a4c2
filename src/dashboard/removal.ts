import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import type { Resource } from '../resources/define.ts';
import { hookContext, removeRecord } from '../routes/crud.ts';
import { allows, audit, lacking, ownRecord, screen } from './guard.ts';
import type { Dashboard } from './guard.ts';
import type { SignedIn } from './sessions.ts';
import { askFirst } from './ask-first.tsx';

/**
 * The post `<home>/:id/delete` of a row's screens, asked first (ask-first.tsx): the session needs
 * `scope`; a record that is missing or another user's answers `missing`; the record is removed as
 * the API's delete removes it (its hooks, cascades and events; `ask.remove` for the analytics API's
 * rows), audited, and the browser goes back to the list.
 */
export function deleteScreen(
  d: Dashboard,
  row: Resource,
  home: string,
  scope: string,
  missing: (c: Context, who: SignedIn) => Promise<Response>,
  ask: { noun: string; detail?: string; listOnly?: boolean; remove?: typeof removeRecord },
) {
  const { noun } = ask;
  // Asked first: by the script's box (it confirms the form), else on a page (ask-first.tsx).
  const asked = askFirst(
    (c) => ({ question: `Delete this ${noun}?`, detail: ask.detail ?? `The ${noun} is deleted for good; what uses it stops using it.`, button: `Delete the ${noun}`, back: ask.listOnly ? home : `${home}/${c.req.param('id') ?? ''}` }),
    async (c, who) => {
      if (!allows(who, scope)) return lacking(c, who, scope);
      const record = await ownRecord(d, row, c as Context<AppEnv>, who);
      if (!record) return missing(c, who);
      await (ask.remove ?? removeRecord)(d.s, row, hookContext(d.s, c), record);
      audit(d, c, who, `${home}/:id/delete`, row.collection, record.id, 200);
      return c.redirect(`${home}?done=deleted`, 303);
    },
  );
  return screen(d, asked);
}
