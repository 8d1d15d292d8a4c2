import { ApiError } from '../../errors.ts';
import type { Services } from '../../resources/define.ts';
import { findVisible } from '../crud.ts';
import type { StoredRecord } from '../../store/store.ts';

/**
 * The user's record of `collection` that the path value `raw` names, like `findVisible` but with the
 * caller's not-found message (assign routes word it their own way); a collection the table lacks has none.
 */
export function findItem<R extends StoredRecord>(s: Services, collection: string, raw: string | undefined, userId: number, notFound: string): Promise<R> {
  const row = s.resources.find((r) => r.collection === collection);
  if (!row) return Promise.reject(new ApiError(404, notFound));
  return findVisible<R>(s, { ...row, messages: { ...row.messages, notFound } }, raw, userId);
}
