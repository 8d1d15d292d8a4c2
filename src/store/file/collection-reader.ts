import { StringDecoder } from 'node:string_decoder';
import type { StoredRecord } from '../store.ts';
import type { CollectionFile } from './collection.ts';
import { checkCollectionFile } from './collection.ts';
import { ValueScanner, isSpace } from './value-scanner.ts';

type State =
  | 'start'
  | 'first-key' // after `{`: a key or `}`
  | 'key' // after `,`: a key
  | 'colon'
  | 'value'
  | 'after-value' // `,` or `}`
  | 'first-record' // after `"records":[`: a record or `]`
  | 'record' // after `,`: a record
  | 'after-record' // `,` or `]`
  | 'done';

/**
 * Parses a collection file given in pieces of any size, never holding more of it as one string
 * than a piece or one record: a file of 2,000,000 links (560 MB) is longer than the longest
 * string V8 makes. Records each on a line of their own (as the store writes them) are parsed a
 * piece at a time; anything else that is valid JSON is read too, by finding where each value
 * ends. Errors name the line.
 */
export class CollectionParser {
  private state: State = 'start';
  private line = 1;
  private key = '';
  private readonly top: Record<string, unknown> = {};
  private readonly records: StoredRecord[] = [];
  private readonly scanner = new ValueScanner();
  private scanning: 'key' | 'value' | 'record' | null = null;
  private scanLine = 1;
  /** Set when this piece's records could not be parsed at once: the rest of it goes line by line. */
  private lineByLine = false;

  /** Takes the next piece of text. */
  push(text: string): void {
    let i = 0;
    this.lineByLine = false;
    const n = text.length;
    if (this.scanning) {
      i = this.scanner.scan(text, 0);
      if (i === -1) return;
      this.finishScan();
    }
    while (i < n) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) {
        if (c === 0x0a) this.line++;
        i++;
        continue;
      }
      switch (this.state) {
        case 'start':
          if (c !== 0x7b) throw this.error('expected "{"');
          this.state = 'first-key';
          i++;
          continue;
        case 'first-key':
        case 'key':
          if (c === 0x7d && this.state === 'first-key') {
            this.state = 'done';
            i++;
            continue;
          }
          if (c !== 0x22) throw this.error('expected a key');
          break; // scanned below
        case 'colon':
          if (c !== 0x3a) throw this.error('expected ":"');
          this.state = 'value';
          i++;
          continue;
        case 'value':
          if (this.key === 'records' && c === 0x5b) {
            this.state = 'first-record';
            this.top.records = this.records;
            i++;
            continue;
          }
          break;
        case 'after-value':
          if (c === 0x2c) this.state = 'key';
          else if (c === 0x7d) this.state = 'done';
          else throw this.error('expected "," or "}"');
          i++;
          continue;
        case 'first-record':
        case 'record': {
          if (c === 0x5d && this.state === 'first-record') {
            this.state = 'after-value';
            i++;
            continue;
          }
          const next = this.recordLines(text, i);
          if (next !== -1) {
            i = next;
            continue;
          }
          break;
        }
        case 'after-record':
          if (c === 0x2c) this.state = 'record';
          else if (c === 0x5d) this.state = 'after-value';
          else throw this.error('expected "," or "]"');
          i++;
          continue;
        case 'done':
          throw this.error('unexpected text after the end');
      }
      // A key, a top-level value, or a record not on a line of its own: find its end.
      if (c === 0x2c || c === 0x3a || c === 0x5d || c === 0x7d) throw this.error(this.state === 'record' ? 'expected a record after ","' : 'expected a value');
      this.scanning = this.state === 'first-key' || this.state === 'key' ? 'key' : this.state === 'value' ? 'value' : 'record';
      this.scanLine = this.line;
      this.scanner.begin(c);
      i = this.scanner.scan(text, i);
      if (i === -1) return;
      this.finishScan();
    }
  }

  /** Ends the input: the parsed file, or an error naming what is missing. */
  end(): CollectionFile {
    if (this.scanning === 'value') {
      // A number at the very end of the input has nothing after it to end it.
      this.push(' ');
    }
    if (this.state !== 'done' || this.scanning) throw this.error('unexpected end of file');
    return checkCollectionFile(this.top);
  }

  // The store's own layout: each record alone on a line, `{...},` but the last. All the whole
  // lines of this piece that start records are one JSON array body, parsed at once (one call per
  // piece, not per record: as fast as parsing the whole file was). When that fails (another
  // layout, or a corrupt line), one line at a time, so that an error names its line; -1 when the
  // record here is not alone on a line after all, or its line goes on in the next piece.
  private recordLines(text: string, i: number): number {
    if (text.charCodeAt(i) !== 0x7b) return -1;
    if (this.lineByLine) return this.recordLine(text, i);
    this.lineByLine = true; // unless the batch below is read whole
    let end = text.lastIndexOf('\n');
    while (end > i) {
      const lineStart = text.lastIndexOf('\n', end - 1) + 1;
      if (text.charCodeAt(lineStart) === 0x7b) break;
      end = lineStart - 1; // the list's end `]}`, or anything else: left to the line-at-a-time path
    }
    if (end <= i) return this.recordLine(text, i);
    const batch = this.lines(text, i, end);
    let records: unknown;
    try {
      records = JSON.parse(`[${batch.body}]`);
    } catch {
      return this.recordLine(text, i);
    }
    const list = records as unknown[];
    for (const r of list) {
      if (!r || typeof r !== 'object' || !Number.isInteger((r as StoredRecord).id)) return this.recordLine(text, i);
    }
    for (const r of list) this.records.push(r as StoredRecord);
    this.lineByLine = false;
    for (let nl = text.indexOf('\n', i); nl !== -1 && nl < end; nl = text.indexOf('\n', nl + 1)) this.line++;
    this.state = batch.comma ? 'record' : 'after-record';
    return end;
  }

  /** The text from `i` to the newline at `end`, without a line end's `\r` and `,`. */
  private lines(text: string, i: number, end: number): { body: string; comma: boolean } {
    if (text.charCodeAt(end - 1) === 0x0d) end--;
    const comma = text.charCodeAt(end - 1) === 0x2c;
    return { body: text.slice(i, comma ? end - 1 : end), comma };
  }

  private recordLine(text: string, i: number): number {
    const nl = text.indexOf('\n', i);
    if (nl === -1) return -1;
    const line = this.lines(text, i, nl);
    let record: unknown;
    try {
      record = JSON.parse(line.body);
    } catch {
      return -1; // not one record per line after all: scanned
    }
    this.addRecord(record, this.line);
    this.state = line.comma ? 'record' : 'after-record';
    return nl;
  }

  private finishScan(): void {
    const what = this.scanning;
    this.scanning = null;
    const line = this.scanLine;
    this.line += this.scanner.newlines;
    let value: unknown;
    try {
      value = this.scanner.parse();
    } catch (err) {
      throw new Error(`line ${line}: ${(err as Error).message}`);
    }
    if (what === 'key') {
      this.key = value as string;
      this.state = 'colon';
    } else if (what === 'value') {
      this.top[this.key] = value;
      this.state = 'after-value';
    } else {
      this.addRecord(value, line);
      this.state = 'after-record';
    }
  }

  private addRecord(record: unknown, line: number): void {
    if (!record || typeof record !== 'object' || !Number.isInteger((record as StoredRecord).id)) {
      throw new Error(`line ${line}: every record needs an integer "id"`);
    }
    this.records.push(record as StoredRecord);
  }

  private error(problem: string): Error {
    return new Error(`line ${this.line}: ${problem}`);
  }
}

/** Reads a collection file from a stream of its bytes (multi-byte characters may be split between chunks). */
export async function readCollectionFile(source: AsyncIterable<Buffer | string>): Promise<CollectionFile> {
  const parser = new CollectionParser();
  const decoder = new StringDecoder('utf8');
  for await (const chunk of source) parser.push(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  parser.push(decoder.end());
  return parser.end();
}
