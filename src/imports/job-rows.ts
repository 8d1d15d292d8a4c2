import { defineResource } from '../resources/define.ts';
import type { StoredRecord } from '../store/store.ts';
import type { RowResult } from './outcome.ts';

/** Where a job stands: waiting for a process, being run, done (every row reported), or stopped by a problem with the whole file. */
export type JobState = 'queued' | 'running' | 'finished' | 'failed';

/** An import job as stored (collection `imports`). */
export interface ImportJob extends StoredRecord {
  userId: number;
  format: string;
  dryRun: boolean;
  state: JobState;
  /** Rows of the file (known at upload), rows reported so far, and how they ended. */
  total: number;
  done: number;
  created: number;
  skipped: number;
  refused: number;
  /** Pieces of the file kept in `import_parts` until the job ends. */
  parts: number;
  /** When it may be taken next (epoch ms): now for a queued job, the end of the lease for a running one; null once it ended. */
  due: number | null;
  /** The process holding the lease, and how many times a process took the job up. */
  holder: string | null;
  attempts: number;
  /** Why a failed job stopped. */
  message: string | null;
  date: string;
  started: string | null;
  finished: string | null;
}

/** One piece of an uploaded file, `n` from 0. */
export interface ImportPart extends StoredRecord {
  job: number;
  n: number;
  text: string;
}

/** One piece of a job's report: rows `n * REPORT_PIECE + 1` to `(n + 1) * REPORT_PIECE`. */
export interface ImportResults extends StoredRecord {
  job: number;
  n: number;
  rows: RowResult[];
}

/** The collections of import jobs, their files and their reports. */
export const IMPORTS = 'imports';
export const IMPORT_PARTS = 'import_parts';
export const IMPORT_RESULTS = 'import_results';

/** Report rows per stored piece of a report. */
export const REPORT_PIECE = 100;

/** Width of a `due` key: epoch ms zero-padded, so that text order is time order. */
const DUE_WIDTH = 15;

/** The `due` index key of a time (epoch ms). */
export const dueKey = (ms: number): string => String(Math.max(0, Math.floor(ms))).padStart(DUE_WIDTH, '0');

/** The key of piece `n` of job `job` (file parts and report pieces alike). */
export const partKey = (job: number, n: number): string => `${job}:${n}`;

const emptyShape = { notFound: 'Import not found.', updated: '', deleted: '' };

/** Import jobs: rows without generic routes (routes/link-api/imports.ts answers for them), owned, kept out of a user's export. */
export const importJobs = defineResource<Record<string, never>, ImportJob>({
  name: 'import',
  collection: IMPORTS,
  api: 'link',
  owned: true,
  extension: true,
  wholeStoreOnly: true,
  fields: {},
  paths: {},
  listKey: 'imports',
  indexes: { due: (j) => (typeof j.due === 'number' ? dueKey(j.due) : null) },
  messages: emptyShape,
  example: () => ({}),
  entry: (j) => ({ id: j.id, state: j.state }),
});

/** The pieces of the files import jobs read. */
export const importParts = defineResource<Record<string, never>, ImportPart>({
  name: 'import part',
  collection: IMPORT_PARTS,
  api: 'link',
  owned: true,
  extension: true,
  wholeStoreOnly: true,
  fields: {},
  paths: {},
  listKey: 'parts',
  indexes: { part: (p) => partKey(p.job, p.n) },
  messages: emptyShape,
  example: () => ({}),
  entry: (p) => ({ job: p.job, n: p.n }),
});

/** The pieces of import jobs' per-row reports. */
export const importResults = defineResource<Record<string, never>, ImportResults>({
  name: 'import report',
  collection: IMPORT_RESULTS,
  api: 'link',
  owned: true,
  extension: true,
  wholeStoreOnly: true,
  fields: {},
  paths: {},
  listKey: 'results',
  indexes: { part: (p) => partKey(p.job, p.n) },
  messages: emptyShape,
  example: () => ({}),
  entry: (p) => ({ job: p.job, n: p.n }),
});
