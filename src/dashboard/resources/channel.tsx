import type { Hono } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { channels } from '../../resources/channels.ts';
import { assignItem, channelItems, ITEM_KINDS } from '../../routes/link-api/channels.ts';
import type { StoredRecord } from '../../store/store.ts';
import { allows, audit, chromeOf, field, lacking, screen } from '../guard.ts';
import type { Dashboard } from '../guard.ts';
import { Csrf, messagePage } from '../layout.tsx';
import { scopesOf } from './screen.ts';
import type { ResourceScreen, ScreenContext } from './screen.ts';

// The words of each kind of item, and how many of the user's newest of each the add form offers.
const KIND_NAMES: Record<string, string> = { links: 'Links', bio: 'Bio pages', qr: 'QR codes' };
const OFFERED = 200;
const { write: WRITE } = scopesOf(channels);

/** A channel's items (as GET /api/channel/:id lists them) and a form that adds one of the user's links, QR codes or bio pages. */
async function channelItemsCard(x: ScreenContext, record: StoredRecord) {
  const { s } = x.d;
  const items = await channelItems(s, x.who.user.id, record.id);
  const kinds = Object.entries(ITEM_KINDS).filter(([, k]) => s.resources.some((r) => r.collection === k.collection));
  const offered = await Promise.all(kinds.map(async ([type, k]) => ({ type, records: (await s.store.find(k.collection, { owner: x.who.user.id, sort: { field: 'id', direction: 'desc' }, limit: OFFERED })).items.filter((r) => !(Array.isArray(r.channels) && r.channels.includes(record.id))) })));
  return (
    <section class="card" aria-labelledby="items-h">
      <h2 id="items-h">Items</h2>
      {items.length === 0 ? (
        <p>The channel holds nothing yet.</p>
      ) : (
        <ul>
          {items.map((i) => (
            <li>
              <span class="muted">{KIND_NAMES[String(i.type)] ?? String(i.type)}:</span> <a href={String(i.link)}>{String(i.title)}</a>
            </li>
          ))}
        </ul>
      )}
      {allows(x.who, WRITE) && offered.every((o) => o.records.length === 0) && <p>You have no link, QR code or bio page to add.</p>}
      {allows(x.who, WRITE) && offered.some((o) => o.records.length > 0) && (
        <form method="post" action={`/app/channels/${record.id}/items`} class="toolbar">
          <Csrf token={x.who.csrf} />
          <label>
            Add to the channel
            <select name="item">
              {offered.filter((o) => o.records.length > 0).map((o) => (
                <optgroup label={KIND_NAMES[o.type] ?? o.type}>
                  {o.records.map((r) => (
                    <option value={`${o.type}:${r.id}`}>{ITEM_KINDS[o.type]!.title(r)}</option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <button type="submit">Add</button>
        </form>
      )}
      <p class="hint">Items cannot be taken out of a channel yet (the API has no call for it).</p>
    </section>
  );
}

/** `POST /app/channels/:id/items`: adds the picked item (`type:id`) through the API's assign. */
function channelItemRoutes(d: Dashboard, routes: Hono<AppEnv>): void {
  routes.post(
    '/app/channels/:id/items',
    screen(d, async (c, who, form) => {
      if (!allows(who, WRITE)) return lacking(c, who, WRITE);
      const [type = '', itemId] = field(form, 'item').split(':');
      const route = '/app/channels/:id/items';
      try {
        const { channel } = await assignItem(d.s, who.user.id, c.req.param('id'), type, itemId);
        audit(d, c, who, route, channels.collection, channel.id, 200);
        return c.redirect(`/app/channels/${channel.id}?done=item-added`, 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        audit(d, c, who, route, channels.collection, null, err.status);
        return messagePage(c, err.status === 404 ? 404 : 400, 'Not added', `${err.message} Nothing was added.`, chromeOf(who, '/app/channels'));
      }
    }),
  );
}

/** The channel screens, with the channel's items on its page. */
export const channelScreen: ResourceScreen = {
  row: channels,
  path: 'channels',
  title: 'Channels',
  one: 'channel',
  labels: { color: 'Colour', starred: 'Starred' },
  hints: { color: 'The badge colour of the channel.' },
  columns: ['description', 'starred'],
  details: channelItemsCard,
  routes: channelItemRoutes,
};
