import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, UnknownOptionError, loadConfig, misspelledSettings } from '../src/config.ts';
import { closestName, editDistance } from '../src/closest-name.ts';
import { RESTART, restartDelay, workerCount } from '../src/workers/primary.ts';

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
  [{ WORKERS: '0' }, 'WORKERS'],
  [{ WORKERS: 'many' }, 'WORKERS'],
  [{ WORKERS: '2' }, 'WORKERS'],
  [{ RATE_LIMIT_ON_ERROR: 'ajar' }, 'RATE_LIMIT_ON_ERROR'],
  [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
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

test('an unknown flag or a stray word is refused, naming the nearest flag and never a value', () => {
  const cases: [string[], string][] = [
    [['--prot', '80'], 'Unknown option --prot: did you mean --port?'],
    [['--port=80', '--rate-limit-windw=5'], 'Unknown option --rate-limit-windw: did you mean --rate-limit-window?'],
    [['--hepl'], 'Unknown option --hepl: did you mean --help?'],
    [['-p', '80'], 'Unknown option -p: run --help for the list.'],
    [['--admin-key=sk_secret_value_000000'], 'Unknown option --admin-key: run --help for the list.'],
    [['--port', '80', 'sk_secret_value_000000'], 'Unexpected argument #3: settings are given as --flag value; run --help for the list.'],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => loadConfig({}, argv), (err: unknown) => err instanceof UnknownOptionError && err.message === message, argv.join(' '));
  }
});

test('environment variables near a setting name are reported with it; settings, other programs\' names and far ones are not', () => {
  const env = Object.fromEntries(
    ['RATE_LIMT', 'port', 'DATADIR', 'WORKER', 'BASE_URI', 'HOSTS', 'PASSWORD_ATTEMPTS_LIMIT', 'PORT', 'DATA_DIR', 'HOME', 'HOSTNAME', 'PATH', 'PGPORT', 'NODE_ENV', 'TEST_DATABASE_URL', 'DATABASE_USER', 'LANG', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'LOGNAME', 'npm_package_name'].map((name) => [name, 'x']),
  );
  assert.deepEqual(misspelledSettings(env), [
    { name: 'RATE_LIMT', setting: 'RATE_LIMIT' },
    { name: 'port', setting: 'PORT' },
    { name: 'DATADIR', setting: 'DATA_DIR' },
    { name: 'WORKER', setting: 'WORKERS' },
    { name: 'BASE_URI', setting: 'BASE_URL' },
    { name: 'HOSTS', setting: 'HOST' },
    { name: 'PASSWORD_ATTEMPTS_LIMIT', setting: 'PASSWORD_ATTEMPT_LIMIT' },
  ]);
});

test('editDistance counts a swap of neighbours as one edit; closestName offers only what is near', () => {
  const cases: [string, string, number][] = [['--prot', '--port', 1], ['port', 'port', 0], ['', 'abc', 3], ['HOME', 'HOST', 2], ['kitten', 'sitting', 3], ['ab', 'ba', 1]];
  for (const [a, b, d] of cases) assert.equal(editDistance(a, b), d, `${a} → ${b}`);
  // With a bound, the same answer where it is within it, else one past it (as soon as it is known).
  for (const [a, b, d] of cases) for (const bound of [0, 1, 2, 3]) assert.equal(editDistance(a, b, bound), Math.min(d, bound + 1), `${a} → ${b} within ${bound}`);
  assert.equal(editDistance('RATE_LIMIT_WINDOW', 'XDG_SESSION_TYPE', 2), 3);
  assert.equal(closestName('--prot', ['--host', '--port'], 2), '--port');
  assert.equal(closestName('--por', ['--port', '--pore'], 2), '--port', 'the first of equals');
  assert.equal(closestName('--frobnicate', ['--port', '--host'], 3), undefined);
});

test('workers, Redis and the limiters on error: defaults, values, and the file store refusing more than one worker', () => {
  const c = loadConfig({});
  assert.deepEqual([c.workers, c.redisUrl, c.redisPrefix, c.rateLimitOnError], [1, undefined, 'shortlink:public:', 'open']);
  const pg = loadConfig({ DATABASE_URL: 'postgres://u@db/x', DATABASE_SCHEMA: 'tenant_a', REDIS_URL: 'redis://:pw@cache:6379/2', RATE_LIMIT_ON_ERROR: 'closed' }, ['--workers', '8']);
  assert.deepEqual([pg.workers, pg.redisUrl, pg.redisPrefix, pg.rateLimitOnError], [8, 'redis://:pw@cache:6379/2', 'shortlink:tenant_a:', 'closed']);
  assert.equal(loadConfig({ WORKERS: 'auto', REDIS_PREFIX: 'links:' }).redisPrefix, 'links:');
  assert.equal(loadConfig({ WORKERS: 'auto' }).workers, 'auto');
  assert.throws(() => loadConfig({ WORKERS: '3' }), (err: Error) => err instanceof ConfigError && err.message.startsWith('Invalid WORKERS: 3 workers need DATABASE_URL'));
  assert.throws(() => loadConfig({ REDIS_URL: 'redis//:hunter2@cache' }), (err: Error) => err.message.includes('REDIS_URL') && !err.message.includes('hunter2'));
});

test('DATABASE_READ_URL: one or several replicas (a multi-host URL stays one), its lag bound, refused without DATABASE_URL or with a bad URL', () => {
  const primary = { DATABASE_URL: 'postgres://u:pw@db:5432/x' };
  assert.deepEqual([loadConfig(primary).databaseReadUrl, loadConfig(primary).databaseReadMaxLag], [[], 1]);
  const two = loadConfig({ ...primary, DATABASE_READ_URL: 'postgres://u:pw@r1:5432/x, postgresql://u@r2,r3:5433/x?sslmode=require', DATABASE_READ_MAX_LAG: '0.5' });
  assert.deepEqual(two.databaseReadUrl, ['postgres://u:pw@r1:5432/x', 'postgresql://u@r2,r3:5433/x?sslmode=require']);
  assert.equal(two.databaseReadMaxLag, 0.5);
  assert.throws(() => loadConfig({ DATABASE_READ_URL: 'postgres://u@r1/x' }), (err: Error) => err instanceof ConfigError && err.message.startsWith('Invalid DATABASE_READ_URL: replicas need DATABASE_URL'));
  for (const bad of ['postgres://u:hunter2@r1/x,mysql://u:hunter2@r2/x', 'r1:5432', 'postgres://u:hunter2@/x']) {
    assert.throws(() => loadConfig({ ...primary, DATABASE_READ_URL: bad }), (err: Error) => err instanceof ConfigError && err.message.startsWith('Invalid DATABASE_READ_URL') && !err.message.includes('hunter2'), bad);
  }
  assert.throws(() => loadConfig({ ...primary, DATABASE_READ_MAX_LAG: '0' }), /Invalid DATABASE_READ_MAX_LAG/);
});

test('DATABASE_URL: a host, or a Unix socket directory as ?host=; neither is refused without echoing the password', () => {
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://u:pw@db:5432/x' }).databaseUrl, 'postgres://u:pw@db:5432/x');
  assert.equal(loadConfig({ DATABASE_URL: 'postgresql://u@/x?host=/var/run/postgresql' }).databaseUrl, 'postgresql://u@/x?host=/var/run/postgresql');
  for (const bad of ['postgres://u:hunter2@/x', 'postgres:///x?port=5432&password=hunter2', 'mysql://u:hunter2@db/x']) {
    assert.throws(() => loadConfig({ DATABASE_URL: bad }), (err: Error) => err instanceof ConfigError && err.message.startsWith('Invalid DATABASE_URL') && !err.message.includes('hunter2'), bad);
  }
});

test('WORKERS=auto: one per core on PostgreSQL, one on the JSON files; restarts back off while a worker dies young', () => {
  assert.equal(workerCount({ workers: 'auto', databaseUrl: 'postgres://db/x' }, 6), 6);
  assert.equal(workerCount({ workers: 'auto', databaseUrl: undefined }, 6), 1);
  assert.equal(workerCount({ workers: 3, databaseUrl: 'postgres://db/x' }, 6), 3);
  const delays: number[] = [];
  let last = 0;
  for (let i = 0; i < 9; i++) delays.push((last = restartDelay(1000, last)));
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(restartDelay(RESTART.STABLE_MS, 30000), 500, 'a worker that lived 10 s starts again at the first delay');
});
