import { generateApiKey } from '../auth/keys.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { seededRandom } from '../random.ts';
import { startServer } from '../server.ts';
import type { RunningServer } from '../server.ts';
import { DEMO_EMAIL, buildDemo } from './build.ts';

/** A running demo: the server and its demo user's key. */
export interface DemoServer extends RunningServer {
  email: string;
  apikey: string;
}

/** The demo's environment: in memory always; loopback unless HOST says otherwise. */
export function demoEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return { HOST: '127.0.0.1', ...env, DATA_DIR: ':memory:', SEED: undefined, TEST_MODE: undefined };
}

/**
 * Starts the server in memory with the demo data (see buildDemo) ending now. The demo user's key
 * is ADMIN_API_KEY when set, else a new one; it is printed with where to look first.
 */
export async function startDemo(configIn: Config, options: { log: Logger; print?: (line: string) => void; now?: number }): Promise<DemoServer> {
  const config: Config = { ...configIn, dataDir: ':memory:', seed: undefined, testMode: false };
  const apikey = config.adminApiKey ?? generateApiKey();
  const fixtures = await buildDemo({ now: options.now ?? Date.now(), apikey, baseUrl: config.baseUrl });
  const running = await startServer(config, { log: options.log, fixtures, random: seededRandom('demo-server'), print: () => {} });
  const print = options.print ?? console.log;
  const origin = running.config.baseUrl;
  print(`Demo running on ${running.url} (in memory: everything goes when it stops)`);
  print(`Demo user: ${DEMO_EMAIL} (admin)   API key: ${apikey}`);
  print(`  curl -H "Authorization: Bearer ${apikey}" ${origin}/api/urls`);
  print(`  curl -H "Authorization: Bearer ${apikey}" ${origin}/api/v1/websites`);
  print(`  Stats page: ${origin}/stats/acme-shop.com   Rotator: ${origin}/r/spring-sale   Short link: ${origin}/pricing`);
  return { ...running, email: DEMO_EMAIL, apikey };
}
