import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { KeyIndex } from '../auth/key-index.ts';
import { bearerToken } from '../auth/keys.ts';
import { ApiError, MESSAGES } from '../errors.ts';
import { FixtureError } from '../fixtures/read.ts';
import type { AppEnv } from '../http/app-env.ts';
import { renderError, toApiError } from '../http/error-body.ts';
import { jsonObjectBody } from '../http/validate.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { RawFixtures } from '../fixtures/read.ts';
import type { SeedCounts } from '../fixtures/seed.ts';
import type { TestClock } from '../fake/test-clock.ts';

/** Lets only the admin's account key through: 401 without a valid account key, 403 for another user's. */
function requireAdminKey(store: Store): MiddlewareHandler<AppEnv> {
  const keys = new KeyIndex(store, false);
  return async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    const found = token ? await keys.lookup(token) : null;
    // The admin's account key only: a scoped key, even with `*`, does not run the test controls.
    const user = found && found.key === null ? found.user : null;
    if (!user) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new ApiError(401, MESSAGES.invalidKey);
    }
    if (!user.admin) throw new ApiError(403, MESSAGES.forbidden);
    await next();
  };
}

// Test clients in any language: the body is read as JSON whatever its content type says.
async function body(c: { req: { text(): Promise<string> } }): Promise<Record<string, unknown>> {
  return jsonObjectBody(await c.req.text(), 'application/json', '');
}

/** The clock as the admin endpoints report it. */
export interface ClockState {
  now: string;
  ms: number;
  frozen: boolean;
}

/** What the admin endpoints act on: the test control of a TEST_MODE server (TestControl is one). */
export interface AdminControl {
  clock: TestClock;
  reset(): Promise<void>;
  seed(fixtures: RawFixtures): Promise<SeedCounts>;
  clockState(): ClockState;
  /** Called after the clock moved: what depends on its time catches up (statistics retention, webhook retries). */
  clockMoved(): Promise<void>;
  /** Sends the webhook deliveries due now and resolves once they ended. */
  deliverWebhooks?(): Promise<void>;
}

/** Moves the clock as a POST /__admin/clock body says: `{now}` (ISO date or epoch ms) stops it there, `{advance}` (ms) moves it. */
function moveClock(control: AdminControl, input: Record<string, unknown>): void {
  const { now, advance } = input;
  if ((now === undefined) === (advance === undefined)) throw new ApiError(400, 'Send either "now" (an ISO date or epoch milliseconds) or "advance" (milliseconds).');
  if (now !== undefined) {
    const ms = typeof now === 'number' ? now : typeof now === 'string' ? Date.parse(now) : NaN;
    if (!Number.isFinite(ms)) throw new ApiError(400, 'Invalid now: must be an ISO date like 2026-01-01T00:00:00Z or epoch milliseconds.');
    control.clock.set(ms);
  } else {
    if (typeof advance !== 'number' || !Number.isFinite(advance)) throw new ApiError(400, 'Invalid advance: must be a number of milliseconds.');
    control.clock.advance(advance);
  }
}

/** `/__admin/reset`, `/__admin/seed`, `/__admin/clock` and `/__admin/webhooks/deliver`: test mode's controls, for admin keys only. */
export function adminRoutes(control: AdminControl, store: Store, log: Logger): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('/__admin/*', requireAdminKey(store));

  routes.post('/__admin/reset', async (c) => {
    await control.reset();
    log.info('test mode: reset');
    return c.json({ error: 0, message: 'Data, clock and random source are back to their start.', clock: control.clockState() });
  });

  routes.post('/__admin/seed', async (c) => {
    const fixtures = await body(c);
    try {
      const counts = await control.seed(fixtures);
      log.info('test mode: fixtures loaded', counts);
      return c.json({ error: 0, message: 'Fixtures loaded.', counts });
    } catch (err) {
      if (err instanceof FixtureError) throw new ApiError(400, err.message);
      throw err;
    }
  });

  routes.get('/__admin/clock', (c) => c.json({ error: 0, clock: control.clockState() }));

  routes.post('/__admin/clock', async (c) => {
    moveClock(control, await body(c));
    await control.clockMoved();
    return c.json({ error: 0, clock: control.clockState() });
  });

  routes.post('/__admin/webhooks/deliver', async (c) => {
    await control.deliverWebhooks?.();
    return c.json({ error: 0, message: 'Every webhook delivery due now was attempted; see each webhook\'s delivery log.' });
  });

  routes.onError((err, c) => renderError(c, toApiError(err, log, c)));
  return routes;
}
