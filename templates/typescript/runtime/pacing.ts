/**
 * Client-side pacing under the service's rate limit, shared by everything that uses one
 * core, and the pause a 429 imposes on all of them.
 *
 * @module
 */

/**
 * Waits `ms` milliseconds; rejects with the signal's reason as soon as `signal` aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && signal === undefined) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * At most `requests` sends in any window of `windowMs` (a sliding log, so no window of the
 * service's, fixed or sliding, sees more), plus a pause after a 429's `Retry-After` that
 * holds every request of the core, not only the one that was refused.
 */
export class Pacer {
  readonly #limit: { readonly requests: number; readonly windowMs: number } | undefined;
  /** Send times within the last window, oldest first (a ring would save little at 100-200). */
  readonly #sent: number[] = [];
  #pausedUntil = 0;

  /** `undefined`: no pacing (only `Retry-After` pauses apply). */
  constructor(limit?: { requests: number; windowMs: number }) {
    this.#limit =
      limit === undefined ? undefined : { requests: Math.max(1, Math.floor(limit.requests)), windowMs: limit.windowMs };
  }

  /** Waits until a request may be sent, and records it as sent. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const wait = this.#tryAcquire(Date.now());
      if (wait === 0) return;
      await sleep(wait, signal);
    }
  }

  /** 0 when the request may go now (and is recorded); otherwise how long to wait. */
  #tryAcquire(now: number): number {
    if (this.#pausedUntil > now) return this.#pausedUntil - now;
    const limit = this.#limit;
    if (limit === undefined) return 0;
    while (this.#sent.length > 0 && now - (this.#sent[0] ?? now) >= limit.windowMs) this.#sent.shift();
    if (this.#sent.length < limit.requests) {
      this.#sent.push(now);
      return 0;
    }
    const oldest = this.#sent[0] ?? now;
    return Math.max(1, oldest + limit.windowMs - now);
  }

  /** Holds every request until `ms` from now (after a 429 with `Retry-After`). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
  }
}
