/** The longest value scanned: a missing bracket would otherwise read the rest of a file into memory. */
const MAX_VALUE_CHARS = 256 * 1024 * 1024;

/** JSON whitespace. */
export const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const endsScalar = (c: number) => isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d; // , } ]

/**
 * Finds where one JSON value ends, across pieces of text; the value itself is checked by
 * JSON.parse once whole. Only records not written one per line (a file edited by hand) and the
 * few top-level values go through here.
 */
export class ValueScanner {
  private parts: string[] = [];
  private chars = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  private fresh = true;
  newlines = 0;

  /** Starts a value whose first character is `first` (not whitespace). */
  begin(first: number): void {
    this.parts = [];
    this.chars = 0;
    this.depth = first === 0x7b || first === 0x5b ? 1 : 0;
    this.inString = first === 0x22;
    this.escaped = false;
    this.scalar = this.depth === 0 && !this.inString;
    this.fresh = true;
    this.newlines = 0;
  }

  /** Scans from `pos`; the index just after the value's end, or -1 when the value goes on past `text`. */
  scan(text: string, pos: number): number {
    let i = pos;
    if (this.scalar) {
      while (i < text.length && !endsScalar(text.charCodeAt(i))) i++;
      return this.keep(text, pos, i, i < text.length);
    }
    if (this.fresh) i++; // the opening quote or bracket, counted by begin()
    this.fresh = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) {
          this.inString = false;
          if (this.depth === 0) return this.keep(text, pos, i + 1, true);
        }
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) return this.keep(text, pos, i + 1, true);
      } else if (c === 0x0a) this.newlines++;
    }
    return this.keep(text, pos, i, false);
  }

  private keep(text: string, from: number, to: number, complete: boolean): number {
    this.parts.push(text.slice(from, to));
    this.chars += to - from;
    if (this.chars > MAX_VALUE_CHARS) throw new Error(`a value longer than ${MAX_VALUE_CHARS / 1024 / 1024} M characters (a missing bracket?)`);
    return complete ? to : -1;
  }

  /** The whole value, parsed. */
  parse(): unknown {
    return JSON.parse(this.parts.length === 1 ? this.parts[0]! : this.parts.join(''));
  }
}

