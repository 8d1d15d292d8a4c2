import * as v from 'valibot';

/** The Laravel name of a field in messages: `exclude_ips` → "exclude ips". */
export function attribute(field: string): string {
  return field.replace(/_/g, ' ');
}

// Form fields arrive as strings; JSON may carry real numbers and booleans.
function toInteger(input: unknown): number {
  if (typeof input === 'number') return input;
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input !== 'string') return Number.NaN;
  const text = input.trim().toLowerCase();
  if (text === 'true') return 1;
  if (text === 'false') return 0;
  return /^-?\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
}

/** An integer field taking one of `allowed` ("1", 1, "true" and true all mean 1). */
export function choiceField<const T extends readonly number[]>(field: string, allowed: T) {
  return v.pipe(v.unknown(), v.transform(toInteger), v.picklist(allowed, `The selected ${attribute(field)} is invalid.`));
}

/** A boolean field: true/false, 1/0, "true"/"false", "1"/"0". */
export function booleanField(field: string) {
  return v.pipe(
    v.unknown(),
    v.transform(toInteger),
    v.picklist([0, 1], `The ${attribute(field)} field must be true or false.`),
    v.transform((n) => n === 1),
  );
}

/** A string field of at most `max` characters. */
export function textField(field: string, max: number) {
  return v.pipe(v.string(`The ${attribute(field)} must be a string.`), v.maxLength(max, `The ${attribute(field)} must not be greater than ${max} characters.`));
}

/** The non-blank lines of a list field, trimmed, one per line. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A "one per line" text field, stored with blank lines dropped and each line trimmed. */
export function linesField(field: string, max: number) {
  return v.pipe(textField(field, max), v.transform((text) => linesOf(text).join('\n')));
}

/** A `YYYY-MM-DD` calendar date. */
export function dateField(field: string) {
  const message = `The ${attribute(field)} does not match the format Y-m-d.`;
  return v.pipe(
    v.string(message),
    v.regex(/^\d{4}-\d{2}-\d{2}$/, message),
    v.check((s) => {
      const ms = Date.parse(`${s}T00:00:00Z`);
      return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(s);
    }, `The ${attribute(field)} is not a valid date.`),
  );
}
