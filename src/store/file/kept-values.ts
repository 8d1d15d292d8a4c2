import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** The store's named values (keptValue): the first one proposed for a name, kept for good in KEPT_VALUES_FILE (memory: until the process ends). */
export class KeptValues {
  /** The write of the file in progress: one at a time, each of the whole set. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | null,
    private values: Record<string, string>,
  ) {}

  /** The values in `dir`'s file, or none in memory (dir null). */
  static async open(dir: string | null): Promise<KeptValues> {
    const file = dir === null ? null : join(dir, KEPT_VALUES_FILE);
    return new KeptValues(file, file === null ? {} : await loadKeptValues(file));
  }

  /** The value kept under `name`, `proposed` kept first if there is none. */
  async value(name: string, proposed: string): Promise<string> {
    const held = this.values[name];
    if (held !== undefined) return held;
    // A value is answered only once it is durable, and a caller that came during the write of the
    // same name gets the value written.
    const write = this.writing.catch(() => {}).then(async () => {
      if (this.values[name] !== undefined) return;
      const values = { ...this.values, [name]: proposed };
      if (this.file) await saveKeptValues(this.file, values);
      this.values = values;
    });
    this.writing = write;
    await write;
    return this.values[name] ?? proposed;
  }
}
