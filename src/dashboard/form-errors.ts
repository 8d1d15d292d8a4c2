import type { ApiError } from '../errors.ts';

// Where the API's message names its field: `Invalid x…`, `Missing required parameter: x`, or `data.x: …` (QR data).
const NAMED = /^(?:Invalid ([\w.]+)|Missing required parameter: ([\w.]+)|(data\.[\w.]+):)/;

/** The API's path of the field a refusal is about ('links.0.url', 'data.phone'), or '' when it names none. */
export function refusedPath(err: ApiError, known: readonly string[]): string {
  const fromIssues = Object.keys(err.fields ?? {})[0];
  if (fromIssues && fromIssues !== 'body') return fromIssues;
  const named = NAMED.exec(err.message);
  if (named) return named[1] ?? named[2] ?? named[3] ?? '';
  // A sentence of a hook ("That alias is taken", "Logo must be…"): the first form field it names.
  return known.find((name) => new RegExp(`\\b${name.replace(/_/g, ' ')}\\b`, 'i').test(err.message)) ?? '';
}

/**
 * The API's refusal as a message beside the form field it is about: the field is the path with `.`
 * as `_` when the form has one so named (data.phone: data_phone), else its first part (links.2.url:
 * links), else 'form' (shown above the form).
 */
export function errorsByField(err: ApiError, known: readonly string[]): Record<string, string> {
  const path = refusedPath(err, known);
  const whole = path.replace(/\./g, '_');
  const field = known.includes(whole) ? whole : known.find((name) => name === path.split('.')[0]) ?? 'form';
  // Beside its own field, the API's `data.x: ` (QR data) says nothing the field does not.
  const message = field !== 'form' && path !== '' && err.message.startsWith(`${path}: `) ? err.message.slice(path.length + 2) : err.message;
  return { [field]: message };
}
