/**
 * Client-side pacing under the service's rate limit, shared by everything that uses one
 * core, and the pause a 429 imposes on all of them.
 *
 * @module
 */

/**
 * The longest delay a platform timer takes: Node fires a `setTimeout` of more than
 * 2^31 - 1 ms at once (browsers likewise), so a longer wait is made of several timers.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once, `ms` milliseconds from now, however long that is: a wait beyond what
 * one platform timer holds is chained, and `Infinity` never fires. `NaN` or a negative
 * delay fires at the next turn. Returns what cancels it.
 */
export function after(ms: number, fn: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cancelled = false;
  const deadline = Number.isNaN(ms) ? 0 : ms;
  const start = Date.now();
  const arm = (left: number): void => {
    if (cancelled) return;
    timer = setTimeout(() => {
      // Timers drift; the clock says how much is really left.
      const rest = deadline - (Date.now() - start);
      if (left > MAX_TIMER_MS && rest > 0) arm(rest);
      else fn();
    }, Math.min(Math.max(0, left), MAX_TIMER_MS));
  };
  arm(deadline);
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

/**
 * Waits `ms` milliseconds (any length: see {@link after}); rejects with the signal's
 * reason as soon as `signal` aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0) && signal === undefined) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
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

  /**
   * Waits until a request may be sent, and records it as sent. `onWait` is told of each
   * wait before it starts: how long, and whether a 429's pause (rather than the window)
   * holds the request.
   */
  async acquire(signal?: AbortSignal, onWait?: (ms: number, held: boolean) => void): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = Date.now();
      const wait = this.#tryAcquire(now);
      if (wait === 0) return;
      onWait?.(wait, this.#pausedUntil > now);
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

  /** Holds every request until `ms` from now (after a 429 with `Retry-After`); `NaN` is no pause. */
  pauseFor(ms: number): void {
    if (ms > 0) this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
  }
}
