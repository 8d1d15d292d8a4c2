import { ImportFileError, MAX_CELL } from './csv.ts';

/** One element of the list a JSON file holds, parsed, with its position in the list (1-based). */
export interface JsonItem {
  value: unknown;
  n: number;
}

/** The longest element taken, in characters. */
const MAX_ITEM = 16 * MAX_CELL;

/**
 * The elements of the list in a JSON text that arrives in pieces, one at a time: a top-level array,
 * or the array under `key` of a top-level object (Kutt's `{"data": [...], "total": …}`). Only one
 * element is held at once, so a large export never becomes one object in memory.
 */
export async function* jsonItems(pieces: AsyncIterable<string>, key = 'data'): AsyncGenerator<JsonItem> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  // The last string closed at depth 1 of a top-level object (a key, or a value), and the list's depth once found.
  let lastString = '';
  let listDepth = -1;
  let item: string | null = null;
  let n = 0;
  let ended = false;
  let started = false;
  for await (const piece of pieces) {
    for (let i = 0; i < piece.length; i++) {
      const ch = piece[i]!;
      // What follows the list (Kutt's "total") is not read.
      if (ended) continue;
      if (item !== null) {
        item += ch;
        if (item.length > MAX_ITEM) throw new ImportFileError(`Item ${n + 1} of the list is longer than ${MAX_ITEM} characters.`);
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') {
          inString = false;
          if (depth === 1 && listDepth < 0) lastString = text;
        } else if (depth === 1 && listDepth < 0 && text.length < 64) text += ch;
        continue;
      }
      if (/\s/.test(ch)) continue;
      if (!started) {
        started = true;
        if (ch !== '[' && ch !== '{') throw new ImportFileError('The file is not JSON: it must hold a list ([…]) or an object with a "data" list.');
        if (ch === '[') listDepth = 1;
      }
      if (ch === '"') {
        inString = true;
        text = '';
        if (depth === listDepth && item === null) item = ch;
        continue;
      }
      if (ch === '[' || ch === '{') {
        if (depth === listDepth && item === null) item = ch;
        depth++;
        if (listDepth < 0 && ch === '[' && depth === 2 && lastString === key) listDepth = 2;
        continue;
      }
      if (ch === ']' || ch === '}') {
        depth--;
        if (depth < 0) throw new ImportFileError('The file is not valid JSON: a bracket closes what was never opened.');
        if (depth === listDepth - 1 && listDepth > 0) {
          if (item !== null) yield parsed(item.slice(0, -1), ++n);
          item = null;
          ended = true;
        } else if (depth === listDepth && item !== null) {
          yield parsed(item, ++n);
          item = null;
        }
        continue;
      }
      if (ch === ',' && depth === listDepth) {
        if (item !== null) yield parsed(item.slice(0, -1), ++n);
        item = null;
        continue;
      }
      if (depth === listDepth && item === null) item = ch;
    }
  }
  if (!started) throw new ImportFileError('The file is empty.');
  if (listDepth < 0) throw new ImportFileError(`The file is JSON without a list: expected a list ([…]) or an object with a "${key}" list.`);
  if (!ended) throw new ImportFileError('The file ends before its list does (cut short?).');
}

function parsed(text: string, n: number): JsonItem {
  try {
    return { value: JSON.parse(text), n };
  } catch {
    throw new ImportFileError(`Item ${n} of the list is not valid JSON.`);
  }
}
