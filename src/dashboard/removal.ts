import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env.ts';
import type { Resource } from '../resources/define.ts';
import { hookContext, removeRecord } from '../routes/crud.ts';
import { allows, audit, lacking, ownRecord, screen } from './guard.ts';
import type { Dashboard } from './guard.ts';
import type { SignedIn } from './sessions.ts';

/**
 * The post `<home>/:id/delete` of a row's screens: the session needs `scope`; a record that is
 * missing or another user's answers `missing`; the record is removed as the API's delete removes it
 * (its hooks, cascades and events), audited, and the browser goes back to the list.
 */
export function deleteScreen(d: Dashboard, row: Resource, home: string, scope: string, missing: (c: Context, who: SignedIn) => Promise<Response>) {
  return screen(d, async (c: Context<AppEnv>, who) => {
    if (!allows(who, scope)) return lacking(c, who, scope);
    const record = await ownRecord(d, row, c, who);
    if (!record) return missing(c, who);
    await removeRecord(d.s, row, hookContext(d.s, c), record);
    audit(d, c, who, `${home}/:id/delete`, row.collection, record.id, 200);
    return c.redirect(`${home}?done=deleted`, 303);
  });
}
