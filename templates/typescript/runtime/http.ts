/**
 * One HTTP exchange: a fetch with a per-attempt timeout combined with the caller's
 * signal, the body read within its limit (or left open for a download), and every
 * failure sorted into what the retry rules need.
 *
 * @module
 */

import { after } from "./pacing.js";

/** Why an exchange produced no response. */
export type NetFailure =
  /** The attempt's timeout passed (while connecting, waiting or reading the body). */
  | { kind: "timeout" }
  /** The connection was refused: nothing reached the service, so any method may be retried. */
  | { kind: "refused"; detail: string; cause: unknown }
  /** The request failed on the way (reset, DNS, TLS): it may have been applied. */
  | { kind: "network"; detail: string; cause: unknown }
  /** The answer's body broke off. */
  | { kind: "body"; detail: string; cause: unknown }
  /** A success body larger than the limit: refused by its length, or cut at the limit (`status`, `headers`: the answer's). */
  | { kind: "too_large"; limit: number; status: number; headers: Headers };

/**
 * How much of an answer's body is read: a success (2xx) body whole up to `successLimit`
 * bytes, or (`"open"`) not at all, left for the caller to stream; any other answer's body
 * only up to `errorLimit` bytes, enough for its message, the rest never read.
 */
export interface ReadPlan {
  readonly successLimit: number | "open";
  readonly errorLimit: number;
}

/** A success body left unread (`ReadPlan.successLimit: "open"`), with what stops it. */
export interface OpenBody {
  /** The body, `null` when the answer has none. */
  readonly stream: ReadableStream<Uint8Array> | null;
  /** Aborts the exchange (the connection), e.g. when the reader gives up. */
  abort(reason?: unknown): void;
  /** Stops watching the caller's signal; call once the body is done with. */
  release(): void;
}

/** A response with its body (read, or left open), or why there is none. */
export type Exchange =
  | { ok: true; response: Response; body: Uint8Array; open?: undefined }
  | { ok: true; response: Response; body?: undefined; open: OpenBody }
  | { ok: false; failure: NetFailure };

/** The `code` of an error or of its causes (`ECONNREFUSED`), when the platform gives one. */
function codes(error: unknown): string[] {
  const found: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const e = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof e.code === "string") found.push(e.code);
    // Node tries every address of a host (`localhost`: ::1 and 127.0.0.1) and reports all.
    if (Array.isArray(e.errors)) {
      for (const inner of e.errors as unknown[]) {
        const code = (inner as { code?: unknown } | null)?.code;
        if (typeof code === "string") found.push(code);
      }
    }
    current = e.cause;
  }
  return found;
}

/** The platform's description of an error and its causes, with any URL query removed. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      parts.push(typeof code === "string" && !current.message.includes(code) ? `${current.message} (${code})` : current.message);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  // A pre-signed URL's query is its signature: never let it reach a message.
  return parts.join(": ").replace(/(https?:\/\/[^\s?#"']*)[?#][^\s"']*/g, "$1");
}

/**
 * Sends one request and reads its answer as `plan` says, all within `timeoutMs` (an open
 * body is the caller's from then on). Rejects only when `signal` aborts (with its
 * reason); every other failure is returned, sorted.
 */
export async function exchange(
  fetchFn: typeof fetch,
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  plan: ReadPlan,
  signal?: AbortSignal,
): Promise<Exchange> {
  if (signal?.aborted) throw signal.reason;
  const controller = new AbortController();
  let timedOut = false;
  const cancelTimer = after(timeoutMs, () => {
    timedOut = true;
    controller.abort();
  });
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const release = (): void => signal?.removeEventListener("abort", onAbort);
  let handedOver = false;
  const failed = (error: unknown, kind: "network" | "body"): Exchange => {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) return { ok: false, failure: { kind: "timeout" } };
    const detail = describeError(error);
    if (kind === "network" && codes(error).includes("ECONNREFUSED")) {
      return { ok: false, failure: { kind: "refused", detail: `cannot connect: ${detail}`, cause: error } };
    }
    const head = kind === "body" ? "the response body could not be read" : "the request failed";
    return { ok: false, failure: { kind, detail: `${head}: ${detail}`, cause: error } };
  };
  try {
    let response: Response;
    try {
      response = await fetchFn(url.href, { ...init, signal: controller.signal });
    } catch (error) {
      return failed(error, "network");
    }
    const success = response.status >= 200 && response.status < 300;
    if (success && plan.successLimit === "open") {
      handedOver = true;
      return { ok: true, response, open: { stream: response.body, abort: (reason) => controller.abort(reason), release } };
    }
    try {
      const read = success
        ? await readLimited(response, plan.successLimit as number)
        : await readPrefix(response, plan.errorLimit);
      // What was left unread is dropped with its connection, never drained.
      if (read.cut) controller.abort();
      if (read.body === undefined) {
        const limit = plan.successLimit as number;
        return { ok: false, failure: { kind: "too_large", limit, status: response.status, headers: response.headers } };
      }
      return { ok: true, response, body: read.body };
    } catch (error) {
      return failed(error, "body");
    }
  } finally {
    cancelTimer();
    if (!handedOver) release();
  }
}

/**
 * A success body read whole, unless it is larger than `limit` bytes: refused by its
 * `Content-Length` before a byte is read, or as soon as the bytes read pass the limit
 * (`body: undefined`), so no more than the limit is ever held. `cut`: the body was not
 * read to its end.
 */
export async function readLimited(response: Response, limit: number): Promise<{ body: Uint8Array | undefined; cut: boolean }> {
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (announced > limit) {
    cancelQuietly(response.body);
    return { body: undefined, cut: true };
  }
  const stream = response.body;
  if (stream === null) return { body: new Uint8Array(0), cut: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      cancelQuietly(reader);
      return { body: undefined, cut: true };
    }
    chunks.push(value);
  }
  return { body: concat(chunks, total), cut: false };
}

/**
 * The first `limit` bytes of a body (an error's, enough for its message); the rest is
 * never read. A body that breaks off gives what came before.
 */
export async function readPrefix(response: Response, limit: number): Promise<{ body: Uint8Array; cut: boolean }> {
  const stream = response.body;
  if (stream === null) return { body: new Uint8Array(0), cut: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { body: concat(chunks, total), cut: false };
      const take = Math.min(value.byteLength, limit - total);
      chunks.push(take === value.byteLength ? value : value.subarray(0, take));
      total += take;
      if (take < value.byteLength || total >= limit) break;
    }
  } catch {
    return { body: concat(chunks, total), cut: true };
  }
  cancelQuietly(reader);
  return { body: concat(chunks, total), cut: true };
}

/**
 * Cancels a body (stream or reader) without waiting on, or failing for, what it says (the
 * exchange's abort closes the connection as well).
 */
export function cancelQuietly(body: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array> | null | undefined): void {
  // Already broken or closed: nothing left to stop.
  body?.cancel().catch(() => undefined);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** Whether this runs in Node (where `User-Agent` may be set; browsers forbid it). */
export function isNode(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof process?.versions?.node === "string";
}
