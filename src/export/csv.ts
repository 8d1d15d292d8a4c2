import type { Turns } from '../turns.ts';

/** One cell of a CSV file: text, or a number written as it is. */
export type CsvCell = string | number;

// Spreadsheets run a cell that starts with one of these as a formula (OWASP "CSV injection"):
// such text is written with a leading apostrophe, which they show as text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell as RFC 4180 writes it: quoted when it holds a quote, comma or line break; text that would start a formula prefixed with `'`. */
export function csvCell(cell: CsvCell): string {
  if (typeof cell === 'number') return String(cell);
  const safe = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV file (RFC 4180: CRLF line ends, a header row): `header`, then one line per row. */
export function csvOf(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return csvLines([header, ...rows]);
}

// Rows as CSV lines, each ended by CRLF.
function csvLines(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}

/** `{value, count}` rows as the CSV of a statistics name: columns `value,count`. */
export function statRowsCsv(rows: readonly { value: string; count: number }[]): string {
  return csvOf(['value', 'count'], rows.map((r) => [r.value, r.count]));
}

/** statRowsCsv written a few thousand rows at a time between turns of the event loop (`turns`): the same text. */
export async function statRowsCsvInTurns(rows: readonly { value: string; count: number }[], turns: Turns, per = 4096): Promise<string> {
  per = Math.max(1, Math.floor(per));
  const parts = ['value,count\r\n'];
  for (let at = 0; at < rows.length; at += per) {
    if (turns.due()) await turns.next();
    parts.push(csvLines(rows.slice(at, at + per).map((r) => [r.value, r.count])));
  }
  return parts.join('');
}
