import * as v from 'valibot';
import { ApiError } from '../errors.ts';
import { attribute } from './form-fields.ts';

/** Field → messages, the body of the analytics API's 422 (../shared/spec/compat-notes.md). */
export type FieldErrors = Record<string, string[]>;

/** The Laravel message of one Valibot issue: a missing field is "required", the rest carry their own sentence. */
function messageOf(issue: v.BaseIssue<unknown>, field: string): string {
  if (issue.kind === 'schema' && issue.type === 'object' && issue.input === undefined) return `The ${attribute(field)} field is required.`;
  return issue.message;
}

/** Adds `message` to `field` in `errors`. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Parses `input` with `schema`: the output, and every problem per field (one per field, like Laravel's `bail`). */
export function validate<T>(schema: v.GenericSchema<unknown, T>, input: unknown): { output: T | undefined; errors: FieldErrors } {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return { output: result.output, errors: {} };
  const errors: FieldErrors = {};
  for (const issue of result.issues) {
    const field = issue.path?.map((p) => String(p.key)).join('.') || 'body';
    addError(errors, field, messageOf(issue, field));
  }
  return { output: undefined, errors };
}

/** Throws the 422 when `errors` has any field. */
export function throwIfAny(errors: FieldErrors): void {
  const fields = Object.keys(errors);
  if (fields.length > 0) throw new ApiError(422, `The given data was invalid: ${fields.join(', ')}.`, errors);
}

/** Parses `input` with `schema` or throws the 422 with every field's problems. */
export function parseOr422<T>(schema: v.GenericSchema<unknown, T>, input: unknown): T {
  const { output, errors } = validate(schema, input);
  throwIfAny(errors);
  return output as T;
}
