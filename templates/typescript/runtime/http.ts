/**
 * One HTTP exchange: a fetch with a per-attempt timeout combined with the caller's
 * signal, the whole body read, and every failure sorted into what the retry rules need.
 *
 * @module
 */

/** Why an exchange produced no response. */
export type NetFailure =
  /** The attempt's timeout passed (while connecting, waiting or reading the body). */
  | { kind: "timeout" }
  /** The connection was refused: nothing reached the service, so any method may be retried. */
  | { kind: "refused"; detail: string; cause: unknown }
  /** The request failed on the way (reset, DNS, TLS): it may have been applied. */
  | { kind: "network"; detail: string; cause: unknown }
  /** The answer's body broke off. */
  | { kind: "body"; detail: string; cause: unknown };

/** A response with its whole body, or why there is none. */
export type Exchange = { ok: true; response: Response; body: Uint8Array } | { ok: false; failure: NetFailure };

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
 * Sends one request and reads the whole answer. Rejects only when `signal` aborts (with
 * its reason); every other failure is returned, sorted.
 */
export async function exchange(
  fetchFn: typeof fetch,
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Exchange> {
  if (signal?.aborted) throw signal.reason;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
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
    try {
      return { ok: true, response, body: new Uint8Array(await response.arrayBuffer()) };
    } catch (error) {
      return failed(error, "body");
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Whether this runs in Node (where `User-Agent` may be set; browsers forbid it). */
export function isNode(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  return typeof process?.versions?.node === "string";
}
