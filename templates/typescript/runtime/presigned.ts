/**
 * Pre-signed URLs (share links, upload and multipart part URLs): fetched and written with
 * no credential and no default header, whatever their origin, and shown in errors without
 * their query (which holds the signature).
 *
 * @module
 */

import type { CallOptions } from "./options.js";
import { copyBody, type ByteSink } from "./download.js";
import {
  ApiError,
  ConfigError,
  DecodeError,
  TimeoutError,
  TooLargeError,
  TransportError,
  errorMessage,
  type InspectionError,
} from "./errors.js";
import { exchange, type OpenBody, type ReadPlan } from "./http.js";
import { parseSecureUrl, shownUrl } from "./origin.js";
import { sleep, type Pacer } from "./pacing.js";
import { backoffMs, retryAfterMs, type RetryPolicy } from "./retry.js";

/** What pre-signed transfers borrow from the core. */
export interface PresignedContext {
  /** The core's `fetch`. */
  readonly fetch: typeof fetch;
  /** The core's pacer (share links are served by the service, so they count). */
  readonly pacer: Pacer;
  /** The core's retry policy. */
  readonly retry: RetryPolicy;
  /** Time for one attempt. */
  readonly timeoutMs: number;
  /** The property of error bodies that holds the message. */
  readonly errorMessageField: string;
  /** The largest success body read into memory. */
  readonly maxResponseBytes: number;
  /** How much of an error body is read. */
  readonly maxErrorBytes: number;
}

/**
 * Sends one idempotent request to a pre-signed URL, retrying 5xx, 429, timeouts and
 * network failures up to the policy's attempts. `open`: a success body is left unread.
 */
async function transfer(
  ctx: PresignedContext,
  method: "GET" | "PUT",
  url: URL,
  init: RequestInit,
  signal: AbortSignal | undefined,
  paced: boolean,
  open = false,
): Promise<{ headers: Headers; body?: Uint8Array | undefined; open?: OpenBody | undefined }> {
  const shown = shownUrl(url);
  const plan: ReadPlan = { successLimit: open ? "open" : ctx.maxResponseBytes, errorLimit: ctx.maxErrorBytes };
  for (let attempt = 1; ; attempt++) {
    if (paced) await ctx.pacer.acquire(signal);
    // No credentials at all: not even the browser's cookies; and in a browser no Referer
    // (the page's address) to the storage or wherever it redirects.
    const ex = await exchange(
      ctx.fetch,
      url,
      { ...init, method, credentials: "omit", redirect: "follow", referrerPolicy: "no-referrer" },
      ctx.timeoutMs,
      plan,
      signal,
    );
    let failure: InspectionError;
    let wait = backoffMs(ctx.retry, attempt);
    if (ex.ok && ex.response.ok) return { headers: ex.response.headers, body: ex.body, open: ex.open };
    if (ex.ok) {
      const status = ex.response.status;
      const retryAfter = retryAfterMs(ex.response.headers);
      failure = new ApiError({
        status,
        serviceMessage: errorMessage(ex.body ?? new Uint8Array(0), ctx.errorMessageField),
        retryAfterMs: retryAfter,
        method,
        path: shown,
      });
      if (status < 500 && status !== 429) throw failure;
      if (status === 429 && retryAfter !== undefined) {
        if (retryAfter > ctx.retry.maxBackoffMs) throw failure;
        wait = retryAfter;
      }
    } else if (ex.failure.kind === "too_large") {
      throw new TooLargeError(`${method} ${shown}`, ex.failure.limit);
    } else if (ex.failure.kind === "timeout") {
      failure = new TimeoutError(method, shown, ctx.timeoutMs);
    } else {
      failure = new TransportError(method, shown, ex.failure.detail, ex.failure.cause);
    }
    if (attempt >= ctx.retry.maxAttempts) throw failure;
    await sleep(wait, signal);
  }
}

/** GETs a pre-signed URL without credentials; paced like every request to the service. */
export async function fetchPresigned(ctx: PresignedContext, url: string, call?: CallOptions): Promise<Uint8Array> {
  const parsed = parseSecureUrl(url, "a pre-signed URL");
  return (await transfer(ctx, "GET", parsed, {}, call?.signal, true)).body ?? new Uint8Array(0);
}

/**
 * GETs a pre-signed URL like {@link fetchPresigned}, writing the body to `out` as it
 * arrives (no `maxResponseBytes`); returns how many bytes were written. The request is
 * retried until an answer comes; a body that then breaks off is not (`out` holds what came).
 */
export async function fetchPresignedTo(ctx: PresignedContext, url: string, out: ByteSink, call?: CallOptions): Promise<number> {
  const parsed = parseSecureUrl(url, "a pre-signed URL");
  const answer = await transfer(ctx, "GET", parsed, {}, call?.signal, true, true);
  if (answer.open === undefined) return 0;
  return copyBody(answer.open, out, ctx.timeoutMs, "GET", shownUrl(parsed), call?.signal);
}

/**
 * PUTs `body` to a pre-signed URL without credentials, retrying failures (a PUT of the same
 * bytes is idempotent). Uploads go to storage, not the service, so they are not paced.
 */
export async function putPresigned(
  ctx: PresignedContext,
  url: string,
  body: Uint8Array,
  contentType?: string,
  call?: CallOptions,
): Promise<{ etag?: string }> {
  const parsed = parseSecureUrl(url, "a pre-signed URL");
  const headers: Record<string, string> = contentType === undefined ? {} : { "content-type": contentType };
  const { headers: answer } = await transfer(ctx, "PUT", parsed, { headers, body: body as BodyInit }, call?.signal, false);
  const etag = answer.get("etag");
  return etag === null ? {} : { etag };
}

/**
 * PUTs each part to its URL, at most `concurrency` at a time; returns the ETags in part
 * order. The first failure stops the others and is what the call rejects with.
 */
export async function putParts(
  ctx: PresignedContext,
  urls: readonly string[],
  parts: readonly Uint8Array[],
  contentType: string | undefined,
  concurrency: number,
  call?: CallOptions,
): Promise<string[]> {
  if (urls.length !== parts.length) throw new ConfigError(`${parts.length} parts for ${urls.length} upload URLs`);
  // Checked up front, so no part is sent when one URL is unusable.
  for (const url of urls) parseSecureUrl(url, "a pre-signed URL");
  const stop = new AbortController();
  const outer = call?.signal;
  const onAbort = (): void => stop.abort(outer?.reason);
  if (outer?.aborted) throw outer.reason;
  outer?.addEventListener("abort", onAbort, { once: true });
  const etags: string[] = new Array<string>(urls.length).fill("");
  let nextIndex = 0;
  let firstError: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (firstError === undefined && nextIndex < urls.length) {
      const i = nextIndex++;
      try {
        const { etag } = await putPresigned(ctx, urls[i] ?? "", parts[i] ?? new Uint8Array(), contentType, { signal: stop.signal });
        if (etag === undefined) throw new DecodeError(`part ${i + 1}: ETag header`, "the storage answered without an ETag");
        etags[i] = etag;
      } catch (error) {
        if (firstError === undefined) {
          firstError = { error };
          stop.abort(error);
        }
      }
    }
  };
  try {
    const workers = Array.from({ length: Math.max(1, Math.min(Math.floor(concurrency), urls.length)) }, worker);
    await Promise.all(workers);
  } finally {
    outer?.removeEventListener("abort", onAbort);
  }
  if (firstError !== undefined) throw firstError.error;
  return etags;
}
