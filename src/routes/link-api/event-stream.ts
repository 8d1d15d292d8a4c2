import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ApiError } from '../../errors.ts';
import { eventBody } from '../../events/event-types.ts';
import type { AppEnv } from '../../http/app-env.ts';
import type { Services } from '../../resources/define.ts';

/** The path of the live event stream. */
export const EVENT_STREAM_PATH = '/api/events/stream';

/** How soon an EventSource reconnects after the stream ends, ms (sent as `retry:`). */
const RECONNECT_MS = 3000;

/**
 * `GET /api/events/stream`: the key's user's events as Server-Sent Events, each `id: <event id>` and
 * `data: {id, type, created, data}` (the webhooks' payload). `Last-Event-ID` (or `?last_event_id=`)
 * resumes after that event while the outbox keeps it; otherwise the stream starts now.
 */
export function eventStreamRoutes(s: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(EVENT_STREAM_PATH, async (c) => {
    const user = c.get('user');
    const release = s.streams.admit(user.id);
    if (!release) {
      // A stream ends when its client leaves; EventSource retries after its own delay anyway.
      c.header('Retry-After', String(RECONNECT_MS / 1000));
      throw new ApiError(429, `At most ${s.config.eventStreamsPerUser} event streams of a user may be open at once: close one first.`);
    }
    let cursor: string;
    try {
      cursor = await s.streams.start(c.req.header('last-event-id') ?? c.req.query('last_event_id'));
    } catch (err) {
      release();
      throw err;
    }
    // Proxies that buffer (nginx) would hold the events back.
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      // The client going (its request aborted, or the response's body cancelled) ends the stream at once.
      const left = new AbortController();
      const leave = () => left.abort();
      c.req.raw.signal.addEventListener('abort', leave, { once: true });
      stream.onAbort(leave);
      try {
        await stream.write(`: events of user ${user.id}\nretry: ${RECONNECT_MS}\n\n`);
        // Disabling the user ends the stream within a poll (its keys are refused from then on).
        let disabled = false;
        const stillAllowed = () => {
          const known = s.disabledUsers.atHand(user.id);
          if (known === undefined) void s.disabledUsers.check(user.id).then((off) => void (disabled ||= off), () => undefined);
          return !(disabled ||= known === true);
        };
        await s.streams.follow(user.id, cursor, {
          event: (placed) => stream.writeSSE({ id: placed.event.eventId, data: eventBody(placed.event) }),
          heartbeat: () => stream.write(': heartbeat\n\n').then(() => undefined),
          get gone() {
            return stream.aborted || stream.closed || left.signal.aborted || !stillAllowed();
          },
          signal: left.signal,
        });
      } catch (err) {
        // The store failed (a database gone): the stream ends, and the client resumes from its last id.
        s.log.warn('an event stream ended on an error', { user: user.id, error: String(err) });
      } finally {
        c.req.raw.signal.removeEventListener('abort', leave);
        release();
      }
    });
  });
  return routes;
}
