/** A file an import cannot read at all (not CSV, no header, a column it needs missing): nothing of it is imported. */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
}

/** One record of a CSV file and the line it starts on (1-based, the header being line 1). */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/** The longest cell taken, in characters: a quote left open would otherwise swallow the rest of a large file. */
export const MAX_CELL = 64 * 1024;

/**
 * The records of a CSV text that arrives in pieces (RFC 4180: `,` between cells, `"` around cells
 * holding commas, quotes or line breaks, `""` for a quote inside; CRLF or LF), one at a time: the
 * whole file is never held. A byte-order mark and blank lines are skipped. `delimiter` may be `;`
 * or a tab for files written by spreadsheets in other locales.
 */
export async function* csvRecords(pieces: AsyncIterable<string>, delimiter = ','): AsyncGenerator<CsvRecord> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  // After a closing quote: the next character decides whether it was `""` (an escaped quote) or the end.
  let quoteSeen = false;
  let line = 1;
  let startLine = 1;
  let first = true;
  let afterCr = false;
  const endCell = () => {
    cells.push(cell);
    cell = '';
  };
  for await (let piece of pieces) {
    if (first && piece.length > 0) {
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
      first = false;
    }
    for (let i = 0; i < piece.length; i++) {
      const ch = piece[i]!;
      if (ch !== '\n' && ch !== '\r') afterCr = false;
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (ch === '"') {
            cell += '"';
            continue;
          }
          quoted = false;
          // falls through: `ch` is read as outside quotes
        } else if (ch === '"') {
          quoteSeen = true;
          continue;
        } else {
          if (ch === '\n') line++;
          cell += ch;
          if (cell.length > MAX_CELL) throw new ImportFileError(`Line ${startLine}: a cell is longer than ${MAX_CELL} characters (a quote left open?).`);
          continue;
        }
      }
      if (ch === '"' && cell === '') {
        quoted = true;
      } else if (ch === delimiter) {
        endCell();
      } else if (ch === '\n' || ch === '\r') {
        // CRLF ends one record: the LF after a CR (maybe at the start of the next piece) ends nothing more.
        const lfAfterCr = ch === '\n' && afterCr;
        afterCr = ch === '\r';
        if (lfAfterCr) continue;
        endCell();
        const record = cells;
        cells = [];
        const at = startLine;
        line++;
        startLine = line;
        if (!(record.length === 1 && record[0] === '')) yield { cells: record, line: at };
      } else {
        cell += ch;
        if (cell.length > MAX_CELL) throw new ImportFileError(`Line ${startLine}: a cell is longer than ${MAX_CELL} characters.`);
      }
    }
  }
  if (quoted && !quoteSeen) throw new ImportFileError(`Line ${startLine}: a quoted cell is never closed.`);
  if (cell !== '' || cells.length > 0) {
    endCell();
    yield { cells, line: startLine };
  }
}

/** The delimiter of a CSV file from its first line: the one of `,`, `;` and tab found most often outside quotes (`,` on a tie). */
export function guessDelimiter(firstLine: string): string {
  const unquoted = firstLine.replace(/"[^"]*"/g, '');
  const count = (d: string) => unquoted.split(d).length - 1;
  const candidates = [',', ';', '\t'];
  return candidates.reduce((best, d) => (count(d) > count(best) ? d : best), ',');
}
