import type { Hono } from 'hono';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppEnv } from '../../http/app-env.ts';
import type { Resource } from '../../resources/define.ts';
import type { StoredRecord } from '../../store/store.ts';
import type { Dashboard } from '../guard.ts';
import type { SignedIn } from '../sessions.ts';

/** What a section added to a resource's page is given: the dashboard, the request, who is signed in. */
export interface ScreenContext {
  d: Dashboard;
  c: Context<AppEnv>;
  who: SignedIn;
}

/**
 * The screens of one row of the resource table (list, new, the record's page with its edit form,
 * delete): the row, where the screens live, and the words they use. What is special about a row
 * (links it shows, items it holds, instructions) comes from its own small file through the hooks.
 */
export interface ResourceScreen {
  row: Resource;
  /** The screens' path under /app (`pixels`: /app/pixels, /app/pixels/new, /app/pixels/:id). */
  path: string;
  /** The list's title ("Pixels") and one record's name in sentences ("pixel"). */
  title: string;
  one: string;
  /** The labels of the form's fields (default: the field's name with a capital). */
  labels?: Record<string, string>;
  /** A sentence under a field. */
  hints?: Record<string, string>;
  /** What a select shows for each of a field's values (default: the value). */
  optionLabels?: Record<string, Record<string, string>>;
  /** The entry fields the list shows (default: every field of the row's list entry but `id`). */
  columns?: readonly string[];
  /** The entry fields the record's page lists above its form (default: the columns). */
  facts?: readonly string[];
  /** A record's name on its page and in the list (default: its `name`, else its id). */
  titleOf?(record: StoredRecord): string;
  /** Sections shown above the form of a new record (instructions). */
  beforeNew?(x: ScreenContext): Promise<Child>;
  /** Sections shown on a record's page above its edit form. */
  details?(x: ScreenContext, record: StoredRecord): Promise<Child>;
  /** Routes of what the row has beyond the generic screens (a channel's items), under its path. */
  routes?(d: Dashboard, routes: Hono<AppEnv>): void;
}

/** The scopes a row's screens need to read and to write. */
export function scopesOf(row: Resource): { read: string; write: string } {
  const area = row.scope ?? row.collection;
  return { read: `${area}:read`, write: `${area}:write` };
}

/** The entry fields the list shows. */
export const columnsOf = (screen: ResourceScreen): readonly string[] => screen.columns ?? Object.keys(screen.row.shapes?.entry ?? {}).filter((k) => k !== 'id' && k !== 'name');

/** A record's name on its page and in the list. */
export function titleOf(screen: ResourceScreen, record: StoredRecord): string {
  if (screen.titleOf) return screen.titleOf(record);
  return typeof record.name === 'string' && record.name !== '' ? record.name : `${screen.one} ${record.id}`;
}
