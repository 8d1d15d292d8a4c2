import { FixtureError } from '../fixtures/read.ts';
import type { RawFixtures } from '../fixtures/read.ts';
import type { Resource } from '../resources/define.ts';
import { exportedCollections } from '../resources/table.ts';
import { ConflictError, FILES_COLLECTION, STATS_COLLECTION, StoreNotEmptyError, StoreUnavailableError } from '../store/store.ts';
import type { Store, StoredRecord } from '../store/store.ts';
import { EXPORT_FORMAT, describeCounts } from './export-all.ts';
import { apiRuleProblem } from '../fixtures/api-rules.ts';
import { fileProblem } from '../fixtures/defaults.ts';
import { splitContent } from './file-contents.ts';

/** Problems listed before an invalid file is refused: enough to see a pattern, not a flood. */
const MAX_PROBLEMS = 10;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The files' bytes taken out of their records (`content`, base64, as export --all writes them). */
function takeFileContents(data: Record<string, StoredRecord[]>): { records: Record<string, StoredRecord[]>; contents: Map<number, Uint8Array> } {
  const contents = new Map<number, Uint8Array>();
  const files = (data[FILES_COLLECTION] ?? []).map((r) => {
    const { record, bytes } = splitContent(r);
    if (bytes) contents.set(record.id, bytes);
    return record;
  });
  return { records: { ...data, ...(data[FILES_COLLECTION] ? { [FILES_COLLECTION]: files } : {}) }, contents };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Checks the `$export` header of a whole-store export; a per-user export is pointed to `import --email`. */
function checkHeader(raw: RawFixtures, source: string): Record<string, unknown> {
  const header = raw.$export;
  if (!isObject(header)) throw new FixtureError(`${source} has no "$export" header: import --all reads only files written by \`export --all\`.`);
  if (header.format !== EXPORT_FORMAT) throw new FixtureError(`${source} is not an export of this server (format ${JSON.stringify(header.format)}, expected "${EXPORT_FORMAT}").`);
  if (typeof header.version === 'number' && header.version > 1) throw new FixtureError(`${source} is an export of version ${header.version}; this server reads version 1 (upgrade it first).`);
  if (header.version !== 1) throw new FixtureError(`${source} has an invalid export version ${JSON.stringify(header.version)}.`);
  if (header.all !== true) {
    throw new FixtureError(`${source} is the export of one user${typeof header.email === 'string' ? ` (${header.email})` : ''}: add it to a user with \`import <file> --email <email>\`; import --all needs a file written by \`export --all\`.`);
  }
  if (!isObject(header.counts)) throw new FixtureError(`${source}: the "$export" header has no "counts".`);
  return header.counts;
}

/** What is wrong with one record, or null: id, owner, what the store's indexes read, a statistics day's shape. */
function recordProblem(row: Resource, r: unknown, ids: Set<number>, users: Set<number>): string | null {
  if (!isObject(r)) return 'is not an object';
  if (!Number.isSafeInteger(r.id) || (r.id as number) < 1) return `has no positive integer "id" (${JSON.stringify(r.id)})`;
  if (ids.has(r.id as number)) return 'has the id of another record';
  ids.add(r.id as number);
  if (row.owned) {
    if (!Number.isSafeInteger(r.userId)) return 'has no integer "userId" (its owner)';
    if (!users.has(r.userId as number)) return `belongs to user ${String(r.userId)}, who is not in the file`;
  }
  if (row.collection === STATS_COLLECTION && (typeof r.subject !== 'string' || typeof r.day !== 'string' || !DAY.test(r.day) || !isObject(r.counts))) {
    return 'is not a statistics day {subject, day: "YYYY-MM-DD", counts}';
  }
  if (row.collection === FILES_COLLECTION) {
    const problem = fileProblem(r);
    if (problem) return problem;
  }
  for (const [index, key] of Object.entries(row.indexes ?? {})) {
    try {
      const k = key(r as never);
      if (k !== null && k !== undefined && typeof k !== 'string') return `has an invalid ${index}`;
    } catch {
      return `lacks what its ${index} needs`;
    }
  }
  return apiRuleProblem(row, r);
}

/**
 * Checks a file for `import --all`: the header (format, version 1, `all: true`), no unknown
 * collection, counts that match (a file cut or edited is refused), and each record's basic shape:
 * a unique positive integer id and an owner that is a user of the file. Returns the records by
 * collection, every collection of the table present. Messages never quote a record: users hold hashes.
 */
export function checkAllExport(raw: RawFixtures, resources: readonly Resource[], source: string): Record<string, StoredRecord[]> {
  const counts = checkHeader(raw, source);
  // Users first: the owners every other record is checked against.
  const collections = ['users', ...exportedCollections(resources).filter((c) => c !== 'users')];
  for (const key of [...Object.keys(raw), ...Object.keys(counts)]) {
    if (!key.startsWith('$') && !collections.includes(key)) throw new FixtureError(`${source}: unknown collection "${key}".`);
  }
  const problems: string[] = [];
  const data: Record<string, StoredRecord[]> = {};
  const users = new Set<number>();
  for (const c of collections) {
    const records = raw[c] ?? [];
    if (!Array.isArray(records)) throw new FixtureError(`${source}: "${c}" is not a list of records.`);
    if ((counts[c] ?? 0) !== records.length) problems.push(`${c}: the header counts ${String(counts[c] ?? 0)} records, the file holds ${records.length}`);
    const row = resources.find((r) => r.collection === c)!;
    const ids = c === 'users' ? users : new Set<number>();
    records.forEach((r: unknown, i) => {
      const problem = recordProblem(row, r, ids, users);
      if (problem) problems.push(`${c} record ${i + 1}${isObject(r) && Number.isSafeInteger(r.id) ? ` (id ${String(r.id)})` : ''} ${problem}`);
    });
    data[c] = records as StoredRecord[];
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS).map((p) => `  ${p}`);
    if (problems.length > MAX_PROBLEMS) shown.push(`  … and ${problems.length - MAX_PROBLEMS} more`);
    throw new FixtureError(`Invalid export ${source}; nothing was imported:\n${shown.join('\n')}`);
  }
  return data;
}

/**
 * Fills an empty store with checked records, ids kept, in one transaction (`replaceAll`): if
 * anything fails, the store stays empty. A store holding anything is refused: `replaceAll` would
 * wipe it, and a merge is what `import --email` is for.
 */
export async function importAll(store: Store, data: Record<string, StoredRecord[]>): Promise<void> {
  try {
    const { records, contents } = takeFileContents(data);
    // The emptiness check runs in the import's own transaction: no write can come between the two.
    await store.replaceAll(records, { onlyIfEmpty: true, fileContents: contents });
  } catch (err) {
    if (err instanceof StoreNotEmptyError) {
      throw new FixtureError(
        `The target already holds data (${describeCounts(err.held)}): import --all fills an empty store only.\n` +
          'Choose a new data directory, database or DATABASE_SCHEMA. A server creates its admin user on its first start, ' +
          'so prepare a new database with `npm run cli -- migrate` rather than by starting a server on it.',
      );
    }
    if (err instanceof ConflictError) throw new FixtureError(`Two ${err.collection} records in the file have the same ${err.index}; nothing was imported.`);
    if (err instanceof StoreUnavailableError) throw err;
    throw new FixtureError(`The import failed; nothing was imported: ${(err as Error).message}`);
  }
}
