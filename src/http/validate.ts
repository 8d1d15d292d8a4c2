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
  const body = parseJsonText(text);
  if (!body || typeof body !== 'object') throw new ApiError(400, 'The request body must be a JSON object.');
  return body as Record<string, unknown> | unknown[];
}

/**
 * Arrays and objects nested deeper than this are refused before JSON.parse sees them: no body of
 * either API needs a tenth of it, and parsing millions of levels (an 8 MB bulk body of brackets)
 * held the event loop for seconds.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * A request body's JSON text parsed: 400 when it is not JSON, nests deeper than MAX_JSON_DEPTH,
 * or holds a lone surrogate.
 */
export function parseJsonText(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new ApiError(400, `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
  refuseLoneSurrogates(text, body);
  return body;
}

/** Whether the brackets of JSON text `text` (outside its strings) open deeper than `limit` at some point; malformed text is left to JSON.parse. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one not escaped by an odd run of backslashes.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Throws a 400 when a parsed JSON body holds a lone surrogate (`"\ud800"`): text bytes cannot carry
 * one (invalid UTF-8 decodes to U+FFFD), only a JSON escape can, so the walk runs only then.
 */
function refuseLoneSurrogates(text: string, body: unknown): void {
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
