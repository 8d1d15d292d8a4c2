import type { Context } from 'hono';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { Readiness } from './readiness.ts';
import type { ReadinessCheck } from './readiness.ts';

/** Bound on one readiness probe: DATABASE_TIMEOUT, but at most 2 s (proxies give up on slower health checks: Caddy's health_timeout is 2 s). */
export function readyProbeMs(config: Pick<Config, 'databaseTimeout'>): number {
  return Math.min(2000, Math.round(config.databaseTimeout * 1000));
}

/** The readiness of an instance that depends on its store (and `more`); its read replicas are reported beside it. */
export function storeReadiness(store: Store, config: Pick<Config, 'databaseTimeout'>, more: readonly ReadinessCheck[] = []): Readiness {
  return new Readiness([{ name: 'store', probe: () => store.ping() }, ...more, ...replicaChecks(store)], readyProbeMs(config));
}

/**
 * One optional check per read replica, answered from what the store's own rounds found (no
 * statement of its own): `ok`, `lagging` (over DATABASE_READ_MAX_LAG) or `unavailable`. A replica
 * never makes the instance unready: its reads go to the primary meanwhile.
 */
function replicaChecks(store: Store): ReadinessCheck[] {
  const stateOf = (name: string) => store.replicas?.().find((r) => r.name === name)?.state;
  return (store.replicas?.() ?? []).map(({ name }) => ({
    name: `replica ${name}`,
    optional: true,
    probe: async () => {
      const state = stateOf(name);
      if (state === 'ok') return;
      if (state === 'lagging') return 'lagging' as const;
      throw new Error(`replica ${state ?? 'unknown'}`);
    },
  }));
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
