import * as v from 'valibot';
import type { Context } from 'hono';
import { ApiError } from '../errors.ts';
import { hasLoneSurrogate } from '../unicode.ts';

/** One sentence for the first problem Valibot found, naming the field. */
export function issueMessage(issue: v.BaseIssue<unknown>): string {
  const field = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  if (issue.kind === 'schema' && issue.type === 'object' && issue.input === undefined && field) {
    return `Missing required parameter: ${field}`;
  }
  // Our own messages are whole sentences (they end with a full stop); Valibot's defaults are not.
  if (/[.!?]$/.test(issue.message)) return issue.message;
  return field ? `Invalid ${field}: ${issue.message}.` : `Invalid input: ${issue.message}.`;
}

/** Every problem per field, for the analytics API's 422 body. */
export function issueFields(issues: readonly v.BaseIssue<unknown>[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = issue.path?.map((p) => String(p.key)).join('.') || 'body';
    (out[field] ??= []).push(issueMessage(issue));
  }
  return out;
}

/** Parses `input` with `schema` or throws a 400 (link API) / 422 (analytics API) ApiError. */
export function parseWith<T>(schema: v.GenericSchema<unknown, T>, input: unknown, status = 400): T {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const first = result.issues[0];
  throw new ApiError(status, first ? issueMessage(first) : 'Invalid input.', issueFields(result.issues));
}

/**
 * A request body that must be a JSON object: `{}` when empty, 415 with `unsupported` when the
 * content type is not JSON, 400 when it does not parse or is not an object.
 */
export function jsonObjectBody(text: string, contentType: string, unsupported: string): Record<string, unknown> {
  const body = jsonBody(text, contentType, unsupported);
  if (Array.isArray(body)) throw new ApiError(400, 'The request body must be a JSON object.');
  return body;
}

/** `jsonObjectBody`, but a JSON array is taken too (a bulk request's bare list). */
function jsonBody(text: string, contentType: string, unsupported: string): Record<string, unknown> | unknown[] {
  if (text.trim() === '') return {};
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) throw new ApiError(415, unsupported);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
  if (!body || typeof body !== 'object') throw new ApiError(400, 'The request body must be a JSON object.');
  refuseLoneSurrogates(text, body);
  return body as Record<string, unknown> | unknown[];
}

/**
 * Throws a 400 when a parsed JSON body holds a lone surrogate (`"\ud800"`): text bytes cannot carry
 * one (invalid UTF-8 decodes to U+FFFD), only a JSON escape can, so the walk runs only then.
 */
export function refuseLoneSurrogates(text: string, body: unknown): void {
  if (/\\u[dD][89a-fA-F]/.test(text) && hasLoneSurrogate(body)) {
    throw new ApiError(400, 'The request body holds invalid Unicode: a lone surrogate (\\uD800-\\uDFFF) without its pair.');
  }
}

const UNSUPPORTED = 'Unsupported Media Type: send the body as JSON with Content-Type: application/json.';

/** The JSON object body of a link-API request. */
export async function readJson(c: Context): Promise<Record<string, unknown>> {
  return jsonObjectBody(await c.req.text(), c.req.header('content-type') ?? '', UNSUPPORTED);
}

/** The JSON body of a link-API request that may also be an array (a bulk request). */
export async function readJsonValue(c: Context): Promise<Record<string, unknown> | unknown[]> {
  return jsonBody(await c.req.text(), c.req.header('content-type') ?? '', UNSUPPORTED);
}

/** A path id: a positive integer; anything else is treated as an id that does not exist. */
export function pathId(raw: string | undefined): number | null {
  return raw && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}
