/**
 * The core of a client: sends every generated operation's request with pacing,
 * credentials, retries, timeouts, redirects and 202 polling, and decodes the answers.
 * Everything that shares one core shares its pacing and its 429 pauses.
 *
 * @module
 */

import { TokenState, applyHeaders, checkHeaders, type AuthOf } from "./auth.js";
import { copyBody, type ByteSink } from "./download.js";
import {
  ApiError,
  ConfigError,
  DecodeError,
  ForeignOriginError,
  InspectionError,
  NotReadyError,
  TimeoutError,
  TooLargeError,
  TransportError,
  ValidationError,
  errorMessage,
  scrub as scrubText,
  scrubError,
  type Resume,
  type Violation,
} from "./errors.js";
import { Observer, TRACE, notify, now, reportError, type ClientHooks, type Trace, type Traced } from "./hooks.js";
import { cancelQuietly, exchange, isNode, type Exchange, type NetFailure, type OpenBody, type ReadPlan } from "./http.js";
import { parseSecureUrl, sameOrigin } from "./origin.js";
import { Pacer, sleep } from "./pacing.js";
import { paged, type Paged, type PagingPlan } from "./paging.js";
import { fetchPresigned, fetchPresignedTo, putParts, putPresigned, type PresignedContext } from "./presigned.js";
import type { CallOptions, PageOptions } from "./options.js";
import { describeRequest, requestUrl, serializeBody, type Method, type RequestSpec } from "./request.js";
import { DEFAULT_RETRY, backoffMs, isIdempotent, retryAfterMs, type RetryPolicy } from "./retry.js";
import { decodeJson } from "./decode.js";
import type { Desc, Registry } from "./schema.js";
import { validate } from "./validate.js";
import type { Secret } from "./secret.js";

/** What the generated code says about its interface. */
export interface InterfaceInfo {
  /** The interface's name: `v3`, `legacy`. */
  name: string;
  /** The documented rate limit, the client's default pacing. */
  rateLimit?: { requests: number; windowSeconds: number; status: number; retryAfterHeader?: string };
  /** The property of error bodies that holds the message (`errors`). */
  errorMessageField?: string;
  /** Headers every request carries, e.g. `{ accept: "application/json; version=1" }`. */
  defaultHeaders: Readonly<Record<string, string>>;
}

/** How a client behaves; every field is optional. */
export interface ClientOptions {
  /**
   * Requests per window to pace to, e.g. `{ requests: 200, windowSeconds: 10 }` once the
   * service raised the quota (a margin of 0.2 % and 20 ms is added to the window). Default: the documented
   * limit; `null`: no pacing (a 429's `Retry-After` is still honoured).
   */
  rateLimit?: { requests: number; windowSeconds: number } | null;
  /** Retries: 4 attempts in all, backoff from 250 ms doubling up to 30 s (also the longest `Retry-After` waited out). */
  retry?: { maxAttempts?: number; initialBackoffMs?: number; maxBackoffMs?: number };
  /** Time for one attempt, body included (default 60 000 ms). */
  timeoutMs?: number;
  /** Check documented limits before sending (default `true`); off for when the service relaxes a limit first. */
  validateRequests?: boolean;
  /** How many times a 202 (still preparing) is asked again (default 10). */
  maxPolls?: number;
  /** First wait between polls, doubled each time up to the longest backoff (default 500 ms), unless `Retry-After` says. */
  pollIntervalMs?: number;
  /** The `fetch` to use (default: the platform's). */
  fetch?: typeof fetch;
  /** `User-Agent`, sent in Node only (browsers forbid setting it). */
  userAgent?: string;
  /**
   * The largest success body read into memory (default 64 MiB): a larger one is a
   * `TooLargeError`, with no more than this read (refused by its `Content-Length` first).
   * Downloads written to a stream (the `...To` methods) have no limit.
   */
  maxResponseBytes?: number;
  /** How much of an error body is read for its message (default 64 KiB); the rest is never read. */
  maxErrorBytes?: number;
  /**
   * Empty pages in a row a walk accepts while the service still points to a next one
   * (default 10); one more ends the walk with `PagingStalledError`.
   */
  maxEmptyPages?: number;
  /**
   * What the client reports as it works (observability): each hook is called with an event
   * for every attempt sent and answered, retry, wait, page of a walk and failure. Events
   * hold no credential, body, path value or query; a hook that throws is ignored; with no
   * hooks, no event is built. Pre-signed transfers report nothing.
   */
  hooks?: ClientHooks;
}

export type { CallOptions, PageOptions } from "./options.js";

/** How a core's requests carry credentials (a token's login runs through the core). */
export type Auth = AuthOf<Core>;

/** A successful (2xx) answer, body read. */
export interface RawResponse {
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The whole body. */
  body: Uint8Array;
  /** The URL that answered (after same-origin redirects). */
  url: string;
}

/** The answer of an upsert: whether the record was created (201) or replaced (200). */
export interface Upserted<T> {
  /** `true` for 201 Created. */
  created: boolean;
  /** The record as the service answered it. */
  value: T;
}

/** The settings in force, defaults filled in. */
interface Settings {
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly maxPolls: number;
  readonly pollIntervalMs: number;
  readonly userAgent: string | undefined;
  readonly maxResponseBytes: number;
  readonly maxErrorBytes: number;
  readonly maxEmptyPages: number;
}

/** An attempt's 2xx answer: its body read, or (for a download) left open. */
type Answer =
  | (RawResponse & { open?: undefined })
  | { status: number; headers: Headers; url: string; body?: undefined; open: OpenBody };

/** Why an attempt did not succeed. */
type Outcome =
  | { kind: "ok"; response: Answer }
  | { kind: "status"; error: ApiError }
  | { kind: "fatal"; error: InspectionError }
  | NetFailure;

/**
 * What to do after a failed attempt: sleep `retryInMs`, then try again (`waitMs`: the whole
 * wait, `held`: most of it is the pacer's pause after a 429, `retryAfter`: the service asked
 * for it), or fail.
 */
type Next = { retryInMs: number; waitMs: number; held: boolean; retryAfter: boolean } | { error: InspectionError };

const MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = "inspection-client (typescript)";

function positive(value: number | undefined, fallback: number, what: string, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ConfigError(`${what} must be a ${allowZero ? "non-negative" : "positive"} number, got ${value}`);
  }
  return value;
}

/**
 * The shared core of a generated client: one per client, shared by everything the client
 * hands out. It knows no resource names; the generated code describes each call as a
 * {@link RequestSpec}.
 */
export class Core {
  /** The base URL all paths are relative to (`https://host/v3`). */
  readonly baseUrl: string;
  /** The interface this core talks to. */
  readonly info: InterfaceInfo;
  /** Whether documented limits are checked before sending. */
  readonly validateRequests: boolean;

  readonly #base: URL;
  readonly #auth: Auth;
  readonly #token: TokenState<Core> | undefined;
  readonly #settings: Settings;
  readonly #pacer: Pacer;
  readonly #fetch: typeof fetch;
  readonly #errorField: string;
  readonly #limitStatus: number;
  readonly #retryAfterHeader: string;
  readonly #observer: Observer | undefined;
  readonly #server: { readonly address: string; readonly port: number };

  /**
   * A core for `baseUrl`, which must be https (plain http only on a loopback host).
   *
   * @throws {@link ConfigError} for a base URL that is not allowed, a credential a header
   * cannot carry (naming the header, never its value), or a nonsensical option
   */
  constructor(baseUrl: string, info: InterfaceInfo, auth: Auth, options: ClientOptions = {}) {
    checkHeaders(auth);
    this.#base = parseSecureUrl(baseUrl, "the base URL");
    this.#base.hash = "";
    this.baseUrl = this.#base.href;
    this.info = info;
    this.#auth = auth;
    this.#token = auth.kind === "token" ? new TokenState(auth) : undefined;
    this.validateRequests = options.validateRequests ?? true;
    const retry = options.retry ?? {};
    this.#settings = {
      retry: {
        maxAttempts: Math.max(1, Math.floor(positive(retry.maxAttempts, DEFAULT_RETRY.maxAttempts, "retry.maxAttempts"))),
        initialBackoffMs: positive(retry.initialBackoffMs, DEFAULT_RETRY.initialBackoffMs, "retry.initialBackoffMs", true),
        maxBackoffMs: positive(retry.maxBackoffMs, DEFAULT_RETRY.maxBackoffMs, "retry.maxBackoffMs", true),
      },
      timeoutMs: positive(options.timeoutMs, 60_000, "timeoutMs"),
      maxPolls: Math.floor(positive(options.maxPolls, 10, "maxPolls", true)),
      pollIntervalMs: positive(options.pollIntervalMs, 500, "pollIntervalMs", true),
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      maxResponseBytes: positive(options.maxResponseBytes, 64 * 2 ** 20, "maxResponseBytes", true),
      maxErrorBytes: positive(options.maxErrorBytes, 64 * 2 ** 10, "maxErrorBytes", true),
      maxEmptyPages: Math.floor(positive(options.maxEmptyPages, 10, "maxEmptyPages", true)),
    };
    const limit = options.rateLimit === undefined ? info.rateLimit : (options.rateLimit ?? undefined);
    if (limit !== undefined) {
      positive(limit.requests, 1, "rateLimit.requests");
      positive(limit.windowSeconds, 1, "rateLimit.windowSeconds");
    }
    // The window is taken 0.2 % and 20 ms longer: a margin for the two clocks' rates and
    // for network jitter, which does not grow with the window.
    this.#pacer = new Pacer(limit === undefined ? undefined : { requests: limit.requests, windowMs: limit.windowSeconds * 1000 * 1.002 + 20 });
    const platformFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);
    this.#fetch = options.fetch ?? platformFetch;
    this.#errorField = info.errorMessageField ?? "errors";
    this.#limitStatus = info.rateLimit?.status ?? 429;
    this.#retryAfterHeader = (info.rateLimit?.retryAfterHeader ?? "retry-after").toLowerCase();
    this.#observer = options.hooks === undefined ? undefined : new Observer(options.hooks);
    const port = this.#base.port === "" ? (this.#base.protocol === "https:" ? 443 : 80) : Number(this.#base.port);
    this.#server = { address: this.#base.hostname.replace(/^\[(.*)\]$/, "$1"), port };
  }

  /**
   * Checks each `[path, descriptor, value]` against its documented limits, unless
   * validation is off.
   *
   * @throws {@link ValidationError} listing every violation at once
   */
  check(items: readonly (readonly [path: string, d: Desc, value: unknown])[], reg: Registry): void {
    if (!this.validateRequests) return;
    const out: Violation[] = [];
    for (const [path, d, value] of items) validate(reg, d, value, path, out);
    if (out.length > 0) throw new ValidationError(out);
  }

  /** Logs in now (token auth), replacing any token; other kinds of auth need nothing. */
  async login(): Promise<void> {
    if (this.#token !== undefined) await this.#scrubbed(this.#token.renew(this.#token.generation, this));
  }

  /** The settings paging needs: empty pages in a row a walk accepts. */
  get maxEmptyPages(): number {
    return this.#settings.maxEmptyPages;
  }

  /**
   * `error` with every secret of this core's credentials (four characters or more: the key
   * secret, the login's password and the current token), and of `hidden` (a request's
   * sensitive values), replaced by `<redacted>` in every text it holds, causes included.
   * Every error the core throws has been through it.
   */
  scrub<E>(error: E, hidden: readonly Secret[] = []): E {
    return scrubError(error, this.#secrets(hidden));
  }

  /** The texts of this core's secrets (see {@link Core.scrub}) and of `hidden`. */
  #secrets(hidden: readonly Secret[] = []): string[] {
    const secrets: string[] = hidden.map((s) => s.expose());
    if (this.#auth.kind === "headers") {
      for (const { value } of this.#auth.headers) if (typeof value !== "string") secrets.push(value.expose());
    }
    if (this.#token !== undefined) secrets.push(...this.#token.secrets());
    return secrets;
  }

  /**
   * Sends `req` until it succeeds or fails for good.
   *
   * @returns the 2xx answer (with `poll`, not a 202)
   * @throws {@link ApiError} for an error status; see the other error classes for the rest
   */
  send(req: RequestSpec, call: CallOptions = {}): Promise<RawResponse> {
    return this.#observed(req, call, (trace) => this.#sendReady(req, call, false, trace) as Promise<RawResponse>);
  }

  /**
   * Sends `req` and decodes its JSON answer as `d`.
   *
   * @throws {@link DecodeError} with the JSON path, for a body that is not JSON or not of the documented shape
   */
  json<T>(reg: Registry, d: Desc, req: RequestSpec, call: CallOptions = {}): Promise<T> {
    return this.#observed(req, call, async (trace) => {
      const response = (await this.#sendReady(req, call, false, trace)) as RawResponse;
      return decodeBody<T>(reg, d, response);
    });
  }

  /** Sends an upsert (PUT): `created` is `true` for a 201, `false` for a 200. */
  upsert<T>(reg: Registry, d: Desc, req: RequestSpec, call: CallOptions = {}): Promise<Upserted<T>> {
    return this.#observed(req, call, async (trace) => {
      const response = (await this.#sendReady(req, call, false, trace)) as RawResponse;
      return { created: response.status === 201, value: decodeBody<T>(reg, d, response) };
    });
  }

  /** Sends `req` and returns its body's bytes (a PDF), within `maxResponseBytes`. */
  async bytes(req: RequestSpec, call?: CallOptions): Promise<Uint8Array> {
    return (await this.send(req, call)).body;
  }

  /**
   * Sends `req` (202s waited out, with `poll`) and writes its answer's body to `out` as it
   * arrives, in bounded memory whatever its size (no `maxResponseBytes`); returns how many
   * bytes were written. A download that breaks off is not retried: `out` holds what came.
   * `out` is left open.
   */
  download(req: RequestSpec, out: ByteSink, call: CallOptions = {}): Promise<number> {
    return this.#observed(req, call, async (trace) => {
      const answer = await this.#sendReady(req, call, true, trace);
      const timeoutMs = call.timeoutMs ?? this.#settings.timeoutMs;
      if (answer.open === undefined) throw new TransportError(req.method, req.path, "the body was read before the download");
      return copyBody(answer.open, out, timeoutMs, req.method, req.path, call.signal);
    });
  }

  /** Sends `req`, whose answer has no body worth reading (a DELETE). */
  async empty(req: RequestSpec, call?: CallOptions): Promise<void> {
    await this.send(req, call);
  }

  /**
   * Every item (and page) of a paged list, a page at a time, from the first request `req`,
   * or from `call.resume`.
   *
   * @throws {@link ConfigError} for a `resume` that is not a resume point of this list
   */
  paged<T, P>(reg: Registry, plan: PagingPlan, req: RequestSpec, call?: PageOptions): Paged<T, P> {
    return paged<T, P>(this, reg, plan, req, call, this.#observer);
  }

  /** GETs a pre-signed URL (a share link) with no credentials and no default headers; paced; within `maxResponseBytes`. */
  fetchPresigned(url: string, call?: CallOptions): Promise<Uint8Array> {
    return this.#scrubbed(fetchPresigned(this.#presigned(call), url, call));
  }

  /**
   * GETs a pre-signed URL like {@link Core.fetchPresigned}, writing the bytes to `out` as
   * they arrive (a file of any size in bounded memory); returns how many. `out` is left open.
   */
  fetchPresignedTo(url: string, out: ByteSink, call?: CallOptions): Promise<number> {
    return this.#scrubbed(fetchPresignedTo(this.#presigned(call), url, out, call));
  }

  /** PUTs `body` to a pre-signed upload URL with no credentials, retrying failures; returns the storage's `ETag`. */
  putPresigned(url: string, body: Uint8Array, contentType?: string, call?: CallOptions): Promise<{ etag?: string }> {
    return this.#scrubbed(putPresigned(this.#presigned(call), url, body, contentType, call));
  }

  /**
   * PUTs each part to its pre-signed URL, at most `concurrency` (default 4) at a time, each
   * retried; returns the ETags in part order.
   */
  putParts(
    urls: readonly string[],
    parts: readonly Uint8Array[],
    contentType?: string,
    concurrency?: number,
    call?: CallOptions,
  ): Promise<string[]> {
    return this.#scrubbed(putParts(this.#presigned(call), urls, parts, contentType, concurrency ?? 4, call));
  }

  /** `Core(<interface> at <origin>)`: no credential, no option. */
  toString(): string {
    return `Core(${this.info.name} at ${this.#base.origin})`;
  }

  #presigned(call: CallOptions | undefined): PresignedContext {
    return {
      fetch: this.#fetch,
      pacer: this.#pacer,
      retry: this.#settings.retry,
      timeoutMs: call?.timeoutMs ?? this.#settings.timeoutMs,
      errorMessageField: this.#errorField,
      maxResponseBytes: this.#settings.maxResponseBytes,
      maxErrorBytes: this.#settings.maxErrorBytes,
    };
  }

  /**
   * Runs one call (`run`, given the call's trace when hooks are set): its failure scrubbed
   * of secrets (and of `req.hidden`), and reported to the hooks after at least one attempt.
   * A walk's page request carries the walk's trace in `call`, so a walk is one call.
   */
  async #observed<T>(req: RequestSpec, call: Traced<CallOptions>, run: (trace: Trace | undefined) => Promise<T>): Promise<T> {
    const observer = this.#observer;
    const trace = observer === undefined ? undefined : (call[TRACE] ?? observer.begin());
    try {
      return await run(trace);
    } catch (e) {
      const error = this.scrub(e, req.hidden);
      if (observer !== undefined && trace !== undefined) reportError(observer, req.op, trace, error, call.signal?.aborted === true);
      throw error;
    }
  }

  /** `promise`, its rejection scrubbed of secrets (and of `hidden`). */
  async #scrubbed<T>(promise: Promise<T>, hidden?: readonly Secret[]): Promise<T> {
    try {
      return await promise;
    } catch (e) {
      throw this.scrub(e, hidden);
    }
  }

  /**
   * Sends `req`; with `poll`, a 202 (still preparing) is asked again, with backoff or the
   * service's `Retry-After`, up to `maxPolls`. A `Retry-After` longer than the longest wait
   * (`retry.maxBackoffMs`; a huge or unreadable-as-a-number one included) ends the polling
   * at once with a `NotReadyError` naming it. `open`: the final answer's body is left open.
   */
  async #sendReady(req: RequestSpec, call: CallOptions, open: boolean, trace: Trace | undefined): Promise<Answer> {
    if (req.poll !== true) return this.#execute(req, call, open, trace);
    const { maxPolls, retry } = this.#settings;
    let interval = this.#settings.pollIntervalMs;
    let waited = 0;
    for (let polls = 1; ; polls++) {
      const response = await this.#execute(req, call, open, trace);
      if (response.status !== 202) return response;
      if (response.open !== undefined) {
        cancelQuietly(response.open.stream);
        response.open.abort();
        response.open.release();
      }
      const asked = retryAfterMs(response.headers, this.#retryAfterHeader);
      const tooLong = asked !== undefined && !(asked <= retry.maxBackoffMs) ? asked : undefined;
      if (polls > maxPolls || tooLong !== undefined) throw new NotReadyError(describeRequest(req), polls, waited, tooLong);
      const wait = Math.min(asked ?? interval, retry.maxBackoffMs);
      const hooks = this.#observer?.hooks;
      if (trace !== undefined && hooks?.onPause !== undefined) {
        notify(hooks, hooks.onPause, { operation: req.op, callId: trace.id, reason: "poll", waitMs: wait });
      }
      await sleep(wait, call.signal);
      waited += wait;
      interval = Math.min(interval * 2, retry.maxBackoffMs);
    }
  }

  /**
   * Sends `req` until it succeeds or fails for good; a 202 is a success here. `attempt`
   * counts against `retry.maxAttempts`; `sent` (what events call the attempt) also counts
   * the resend after a re-login, which the policy does not.
   */
  async #execute(req: RequestSpec, call: CallOptions, open: boolean, trace: Trace | undefined): Promise<Answer> {
    const url = requestUrl(this.#base, req);
    const body = requestBody(req);
    const token = req.anonymous === true ? undefined : this.#token;
    const timeoutMs = call.timeoutMs ?? this.#settings.timeoutMs;
    const max = this.#settings.retry.maxAttempts;
    let renewed = false;
    // After a 429 the pacer's pause is this request's retry wait, already reported as such.
    let held = false;
    for (let attempt = 1, sent = 1; ; sent++) {
      if (token !== undefined) await token.ensure(this);
      const seen = token?.generation ?? 0;
      await this.#pacer.acquire(call.signal, this.#pacing(req, trace, held));
      const started = trace === undefined ? 0 : this.#sending(req, trace, sent);
      const outcome = await this.#attempt(req, url, body, timeoutMs, open, call.signal, trace, started);
      if (outcome.kind === "ok") return outcome.response;
      // A 401 with a token in use: log in again once and repeat the request (it was
      // refused, so it was not applied).
      if (outcome.kind === "status" && outcome.error.status === 401 && token !== undefined && !renewed) {
        await token.renew(seen, this);
        renewed = true;
        held = false;
        continue;
      }
      const next = this.#next(req, outcome, attempt, attempt < max, timeoutMs);
      if ("error" in next) throw next.error;
      if (trace !== undefined) this.#retrying(req, trace, outcome, next);
      held = next.held;
      await sleep(next.retryInMs, call.signal);
      attempt += 1;
    }
  }

  /** Records attempt `sent` of `trace`'s call and reports it; returns when it starts. */
  #sending(req: RequestSpec, trace: Trace, sent: number): number {
    trace.attempt = sent;
    const hooks = this.#observer?.hooks;
    if (hooks?.onRequest !== undefined) {
      notify(hooks, hooks.onRequest, {
        operation: req.op,
        callId: trace.id,
        method: req.method,
        urlTemplate: req.path,
        attempt: sent,
        serverAddress: this.#server.address,
        serverPort: this.#server.port,
      });
    }
    return now();
  }

  /** Reports the answer to the attempt in flight. */
  #answered(req: RequestSpec, trace: Trace | undefined, started: number, status: number, headers: Headers): void {
    const hooks = this.#observer?.hooks;
    if (trace === undefined || hooks?.onResponse === undefined) return;
    const id = headers.get("x-request-id");
    notify(hooks, hooks.onResponse, {
      operation: req.op,
      callId: trace.id,
      method: req.method,
      urlTemplate: req.path,
      attempt: trace.attempt,
      status,
      durationMs: now() - started,
      // An id is the service's; one that echoes a credential is not passed on.
      requestId: id === null ? null : scrubText(id, this.#secrets(req.hidden)),
    });
  }

  /** Reports that the failed attempt in flight will be sent again. */
  #retrying(req: RequestSpec, trace: Trace, outcome: Exclude<Outcome, { kind: "ok" }>, next: Exclude<Next, { error: InspectionError }>): void {
    const hooks = this.#observer?.hooks;
    if (hooks?.onRetry === undefined) return;
    notify(hooks, hooks.onRetry, {
      operation: req.op,
      callId: trace.id,
      attempt: trace.attempt,
      reason: outcome.kind === "status" ? "status" : outcome.kind === "timeout" ? "timeout" : "connection",
      status: outcome.kind === "status" ? outcome.error.status : null,
      waitMs: next.waitMs,
      retryAfter: next.retryAfter,
    });
  }

  /**
   * What the pacer tells of its waits before an attempt, when a pause hook is set: the
   * first wait, once (`excuseHold`: not a 429's pause, the retry's own wait).
   */
  #pacing(req: RequestSpec, trace: Trace | undefined, excuseHold: boolean): ((ms: number, held: boolean) => void) | undefined {
    const hooks = this.#observer?.hooks;
    if (trace === undefined || hooks?.onPause === undefined) return undefined;
    let told = false;
    return (ms, held) => {
      if (told || (held && excuseHold)) return;
      told = true;
      notify(hooks, hooks.onPause, { operation: req.op, callId: trace.id, reason: "rate_limit", waitMs: ms });
    };
  }

  /** One attempt, same-origin redirects included. */
  async #attempt(
    req: RequestSpec,
    url: URL,
    body: string | Uint8Array | undefined,
    timeoutMs: number,
    open: boolean,
    signal: AbortSignal | undefined,
    trace: Trace | undefined,
    started: number,
  ): Promise<Outcome> {
    let method: Method = req.method;
    let current = url;
    const plan: ReadPlan = {
      successLimit: open ? "open" : this.#settings.maxResponseBytes,
      errorLimit: this.#settings.maxErrorBytes,
    };
    for (let hop = 0; ; hop++) {
      const ex = await exchange(
        this.#fetch,
        current,
        { method, headers: this.#headers(req, body !== undefined), body: (body ?? null) as BodyInit | null, redirect: "manual" },
        timeoutMs,
        plan,
        signal,
      );
      if (!ex.ok) {
        // Answered, but with more than the client reads.
        if (ex.failure.kind === "too_large") this.#answered(req, trace, started, ex.failure.status, ex.failure.headers);
        return ex.failure;
      }
      const { response } = ex;
      // A browser hides a manual redirect's target, so it cannot be checked: not followed.
      if (response.type === "opaqueredirect") {
        return { kind: "fatal", error: new ForeignOriginError("a redirect", "an origin the browser does not disclose") };
      }
      const status = response.status;
      const location = response.headers.get("location");
      if (location === null || status < 300 || status >= 400) {
        // Not a redirect: the answer the attempt ends with.
        this.#answered(req, trace, started, status, response.headers);
        return this.#outcomeOf(req, ex, current);
      }
      const target = this.#redirectTarget(req, trace, started, current, location, response, hop);
      if (!(target instanceof URL)) return target;
      // As browsers do: 303 (and 301/302 after a POST) continue as a GET without the body.
      if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
      current = target;
      await this.#pacer.acquire(signal, this.#pacing(req, trace, false));
    }
  }

  /**
   * Where the redirect `response` to a request of `from` leads (its `location`), or the
   * outcome that ends the attempt instead: a Location that cannot be read, another origin
   * than the base URL's (credentials go only there), or more than `MAX_REDIRECTS` in one
   * attempt (`hop`: those followed so far).
   */
  #redirectTarget(
    req: RequestSpec,
    trace: Trace | undefined,
    started: number,
    from: URL,
    location: string,
    response: Response,
    hop: number,
  ): URL | Outcome {
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      return { kind: "fatal", error: new ForeignOriginError("a redirect", "an unreadable Location") };
    }
    if (!sameOrigin(target, this.#base)) {
      this.#answered(req, trace, started, response.status, response.headers);
      return { kind: "fatal", error: new ForeignOriginError("a redirect", target.origin) };
    }
    if (hop >= MAX_REDIRECTS) {
      this.#answered(req, trace, started, response.status, response.headers);
      return { kind: "fatal", error: new TransportError(req.method, req.path, `more than ${MAX_REDIRECTS} redirects`) };
    }
    return target;
  }

  /**
   * The outcome of an answer from `url` that is not a redirect: a 2xx is the response (its
   * body read, or left open for a download), anything else an {@link ApiError}.
   */
  #outcomeOf(req: RequestSpec, ex: Extract<Exchange, { ok: true }>, url: URL): Outcome {
    const { status, headers } = ex.response;
    if (ex.open !== undefined) return { kind: "ok", response: { status, headers, open: ex.open, url: url.href } };
    if (status >= 200 && status < 300) return { kind: "ok", response: { status, headers, body: ex.body, url: url.href } };
    return {
      kind: "status",
      error: new ApiError({
        status,
        serviceMessage: errorMessage(ex.body, this.#errorField),
        retryAfterMs: retryAfterMs(headers, this.#retryAfterHeader),
        method: req.method,
        path: req.path,
        hint: req.hint,
      }),
    };
  }

  #headers(req: RequestSpec, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.info.defaultHeaders)) headers[name.toLowerCase()] = value;
    headers["accept"] = req.accept ?? headers["accept"] ?? "application/json";
    if (hasBody) headers["content-type"] = req.bytes === undefined ? "application/json" : (req.contentType ?? "application/octet-stream");
    if (this.#settings.userAgent !== undefined && isNode()) headers["user-agent"] = this.#settings.userAgent;
    if (req.anonymous !== true) {
      applyHeaders(this.#auth, headers);
      this.#token?.apply(headers);
    }
    return headers;
  }

  /**
   * A 429 is retried for any method (refused, so not applied), after its `Retry-After`,
   * and pauses every request of the core meanwhile; a 5xx, a timeout or a broken body only
   * for idempotent methods; a refused connection for any method (nothing reached the
   * service). Never a POST or PATCH that may have been applied.
   */
  #next(req: RequestSpec, outcome: Exclude<Outcome, { kind: "ok" }>, attempt: number, mayRetry: boolean, timeoutMs: number): Next {
    const policy = this.#settings.retry;
    const backoff = backoffMs(policy, attempt);
    const idempotent = isIdempotent(req.method);
    switch (outcome.kind) {
      case "fatal":
        return { error: outcome.error };
      case "status": {
        const api = outcome.error;
        if (api.status === this.#limitStatus || api.status === 429) {
          // A longer wait than the client allows is reported, not cut short: retrying early
          // would only meet another 429.
          if (api.retryAfterMs !== undefined && api.retryAfterMs > policy.maxBackoffMs) return { error: api };
          // Every request of this core waits, not only this one.
          const pause = Math.min(api.retryAfterMs ?? backoff, policy.maxBackoffMs);
          this.#pacer.pauseFor(pause);
          return mayRetry ? { retryInMs: 0, waitMs: pause, held: true, retryAfter: api.retryAfterMs !== undefined } : { error: api };
        }
        if (api.status >= 500 && idempotent && mayRetry) return { retryInMs: backoff, waitMs: backoff, held: false, retryAfter: false };
        return { error: api };
      }
      case "refused":
        if (mayRetry) return { retryInMs: backoff, waitMs: backoff, held: false, retryAfter: false };
        return { error: new TransportError(req.method, req.path, outcome.detail, outcome.cause) };
      case "timeout":
        if (idempotent && mayRetry) return { retryInMs: backoff, waitMs: backoff, held: false, retryAfter: false };
        return { error: new TimeoutError(req.method, req.path, timeoutMs) };
      case "network":
      case "body":
        if (idempotent && mayRetry) return { retryInMs: backoff, waitMs: backoff, held: false, retryAfter: false };
        return { error: new TransportError(req.method, req.path, outcome.detail, outcome.cause) };
      case "too_large":
        // The same answer would come again: not retried.
        return { error: new TooLargeError(describeRequest(req), outcome.limit) };
    }
  }
}

/** Visible ASCII, spaces, tabs and obs-text: what a header value may hold. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * What `req` sends: its bytes as they are, or its JSON body's text.
 *
 * @throws {@link ConfigError} for bytes that are neither a `Uint8Array` nor text, a content
 *   type that cannot be a header, or a JSON body that cannot be serialised
 */
function requestBody(req: RequestSpec): string | Uint8Array | undefined {
  if (req.bytes !== undefined) {
    if (typeof req.bytes !== "string" && !(req.bytes instanceof Uint8Array)) {
      throw new ConfigError(`the body of ${describeRequest(req)} must be bytes (a Uint8Array) or text`);
    }
    const type = req.contentType;
    if (type !== undefined && (type.trim() === "" || !HEADER_VALUE.test(type))) {
      throw new ConfigError(`the content type ${JSON.stringify(type)} cannot be sent as a Content-Type header`);
    }
    return req.bytes;
  }
  try {
    return req.body === undefined ? undefined : serializeBody(req.body);
  } catch (e) {
    // A BigInt or a cycle; the platform's message names no value.
    throw new ConfigError(`cannot serialise the body of ${describeRequest(req)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A JSON answer decoded as `d`, naming the status and JSON path of a failure.
 *
 * @throws {@link DecodeError}
 */
function decodeBody<T>(reg: Registry, d: Desc, response: RawResponse): T {
  return decodeJson(reg, d, response.body, response.status, response.headers.get("content-type")) as T;
}
