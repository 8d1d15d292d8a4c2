import * as v from 'valibot';
import { userEntryShape } from '../resources/users.ts';
import { day, int, str } from '../resources/shapes.ts';
import { ITEM_KINDS } from '../routes/link-api/channels.ts';

// Response shapes of routes outside the resource table's generic ones (rows carry their own `shapes`).

/** The account (`GET /api/account`): a public user without the admin flag and the disabled state. */
export const accountShape = v.strictObject((({ admin: _admin, disabled: _disabled, ...rest }) => rest)(userEntryShape));

/** An item of a channel (`GET /api/channel/:id`). */
export const channelItemShape = v.strictObject({
  type: v.picklist(Object.keys(ITEM_KINDS) as [string, ...string[]]),
  id: int,
  title: str,
  preview: str,
  link: str,
  date: day,
});

/** A row of the analytics stats API. */
export const statRowShape = v.strictObject({ value: str, count: int });

/** The realtime view of a website (`GET /api/v1/stats/{id}/realtime`). */
export const realtimeShape = v.strictObject({ visitors: int, pageviews: int, pages: v.array(statRowShape) });
