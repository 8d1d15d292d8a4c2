import { Hono } from 'hono';
import { ApiError, MESSAGES } from '../../errors.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { clientIp } from '../../http/client-ip.ts';
import { refuseOver } from '../../http/rate-limit.ts';
import { parseJsonText, parseWith } from '../../http/validate.ts';
import type { Services } from '../../resources/define.ts';
import { hostOfUrl } from '../../visits/domain.ts';
import { ipInRanges } from '../../visits/ip-range.ts';
import { agentOf } from '../../visits/user-agent.ts';
import { hourOf } from '../../visits/visitor.ts';
import { TRACKER_SCRIPT } from '../../analytics/tracker-script.ts';
import { TrackedEvent, countedPage, customEventTally, pageviewTally } from '../../analytics/visit-tally.ts';
import { propertiesProblem } from '../../analytics/event-properties.ts';
import type { WebsiteIndex } from '../../analytics/website-index.ts';
import { websiteSubject } from '../../analytics/website-subject.ts';

/** Largest tracking event body, bytes: a pageview is a few hundred. */
export const EVENT_BODY_LIMIT = 8 * 1024;

const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST, OPTIONS', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '86400' };
// The 202's empty body said as such: without a length, Node answers chunked (a terminating chunk written and read).
const EMPTY = { 'content-length': '0' };

/**
 * The tracking script and the event endpoint. Events need no key (they come from visitors'
 * browsers on the tracked site); errors use the link-management shape `{error: 1, message}`,
 * since /api/event is outside /api/v1. Accepted, dropped (bot, excluded IP) and counted events
 * all answer 202 with no body, so the answer tells a visitor nothing about the settings.
 */
export function eventRoutes(s: Services, websites: WebsiteIndex): Hono<AppEnv> {
  const counters = s.counters;
  const routes = new Hono<AppEnv>();
  const limiter = s.limits('event', s.config.eventRateLimit, s.config.rateLimitWindow * 1000);

  routes.get('/js/script.js', (c) =>
    c.body(TRACKER_SCRIPT, 200, { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' }),
  );

  routes.options('/api/event', (c) => c.body(null, 204, CORS));

  routes.post('/api/event', async (c) => {
    for (const [name, value] of Object.entries(CORS)) c.header(name, value);
    const ip = clientIp(c, s.config.trustProxy);
    refuseOver(c, await limiter?.hit(ip), s.clock.now());
    // sendBeacon posts text/plain; any type is read as JSON text.
    const text = await c.req.text();
    if (text.length > EVENT_BODY_LIMIT) throw new ApiError(413, `The event body is larger than ${EVENT_BODY_LIMIT} bytes.`);
    const body = parseJsonText(text);
    const event = parseWith(TrackedEvent, body);
    const problem = event.event?.properties ? propertiesProblem((body as { event: { properties: unknown } }).event.properties) : null;
    if (problem) throw new ApiError(400, `Invalid event.properties: ${problem}`);
    const host = hostOfUrl(event.page);
    const website = host === null ? undefined : await websites.find(host);
    if (!website) throw new ApiError(404, 'Website not found.');

    const ua = c.req.header('user-agent');
    if (website.exclude_bots === 1 && agentOf(ua).bot) return c.body(null, 202, EMPTY);
    if (ipInRanges(ip, websites.excludedIps(website))) return c.body(null, 202, EMPTY);

    const subject = websiteSubject(website.id);
    const at = s.clock.now();
    const meta = { owner: website.userId, at };
    if (event.event) {
      counters.record(subject, customEventTally(event.event), meta);
    } else {
      const headers = { userAgent: ua, acceptLanguage: c.req.header('accept-language'), place: s.geo.locate(ip, c.req.header(s.config.countryHeader)) };
      counters.recordVisit(subject, ip, ua ?? '', (seen) => pageviewTally(event, website, headers, hourOf(at).slice(11), seen), meta);
      counters.recordRealtime(subject, ip, ua ?? '', countedPage(event, website), at);
    }
    return c.body(null, 202, EMPTY);
  });
  return routes;
}
