import type { UserRecord } from '../resources/define.ts';

/** Hono's environment for this app: what middleware leaves for handlers. */
export type AppEnv = { Variables: { user: UserRecord; /** Set once a request's Idempotency-Key is taken in hand (idempotency.ts). */ idempotent?: true } };
