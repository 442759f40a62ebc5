/**
 * What a client reports about its calls (observability): hooks in the client options,
 * called with one event object per thing that happens (an attempt sent, answered, retried,
 * a wait, a page of a walk, a failure). The same events, with the same meaning, as every
 * client of the service reports (tests/conformance/README.md, `expect_events`). No
 * dependency: a hook can feed OpenTelemetry, a logger or a metrics library.
 *
 * Guarantees: an event never holds a credential (key, token, password), a request or
 * response body, a path value (the URL is the path template) or a query string; a hook
 * that throws (or returns a promise that rejects) is ignored and the call goes on; with no
 * hook set, no event object is ever built.
 *
 * @module
 */

import {
  ApiError,
  ConfigError,
  DecodeError,
  ForeignOriginError,
  InterruptedError,
  NotReadyError,
  PagingStalledError,
  TimeoutError,
  TooLargeError,
  TransportError,
  ValidationError,
  WebhookError,
} from "./errors.js";

/** What every event has. */
export interface CallEvent {
  /** The spec's name of the operation (`get_unit`, `authenticate`). */
  readonly operation: string;
  /**
   * The call this event belongs to: a number unique within the client, the same for every
   * event of one call (a walk is one call, a re-login its own). A call's attempts never
   * overlap, so it is what ties an attempt's `request` to its `response` or `retry`.
   */
  readonly callId: number;
}

/** An attempt is about to be sent (after any pacing wait). */
export interface RequestEvent extends CallEvent {
  /** The HTTP method (`GET`). */
  readonly method: string;
  /** The operation's path as the spec writes it (`/units/{unit_id}`), never a concrete id. */
  readonly urlTemplate: string;
  /**
   * 1 for the first attempt, then 2, 3, ...: a retry, and the resend after a token re-login,
   * are the next attempt; each poll of a 202 (and each page of a walk) starts again at 1.
   */
  readonly attempt: number;
  /** The host of the base URL (`api.example.com`, `127.0.0.1`, `::1`). */
  readonly serverAddress: string;
  /** The port of the base URL (443 or 80 when it names none). */
  readonly serverPort: number;
}

/** An attempt was answered, whatever the status. */
export interface ResponseEvent extends CallEvent {
  /** The HTTP method of the operation. */
  readonly method: string;
  /** The operation's path template. */
  readonly urlTemplate: string;
  /** The attempt answered (as in its `RequestEvent`). */
  readonly attempt: number;
  /** The HTTP status (after same-origin redirects). */
  readonly status: number;
  /** Milliseconds from sending to the answer read (a download's body: to its headers). */
  readonly durationMs: number;
  /** The answer's `x-request-id` header, or `null`. */
  readonly requestId: string | null;
}

/** A failed attempt will be sent again. */
export interface RetryEvent extends CallEvent {
  /** The attempt that failed. */
  readonly attempt: number;
  /** `status`: an error status (429, 5xx); `timeout`: no answer in time; `connection`: the connection failed or the body broke off. */
  readonly reason: "status" | "timeout" | "connection";
  /** The status that failed, `null` unless `reason` is `status`. */
  readonly status: number | null;
  /** How long the client waits before the next attempt, in milliseconds. */
  readonly waitMs: number;
  /** Whether that wait is the service's `Retry-After`. */
  readonly retryAfter: boolean;
}

/** The client waits before an attempt for a reason other than a retry. */
export interface PauseEvent extends CallEvent {
  /**
   * `rate_limit`: the client's own pacing (or a 429 another request of the client met)
   * holds the request; reported only when it does wait. `poll`: a 202 (still preparing)
   * is asked again.
   */
  readonly reason: "rate_limit" | "poll";
  /** How long, in milliseconds. */
  readonly waitMs: number;
}

/** A page of a walk (`for await`, `pages()`, `backward()`, `pagesBackward()`) was read. */
export interface PageEvent extends CallEvent {
  /** 1 for the walk's first page, then 2, 3, ... */
  readonly page: number;
  /** How many records it held. */
  readonly items: number;
}

/** The call failed for good, after at least one attempt (a call refused by validation reports nothing). */
export interface ErrorEvent extends CallEvent {
  /**
   * The error's kind: `api`, `timeout`, `transport`, `decode`, `too_large`, `not_ready`,
   * `foreign_origin`, `paging_stalled`, `config`; for a walk interrupted past
   * its start, its page's error; `aborted` for the caller's `AbortSignal`; `unknown` else.
   */
  readonly errorType: string;
  /** The HTTP status of an `api` error, else `null`. */
  readonly status: number | null;
  /** The last attempt made. */
  readonly attempt: number;
}

/**
 * Hooks a client calls as it works (`ClientOptions.hooks`), each with a fresh event object,
 * synchronously and in order. Keep them quick: they run on the call's path. A hook that
 * throws, or returns a promise that rejects, is ignored: observing never breaks a call.
 */
export interface ClientHooks {
  /** An attempt is about to be sent. */
  onRequest?(event: RequestEvent): void;
  /** An attempt was answered (any status). */
  onResponse?(event: ResponseEvent): void;
  /** A failed attempt will be sent again. */
  onRetry?(event: RetryEvent): void;
  /** The client waits before an attempt: its own pacing, or a 202 polled. */
  onPause?(event: PauseEvent): void;
  /** A page of a walk was read. */
  onPage?(event: PageEvent): void;
  /** The call failed for good. */
  onError?(event: ErrorEvent): void;
}

/** One call's progress, kept only when hooks are set. */
export interface Trace {
  /** The call's `callId`. */
  readonly id: number;
  /** The attempt in flight (0 before the first). */
  attempt: number;
}

/**
 * Where a walk hands its call's trace to the page requests it makes (a property of their
 * `CallOptions` no caller can name).
 */
export const TRACE: unique symbol = Symbol("inspection-client trace");

/** Call options that may carry a walk's trace. */
export type Traced<O> = O & { readonly [TRACE]?: Trace };

/** The hooks of a client and the numbering of its calls. */
export class Observer {
  /** The hooks as given (their methods are looked up at each event). */
  readonly hooks: ClientHooks;
  #calls = 0;

  /** @throws {@link ConfigError} unless `hooks` is an object */
  constructor(hooks: ClientHooks) {
    if (typeof hooks !== "object" || hooks === null) throw new ConfigError("hooks must be an object of hook functions");
    this.hooks = hooks;
  }

  /** A new call's trace. */
  begin(): Trace {
    this.#calls += 1;
    return { id: this.#calls, attempt: 0 };
  }
}

/**
 * Calls `hook` (a method of `hooks`) with `event`; whatever it throws, or a promise it
 * returns rejects with, is dropped.
 */
export function notify<E>(hooks: ClientHooks, hook: ((event: E) => void) | undefined, event: E): void {
  if (typeof hook !== "function") return;
  try {
    const answer: unknown = hook.call(hooks, event);
    if (typeof (answer as PromiseLike<unknown> | null)?.then === "function") {
      (answer as PromiseLike<unknown>).then(undefined, () => undefined);
    }
  } catch {
    // A hook's own failure is the hook's: the call goes on.
  }
}

/** The kind of `error`, as conformance names it (`api`, `timeout`, ...); see {@link ErrorEvent.errorType}. */
export function errorType(error: unknown, aborted: boolean): string {
  if (error instanceof InterruptedError) return errorType(error.cause, aborted);
  if (error instanceof ApiError) return "api";
  if (error instanceof ValidationError) return "validation";
  if (error instanceof TimeoutError) return "timeout";
  if (error instanceof TransportError) return "transport";
  if (error instanceof DecodeError) return "decode";
  if (error instanceof NotReadyError) return "not_ready";
  if (error instanceof TooLargeError) return "too_large";
  if (error instanceof ForeignOriginError) return "foreign_origin";
  if (error instanceof PagingStalledError) return "paging_stalled";
  if (error instanceof ConfigError) return "config";
  if (error instanceof WebhookError) return "webhook";
  return aborted ? "aborted" : "unknown";
}

/**
 * What kind of failure `error` is, in one word, as the `onError` hook's `errorType` and
 * the other clients name it (`api`, `validation`, `timeout`, `transport`, `decode`,
 * `not_ready`, `too_large`, `foreign_origin`, `paging_stalled`, `config`, `webhook`; an
 * interrupted walk's is its page's error's): for a user's own metrics.
 */
export function errorKind(error: unknown): string {
  return errorType(error, false);
}

/** The HTTP status of an `api` error (also inside an interrupted walk's error), else `null`. */
export function errorStatus(error: unknown): number | null {
  if (error instanceof InterruptedError) return errorStatus(error.cause);
  return error instanceof ApiError ? error.status : null;
}

/** Reports that the call of `trace` failed with `error`, when it made at least one attempt. */
export function reportError(observer: Observer, operation: string, trace: Trace, error: unknown, aborted: boolean): void {
  const { hooks } = observer;
  if (trace.attempt === 0 || hooks.onError === undefined) return;
  notify(hooks, hooks.onError, {
    operation,
    callId: trace.id,
    errorType: errorType(error, aborted),
    status: errorStatus(error),
    attempt: trace.attempt,
  });
}

/** Milliseconds on a monotonic clock. */
export function now(): number {
  return globalThis.performance === undefined ? Date.now() : globalThis.performance.now();
}
