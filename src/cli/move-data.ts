import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { systemClock } from '../clock.ts';
import { RESOURCES, exportedCollections } from '../resources/table.ts';
import type { Store } from '../store/store.ts';
import { describeCounts, storeCounts, writeAllExport } from './export-all.ts';
import type { TextSink } from './export-all.ts';
import { readExportFile } from './export-reader.ts';
import { checkAllExport, importAll } from './import-all.ts';
import { NO_PROGRESS, progressOn } from './progress.ts';
import { CommandError } from './users.ts';
import type { CommandIo } from './users.ts';

type Values = Record<string, string | boolean | undefined>;

const progressOf = (values: Values, io: CommandIo, label: string, total: number) => (values.progress === true || io.stderr.isTTY ? progressOn(io.stderr, label, total) : NO_PROGRESS);

/**
 * Writes the export into `path` through a temporary file renamed at the end, so a failed export
 * never leaves a file that looks whole. Mode 0600: it holds every key and password hash.
 */
export async function toFile(path: string, write: (sink: TextSink) => Promise<void>): Promise<void> {
  const temp = `${path}.partial`;
  const stream = createWriteStream(temp, { mode: 0o600 });
  // Kept, not thrown from an event: the export stops at its next piece and says why.
  let failure: Error | null = null;
  stream.on('error', (err) => (failure ??= err));
  try {
    await once(stream, 'ready');
    await write(async (text) => {
      if (failure) throw failure;
      if (!stream.write(text)) await once(stream, 'drain');
    });
    stream.end();
    await finished(stream);
    await rename(temp, path);
  } catch (err) {
    stream.destroy();
    await rm(temp, { force: true });
    if ((err as NodeJS.ErrnoException).syscall) throw new CommandError(`Cannot write the export to ${path}: ${(err as Error).message}`);
    throw err;
  }
}

/** `export --all`: every collection, record and statistics day of the store, ids and hashes kept. */
export async function runExportAll(store: Store, values: Values, out: (line: string) => void, io: CommandIo): Promise<void> {
  // One snapshot for the counts and every record: a server writing meanwhile changes neither.
  const counts = await store.readSnapshot(async (view) => {
    const counts = await storeCounts(view, exportedCollections(RESOURCES));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const progress = progressOf(values, io, 'Exporting everything', total);
    const write = (sink: TextSink) => writeAllExport(view, counts, sink, systemClock.now(), progress);
    // stdout is the export itself; on Linux a write to a pipe or file completes before it returns.
    if (typeof values.output !== 'string') await write((text) => io.write(text));
    else await toFile(values.output, write);
    return counts;
  });
  if (typeof values.output !== 'string') return;
  // A summary only: the records themselves (with their hashes) are never printed.
  out(`Exported ${Object.values(counts).reduce((a, b) => a + b, 0)} records (${describeCounts(counts)}) to ${values.output}`);
}

/** `import --all <file>`: fills an empty store with an `export --all` file, ids and hashes kept. */
export async function runImportAll(store: Store, path: string, out: (line: string) => void): Promise<void> {
  const data = checkAllExport(await readExportFile(path), RESOURCES, path);
  const counts = Object.fromEntries(Object.entries(data).map(([c, records]) => [c, records.length]));
  // No progress indicator: the records go in as one transaction, a single step.
  await importAll(store, data);
  out(`Imported ${describeCounts(counts)}, ids kept.`);
}
