/** The benchmark's peer, json-server, installed on demand from bench/peer's own lockfile. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PEER_DIR = fileURLToPath(new URL('peer/', import.meta.url));

/** json-server's entry point, relative to the repository root (where every process starts). */
export const JSON_SERVER_BIN = 'bench/peer/node_modules/json-server/lib/bin.js';

/** The json-server version bench/peer pins. */
export const JSON_SERVER_VERSION: string = JSON.parse(readFileSync(PEER_DIR + 'package.json', 'utf8')).dependencies['json-server'];

function installedVersion(): string | null {
  try {
    return JSON.parse(readFileSync(PEER_DIR + 'node_modules/json-server/package.json', 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * Installs json-server into bench/peer/node_modules (`npm ci` from its lockfile) unless the pinned
 * version is there already. It is no devDependency: 1.0.0-beta.15 declares Node >=22.12, which
 * made every `npm install` of the project warn (EBADENGINE) for a benchmark-only peer; the last
 * versions that declare Node 18 (beta.3) answer the same requests but lists ~10× slower, which
 * would change what the comparison means. It runs on Node 20 for these two requests.
 */
export async function installPeer(log: (line: string) => void): Promise<void> {
  if (installedVersion() === JSON_SERVER_VERSION) return;
  log(`installing json-server ${JSON_SERVER_VERSION} into bench/peer (once)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await new Promise<void>((resolve, reject) => {
    // --loglevel=error: the engine notice is expected here (see above), not news for whoever runs the bench.
    const child = spawn(npm, ['ci', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PEER_DIR, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`installing json-server failed (npm ci exited ${code})`))));
  });
}
