import type { Resource } from './define.ts';
import { pixels } from './pixels.ts';
import { users } from './users.ts';

/** The resource table: every resource of both APIs, one row each. */
export const RESOURCES: readonly Resource[] = [users, pixels];

/** The store collections the table needs. */
export function collectionsOf(rows: readonly Resource[]): string[] {
  return [...new Set(rows.map((r) => r.collection))];
}
