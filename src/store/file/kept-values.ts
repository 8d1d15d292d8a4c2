import { readFile } from 'node:fs/promises';
import { DataFileError, writeAtomically } from './atomic-file.ts';

/** The file beside the collections that keeps the store's named values (server secrets) for good. */
export const KEPT_VALUES_FILE = 'kept-values.json';

/**
 * Reads the kept values: `{name: value}`, empty when there is no file yet. A damaged file stops the
 * start (DataFileError): answering a new secret instead would silently change what users were told.
 */
export async function loadKeptValues(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new DataFileError(file, (err as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DataFileError(file, (err as Error).message);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw new DataFileError(file, 'not an object of text values');
  }
  return { ...(parsed as Record<string, string>) };
}

/** Writes the kept values atomically (0600, like every file of the store: they are secrets). */
export async function saveKeptValues(file: string, values: Readonly<Record<string, string>>): Promise<void> {
  await writeAtomically(file, [`${JSON.stringify(values, null, 2)}\n`]);
}
