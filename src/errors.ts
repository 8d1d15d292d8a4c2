/** The one error type handlers throw; the app's error handler renders it in each API's own shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Per-field messages, for the analytics API's 422 body. */
    readonly fields?: Record<string, string[]>,
    /** More of the link-management API's body, beside `error` and `message` (a bulk request's per-item results). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Messages the real product uses (../shared/spec/compat-notes.md). */
export const MESSAGES = {
  invalidKey: 'A valid API key is required to use this service.',
  expiredKey: 'The API key has expired. A valid API key is required to use this service.',
  forbidden: 'You do not have permission to access this endpoint.',
  tooMany: 'Too Many API Requests.',
  notFound: 'Not found.',
  internal: 'An internal error occurred. Please try again later.',
  unavailable: 'The service is temporarily unavailable. Please try again in a moment.',
} as const;
