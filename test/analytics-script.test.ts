import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { TRACKER_SCRIPT } from '../src/analytics/tracker-script.ts';

/** Runs the tracking script against a minimal fake browser and records what it sends. */
function runScript(opts: { dnt?: boolean; dataDnt?: string; beacon?: boolean } = {}) {
  const sent: { url: string; body: Record<string, unknown>; via: string }[] = [];
  const listeners: Record<string, (() => void)[]> = {};
  const location = { href: 'https://example.com/a' };
  const sandbox: Record<string, unknown> = {
    document: {
      currentScript: { src: 'https://stats.example/js/script.js', getAttribute: (name: string) => (name === 'data-dnt' ? (opts.dataDnt ?? null) : null) },
      referrer: 'https://ref.example/',
      visibilityState: 'visible',
      addEventListener() {},
    },
    navigator: {
      doNotTrack: opts.dnt ? '1' : null,
      sendBeacon: (url: string, body: string) => {
        if (opts.beacon === false) return false;
        sent.push({ url, body: JSON.parse(body), via: 'beacon' });
        return true;
      },
    },
    fetch: (url: string, init: { body: string; keepalive: boolean }) => {
      sent.push({ url, body: JSON.parse(init.body), via: init.keepalive ? 'fetch keepalive' : 'fetch' });
      return Promise.resolve();
    },
    location,
    history: {
      pushState(_state: unknown, _title: string, url: string) {
        location.href = new URL(url, location.href).href;
      },
    },
    screen: { width: 1280, height: 800 },
    addEventListener: (name: string, fn: () => void) => (listeners[name] ??= []).push(fn),
    JSON,
    URL,
  };
  sandbox.window = sandbox;
  vm.runInNewContext(TRACKER_SCRIPT, sandbox);
  const history = sandbox.history as { pushState(s: unknown, t: string, u: string): void };
  const pa = sandbox.pa as { track(e: unknown): void };
  return { sent, listeners, location, history, pa };
}

test('the script sends a pageview on load, on pushState and on popstate, and custom events', () => {
  const { sent, history, listeners, location, pa } = runScript();
  assert.deepEqual([...sent], [{ url: 'https://stats.example/api/event', body: { page: 'https://example.com/a', referrer: 'https://ref.example/', screen_resolution: '1280x800' }, via: 'beacon' }]);
  history.pushState({}, '', '/b?x=1');
  assert.deepEqual(sent[1]?.body, { page: 'https://example.com/b?x=1', referrer: 'https://example.com/a', screen_resolution: '1280x800' });
  history.pushState({}, '', '/b?x=1');
  assert.equal(sent.length, 2, 'the same URL again is no new pageview');
  location.href = 'https://example.com/a';
  for (const fn of listeners.popstate ?? []) fn();
  assert.deepEqual(sent[2]?.body.page, 'https://example.com/a');
  pa.track({ name: 'signup', value: 2, unit: 'eur' });
  pa.track({ value: 1 });
  assert.deepEqual(sent[3]?.body.event, { name: 'signup', value: 2, unit: 'eur' });
  assert.equal(sent.length, 4, 'an event without a name is not sent');
});

test('the script falls back to fetch with keepalive; it honours Do-Not-Track only when asked', () => {
  assert.equal(runScript({ beacon: false }).sent[0]?.via, 'fetch keepalive');
  const quiet = runScript({ dnt: true, dataDnt: 'true' });
  quiet.history.pushState({}, '', '/c');
  quiet.pa.track({ name: 'x' });
  assert.deepEqual(quiet.sent, []);
  assert.equal(runScript({ dnt: true }).sent.length, 1, 'without data-dnt the snippet did not ask');
  assert.equal(runScript({ dataDnt: 'true' }).sent.length, 1, 'no DNT signal: tracked');
});

test("the script's track() takes a name and properties, or an object with properties; the name/value/unit form is unchanged", () => {
  const { sent, pa } = runScript();
  const track = pa.track as (event: unknown, props?: unknown) => void;
  track('Signup', { plan: 'pro', seats: 2, trial: true, skipped: null, nan: Number.NaN, when: { y: 1 } });
  assert.deepEqual(sent[1]?.body.event, { name: 'Signup', value: null, unit: null, properties: { plan: 'pro', seats: 2, trial: true, nan: 'NaN', when: '[object Object]' } });
  track({ name: 'Purchase', value: 9.5, unit: 'eur', properties: { plan: 'team' } });
  assert.deepEqual(sent[2]?.body.event, { name: 'Purchase', value: 9.5, unit: 'eur', properties: { plan: 'team' } });
  track('Plain');
  track('Empty', {});
  assert.deepEqual([sent[3]?.body.event, sent[4]?.body.event], [{ name: 'Plain', value: null, unit: null }, { name: 'Empty', value: null, unit: null }], 'no properties: none sent');
  track('', { plan: 'pro' });
  assert.equal(sent.length, 5, 'an event without a name is not sent');
});
