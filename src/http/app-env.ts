import type { ApiKeyRecord } from '../auth/api-key-record.ts';
import type { UserRecord } from '../resources/define.ts';

/**
 * Hono's environment for this app: what middleware leaves for handlers. `apiKey` is the scoped key
 * of the request (null: the account key); `permitted` marks a request whose scope was checked (and
 * whose write is being audited), so that a route of several handlers checks once; `idempotent` is
 * set once a request's Idempotency-Key is taken in hand (idempotency.ts).
 */
export type AppEnv = { Variables: { user: UserRecord; apiKey: ApiKeyRecord | null; permitted: boolean; idempotent?: true } };
