import * as v from 'valibot';
import { AUDIT } from '../audit/audit-log.ts';
import type { AuditRecord } from '../audit/audit-log.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import type { Condition } from '../store/store.ts';
import { defineResource } from './define.ts';
import { date, int, str } from './shapes.ts';

const ID = /^[1-9]\d{0,15}$/;

/** The filters of `GET /api/audit`: `user` (admin: a user's id, or `all`), `key` (a key's id, or `account` for the account key). */
function auditQuery(query: Record<string, string | undefined>, ctx: { user: { id: number; admin: boolean } }): { conditions: Condition[]; owner?: number | 'any' } {
  const conditions: Condition[] = [];
  const key = query.key?.trim();
  if (key === 'account') conditions.push({ field: 'keyId', equals: null });
  else if (key) {
    if (!ID.test(key)) throw new ApiError(400, 'Invalid key: must be the id of an API key, or account for the account key.');
    conditions.push({ field: 'keyId', equals: Number(key) });
  }
  const user = query.user?.trim();
  if (!user) return { conditions };
  if (user !== 'all' && !ID.test(user)) throw new ApiError(400, 'Invalid user: must be the id of a user, or all.');
  const owner = user === 'all' ? 'any' : Number(user);
  // Only the admin reads other users' entries; a user naming itself is answered as without the filter.
  if (owner !== ctx.user.id && !ctx.user.admin) throw new ApiError(403, MESSAGES.forbidden);
  return { conditions, owner };
}

/** The audit log of writes (src/audit/audit-log.ts writes it): read by its user, and by the admin for anyone. */
export const audit = defineResource<Record<string, never>, AuditRecord>({
  name: 'audit',
  collection: AUDIT,
  api: 'link',
  owned: true,
  extension: true,
  scope: 'audit',
  wholeStoreOnly: true,
  fields: {},
  paths: { list: '/api/audit' },
  listKey: 'entries',
  shapes: {
    entry: {
      id: int,
      date,
      user_id: int,
      key_id: v.nullable(int),
      method: str,
      route: str,
      resource: str,
      resource_id: v.nullable(int),
      status: int,
      ip: str,
    },
  },
  messages: { notFound: 'Audit entry does not exist.', updated: '', deleted: '' },
  example: () => ({}),
  entry: (e) => ({ id: e.id, date: e.date, user_id: e.userId, key_id: e.keyId, method: e.method, route: e.route, resource: e.resource, resource_id: e.resourceId, status: e.status, ip: e.ip }),
  listQuery: auditQuery,
});
