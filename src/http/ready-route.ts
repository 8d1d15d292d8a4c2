import type { Context } from 'hono';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { Readiness } from './readiness.ts';
import type { ReadinessCheck } from './readiness.ts';

/** Bound on one readiness probe: DATABASE_TIMEOUT, but at most 2 s (proxies give up on slower health checks: Caddy's health_timeout is 2 s). */
export function readyProbeMs(config: Pick<Config, 'databaseTimeout'>): number {
  return Math.min(2000, Math.round(config.databaseTimeout * 1000));
}

/** The readiness of an instance whose only dependency is its store. */
export function storeReadiness(store: Store, config: Pick<Config, 'databaseTimeout'>, more: readonly ReadinessCheck[] = []): Readiness {
  return new Readiness([{ name: 'store', probe: () => store.ping() }, ...more], readyProbeMs(config));
}

/**
 * GET /ready: 200 `{"status":"ready","checks":{…}}` while the instance can serve, 503 with
 * Retry-After and the check that failed while it cannot (its database unreachable): for a proxy or
 * orchestrator to send traffic elsewhere. Unlike /health (the process runs), never cached by anyone.
 */
export function readyRoute(readiness: Readiness) {
  return async (c: Context) => {
    const state = await readiness.state();
    c.header('Cache-Control', 'no-store');
    if (state.ready) return c.json({ status: 'ready', checks: state.checks });
    c.header('Retry-After', '1');
    return c.json({ status: 'unavailable', checks: state.checks }, 503);
  };
}
