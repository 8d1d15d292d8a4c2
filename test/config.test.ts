import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults match the issue: port 3000, ./data, limit 30 per 60 s, registration off', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.dataDir, './data');
  assert.equal(c.baseUrl, 'http://localhost:3000');
  assert.equal(c.baseUrlExplicit, false);
  assert.equal(c.rateLimit, 30);
  assert.equal(c.rateLimitWindow, 60);
  assert.equal(c.openRegistration, false);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.bodyLimit, 1048576);
});

test('flags win over the environment, in both --flag value and --flag=value forms', () => {
  const c = loadConfig({ PORT: '4000', RATE_LIMIT: '5' }, ['--port', '5000', '--rate-limit=0', '--open-registration', 'on']);
  assert.equal(c.port, 5000);
  assert.equal(c.rateLimit, 0);
  assert.equal(c.openRegistration, true);
  assert.equal(c.baseUrl, 'http://localhost:5000');
});

test('BASE_URL is normalised to an origin without a trailing slash', () => {
  assert.equal(loadConfig({ BASE_URL: 'https://sho.rt/' }).baseUrl, 'https://sho.rt');
  assert.equal(loadConfig({ BASE_URL: 'https://sho.rt/' }).baseUrlExplicit, true);
});

const invalid: [Record<string, string>, string][] = [
  [{ PORT: 'abc' }, 'PORT'],
  [{ PORT: '70000' }, 'PORT'],
  [{ RATE_LIMIT: '-1' }, 'RATE_LIMIT'],
  [{ RATE_LIMIT_WINDOW: '0' }, 'RATE_LIMIT_WINDOW'],
  [{ PASSWORD_ATTEMPT_WINDOW: '0' }, 'PASSWORD_ATTEMPT_WINDOW'],
  [{ PASSWORD_ATTEMPT_LIMIT: 'ten' }, 'PASSWORD_ATTEMPT_LIMIT'],
  [{ OPEN_REGISTRATION: 'maybe' }, 'OPEN_REGISTRATION'],
  [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  [{ BASE_URL: 'ftp://x' }, 'BASE_URL'],
  [{ BASE_URL: 'not a url' }, 'BASE_URL'],
  [{ ADMIN_API_KEY: 'short' }, 'ADMIN_API_KEY'],
  [{ ADMIN_API_KEY: 'has spaces in the middle of it' }, 'ADMIN_API_KEY'],
];
for (const [env, name] of invalid) {
  test(`an invalid ${name} is refused with a message naming it`, () => {
    assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && err.message.includes(name));
  });
}

test('an empty variable counts as unset', () => {
  assert.equal(loadConfig({ ADMIN_API_KEY: '', PORT: '' }).adminApiKey, undefined);
  assert.equal(loadConfig({ PORT: '' }).port, 3000);
});

test('a bad ADMIN_API_KEY is refused without echoing it', () => {
  assert.throws(() => loadConfig({ ADMIN_API_KEY: 'tiny-key' }), (err: Error) => !err.message.includes('tiny-key'));
});

test('a flag without its value is refused', () => {
  assert.throws(() => loadConfig({}, ['--port']), /Missing value for --port/);
});
