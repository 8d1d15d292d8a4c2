/** How long a failing delivery is retried, from its first failure, before its webhook is turned off. */
export const RETRY_FOR_MS = 24 * 3_600_000;

/** The first retry's delay; each next one doubles, up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 30_000;
export const RETRY_MAX_MS = 3_600_000;

/** What to do after a failed attempt: retry at `at` (epoch ms), or give up. */
export type AfterFailure = { retry: true; at: number; until: number } | { retry: false; until: number };

/**
 * The schedule of a failing delivery: `attempts` made so far (this one included), retried after
 * 30 s, 1 min, 2 min… doubling up to an hour, until 24 hours after the first failure; the last
 * attempt falls exactly then. `until` is that end (null before the first failure).
 */
export function afterFailure(now: number, attempts: number, until: number | null): AfterFailure {
  const end = until ?? now + RETRY_FOR_MS;
  if (now >= end) return { retry: false, until: end };
  const delay = Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);
  return { retry: true, at: Math.min(now + delay, end), until: end };
}
