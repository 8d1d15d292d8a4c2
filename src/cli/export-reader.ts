import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { FixtureError, readFixtures } from '../fixtures/read.ts';
import type { RawFixtures } from '../fixtures/read.ts';

/** How every file `export` writes begins: the layout the line reader below expects. */
const SIGNATURE = '{\n"$export":';

const KEY_LINE = /^("(?:[^"\\]|\\.)*"):(.*)$/;

/** The text of a line without a trailing comma (a JSON value never ends with one). */
const value = (line: string) => (line.endsWith(',') ? line.slice(0, -1) : line);

async function startsWithSignature(path: string): Promise<boolean> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    throw new FixtureError(`Cannot read ${path}: it does not exist or cannot be opened.`);
  }
  try {
    const head = Buffer.alloc(SIGNATURE.length + 1);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).toString('utf8').replace('\r\n', '\n').startsWith(SIGNATURE);
  } finally {
    await file.close();
  }
}

/**
 * Reads an export file. A file in the layout `export` writes (one key or record per line) is read
 * as a stream, a line at a time, so its size is not bounded by the longest string V8 makes and an
 * error names its line; any other valid JSON (a file edited or pretty-printed by hand) is parsed
 * whole. A file that ends early is refused: it is a cut copy, not an export.
 */
export async function readExportFile(path: string): Promise<RawFixtures> {
  if (!(await startsWithSignature(path))) return readFixtures(path);
  const out: RawFixtures = {};
  let state: 'start' | 'keys' | 'records' | 'done' = 'start';
  let records: unknown[] = [];
  let n = 0;
  const fail = (problem: string) => new FixtureError(`Invalid export ${path}, line ${n}: ${problem}.`);
  const parse = (text: string, what: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw fail(`${what} is not valid JSON`);
    }
  };
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const raw of lines) {
    n++;
    const line = raw.trimEnd();
    if (state === 'records') {
      if (line === ']' || line === '],') state = 'keys';
      else records.push(parse(value(line), 'the record'));
    } else if (state === 'start') {
      if (line !== '{') throw fail('expected "{"');
      state = 'keys';
    } else if (state === 'keys') {
      if (line === '}') {
        state = 'done';
        continue;
      }
      const m = KEY_LINE.exec(line);
      if (!m) throw fail('expected "<collection>": [');
      const key = parse(m[1]!, 'the key') as string;
      if (Object.hasOwn(out, key)) throw fail(`"${key}" appears twice`);
      if (m[2] === '[') {
        records = [];
        out[key] = records;
        state = 'records';
      } else out[key] = parse(value(m[2]!), `the value of "${key}"`);
    } else if (line !== '') throw fail('text after the end of the export');
  }
  if (state !== 'done') throw new FixtureError(`Invalid export ${path}: it ends early, after line ${n} (a copy cut short?).`);
  return out;
}
