import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The top-level blocks of a YAML file under `section:` (two-space indent), by name, as text. */
function blocksOf(text: string, section: string): Map<string, string> {
  const body = text.split(new RegExp(`^${section}:\\n`, 'm'))[1]?.split(/^\S/m)[0] ?? '';
  const out = new Map<string, string>();
  for (const part of body.split(/^(?= {2}[\w-]+:)/m)) {
    const name = /^ {2}([\w-]+):/.exec(part)?.[1];
    if (name) out.set(name, part);
  }
  return out;
}

/*
 * A static check: docker compose cannot run on every machine that runs the tests (nor in CI), so
 * this reads compose.yaml and the Caddyfile as text for what the deployment depends on.
 */
test('compose.yaml: PostgreSQL and Valkey with healthchecks and a volume, two instances on them, Caddy in front of both', async () => {
  const compose = await readFile(`${ROOT}compose.yaml`, 'utf8');
  const services = blocksOf(compose, 'services');
  assert.deepEqual([...services.keys()], ['postgres', 'valkey', 'app1', 'app2', 'proxy']);
  assert.match(services.get('postgres')!, /image: postgres:\d+/);
  assert.match(services.get('postgres')!, /- pgdata:\/var\/lib\/postgresql\/data/);
  for (const name of ['postgres', 'valkey', 'proxy']) assert.match(services.get(name)!, /healthcheck:\n\s+test: \[/, `${name} has a healthcheck`);
  assert.match(services.get('valkey')!, /image: valkey\/valkey:/);
  // Both instances are the one anchored definition: the same image, settings and dependencies.
  assert.equal(services.get('app1')!.trim(), 'app1: *app');
  assert.equal(services.get('app2')!.trim(), 'app2: *app');
  const app = compose.split(/^x-app: &app\n/m)[1]!.split(/^\S/m)[0]!;
  assert.match(app, /^ {2}build: \.$/m);
  assert.match(app, /DATABASE_URL: postgres:\/\/shortlink:\$\{POSTGRES_PASSWORD:-[^}]*\}@postgres:5432\/shortlink/);
  assert.match(app, /REDIS_URL: redis:\/\/valkey:6379/);
  assert.match(app, /WORKERS: auto/);
  assert.match(app, /TRUST_PROXY: "1"/);
  for (const dep of ['postgres', 'valkey']) assert.match(app, new RegExp(`${dep}:\\n\\s+condition: service_healthy`));
  // Ready, not merely alive: an instance whose database is unreachable is unhealthy, and the proxy's check goes through to one that is ready.
  assert.match(app, /^ {2}healthcheck:\n {4}test: \[.*http:\/\/127\.0\.0\.1:3000\/ready'/m);
  assert.match(services.get('proxy')!, /healthcheck:\n\s+test: \[.*"http:\/\/127\.0\.0\.1\/ready"\]/);
  assert.doesNotMatch(compose, /\/health\b/, 'no healthcheck of compose.yaml asks /health');
  assert.match(services.get('proxy')!, /- "8080:80"/);
  assert.match(services.get('proxy')!, /- \.\/deploy\/Caddyfile:\/etc\/caddy\/Caddyfile:ro/);
  for (const dep of ['app1', 'app2']) assert.match(services.get('proxy')!, new RegExp(`${dep}:\\n\\s+condition: service_healthy`));
  assert.deepEqual([...blocksOf(compose, 'volumes').keys()], ['pgdata', 'caddy-data']);

  // The instances listen where the image says (EXPOSE 3000), and Caddy asks both, health-checked.
  const dockerfile = await readFile(`${ROOT}Dockerfile`, 'utf8');
  assert.match(dockerfile, /^EXPOSE 3000$/m);
  const caddy = await readFile(`${ROOT}deploy/Caddyfile`, 'utf8');
  assert.match(caddy, /reverse_proxy app1:3000 app2:3000 \{/);
  assert.match(caddy, /health_uri \/ready$/m);
});
