import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './users.ts';

/**
 * The server's own directory (the repository, or the installed package): the nearest folder above
 * this module holding a package.json, whether it runs from src/cli/ or from the bundle in dist/.
 */
export const SERVER_ROOT = packageRoot(fileURLToPath(import.meta.url));

function packageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(from);
  }
}

/** The one folder of the server's directory that exports may be written to: git-ignored and left out of `npm pack`. */
export const EXPORTS_DIR = 'exports';

// A path through a symlink is judged by where it leads; one that does not exist yet, as written.
async function real(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Checks where an export is about to go: `output` (`--output`), or stdout when there is none.
 * Refused, as a UsageError: stdout when it is a terminal and `refuseTerminal` (every key hash would
 * land on the screen and in its scrollback), and a file inside the server's directory anywhere but
 * exports/ (one `git add -A` or `npm pack` away from being published). A file under exports/ gets
 * its folder made (0700) when missing.
 */
export async function checkExportTarget(output: string | undefined, stdoutIsTerminal: boolean, refuseTerminal: boolean, root = SERVER_ROOT): Promise<void> {
  if (output === undefined) {
    if (stdoutIsTerminal && refuseTerminal) throw new UsageError('Say where the export goes: --output <file> (outside the server\'s directory, e.g. ~/backups/shortlink.json), or redirect stdout; it is not printed on a terminal.');
    return;
  }
  const target = join(await real(dirname(resolve(output))), basename(output));
  const home = await real(root);
  const exports = join(home, EXPORTS_DIR);
  if (isInside(exports, target)) {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    return;
  }
  if (isInside(home, target)) throw new UsageError(`${output} is inside the server's directory (${home}): write exports elsewhere (e.g. ~/backups/), or under ${exports}/, which git and npm pack leave out.`);
}
