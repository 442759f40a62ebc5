/**
 * When to try again, and how long to wait.
 *
 * @module
 */

/** Bounded retries with exponential backoff and jitter. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  readonly maxAttempts: number;
  /** Backoff before the first retry, in milliseconds; doubled for each further one. */
  readonly initialBackoffMs: number;
  /** Longest backoff, and longest `Retry-After` honoured, in milliseconds. */
  readonly maxBackoffMs: number;
}

/** 4 attempts, 250 ms doubling up to 30 s. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, initialBackoffMs: 250, maxBackoffMs: 30_000 };

/**
 * Backoff before retry number `retry` (1-based): half of the exponential step plus a random
 * share of the other half, so clients that failed together spread out.
 */
export function backoffMs(policy: RetryPolicy, retry: number): number {
  const exponent = Math.min(Math.max(retry - 1, 0), 16);
  const step = Math.min(policy.initialBackoffMs * 2 ** exponent, policy.maxBackoffMs);
  const half = step / 2;
  return Math.round(half + half * Math.random());
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds or an HTTP date
 * (a date in the past gives 0). `undefined` when absent or unreadable. Seconds beyond what
 * a number holds exactly stay huge (up to `Infinity`), never small: callers compare the
 * wait with the longest they accept, and waits of any length are chained timers.
 */
export function retryAfterMs(headers: Headers, name = "retry-after"): number | undefined {
  const value = headers.get(name)?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const when = Date.parse(value);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, when - Date.now());
}

/** Whether repeating a request with `method` cannot apply it twice (RFC 9110). */
export function isIdempotent(method: string): boolean {
  return method === "GET" || method === "PUT" || method === "DELETE" || method === "HEAD" || method === "OPTIONS";
}
