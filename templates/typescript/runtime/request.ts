/**
 * A request as the generated code describes it, and how it becomes a URL and a body.
 *
 * @module
 */

import { ForeignOriginError, ValidationError, type Violation } from "./errors.js";
import { sameOrigin } from "./origin.js";
import { additionalOf } from "./schema.js";
import { Secret } from "./secret.js";

/** The HTTP methods the services use. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One call: what the generated operation fills in, and the core sends. */
export interface RequestSpec {
  /** The operation's name (`get_unit`), for errors. */
  op: string;
  /** The HTTP method. */
  method: Method;
  /** The path template, e.g. `/units/{unit_id}`: what errors show instead of the URL. */
  path: string;
  /**
   * The path below the base URL: literal segments as strings, parameter values as
   * `{ value }`. Each value is percent-encoded as ONE segment, so an id holding `/`, `?`,
   * spaces or unicode stays one; a value that cannot be one segment (empty, `.`, `..`,
   * control characters) is refused with a `ValidationError`, even with validation off.
   */
  segments: readonly (string | { value: string })[];
  /** Query parameters as formatted text, in order; `undefined` values are left out. */
  query?: readonly (readonly [string, string | undefined])[];
  /**
   * A JSON body (`Content-Type: application/json`); `Secret` values in it are sent as their
   * value, and the additional properties of its records (`withAdditional`) beside their own.
   */
  body?: unknown;
  /**
   * A body sent as it is (text as UTF-8), as `contentType`, instead of `body`: one whose
   * format the service leaves open, such as a device log.
   */
  bytes?: Uint8Array | string;
  /** The media type of `bytes` (`Content-Type`). */
  contentType?: string;
  /**
   * Sensitive values of the body (its fields the spec marks `sensitive`): scrubbed from
   * every error of the call, wherever the service echoed them, like the credentials.
   */
  hidden?: readonly Secret[];
  /** `Accept`; otherwise the interface's default (`application/json`). */
  accept?: string;
  /** Sent without credentials (a login). */
  anonymous?: boolean;
  /** Appended to a 403's message, e.g. "only users with the manager role may call it". */
  hint?: string;
  /** A 202 (still preparing) is asked again with backoff, up to `maxPolls`, then `NotReadyError`. */
  poll?: boolean;
  /**
   * An absolute URL to call instead of base + segments + query (a next-page link). It must
   * be on the base URL's origin, or the call fails with `ForeignOriginError`.
   */
  url?: string;
}

/** `GET /units/{unit_id}`: how logs and errors name a request. */
export function describeRequest(req: RequestSpec): string {
  return `${req.method} ${req.path}`;
}

/** Why `value` cannot travel as one path segment, if it cannot. */
function unsendable(value: string): string | undefined {
  // URLs drop `.` and `..` segments and strip tabs and newlines, and an empty segment
  // changes the path: each would reach another endpoint.
  if (value === "" || value === "." || value === "..") return "it would reach another endpoint";
  if (/[\u0000-\u001f\u007f]/.test(value)) return "it holds a control character";
  return undefined;
}

/** Percent-encodes one path segment; `undefined` for text with a lone surrogate. */
function encodeSegment(value: string): string | undefined {
  try {
    return encodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * The URL `req` goes to under `base`.
 *
 * @throws {@link ValidationError} for a path value that cannot be one segment
 * @throws {@link ForeignOriginError} for a `req.url` on another origin than `base`'s
 */
export function requestUrl(base: URL, req: RequestSpec): URL {
  if (req.url !== undefined) {
    const url = new URL(req.url, base);
    if (!sameOrigin(url, base)) throw new ForeignOriginError("a link", url.origin);
    return url;
  }
  const parts: string[] = [];
  const bad: Violation[] = [];
  for (const segment of req.segments) {
    if (typeof segment === "string") {
      parts.push(segment);
      continue;
    }
    const value = String(segment.value);
    const why = unsendable(value);
    const encoded = why === undefined ? encodeSegment(value) : undefined;
    if (encoded === undefined) {
      const reason = why ?? "it is not well-formed Unicode";
      bad.push({ path: req.path, message: `the path value ${JSON.stringify(value)} cannot be sent as one segment (${reason})` });
    } else {
      parts.push(encoded);
    }
  }
  if (bad.length > 0) throw new ValidationError(bad);
  const url = new URL(base.href);
  url.hash = "";
  if (parts.length > 0) url.pathname = `${base.pathname.replace(/\/+$/, "")}/${parts.join("/")}`;
  for (const [name, value] of req.query ?? []) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url;
}

/**
 * The JSON text of a body; a `Secret` in it is written as its real value, on the wire only,
 * and a record's additional properties (`withAdditional`) after its own.
 */
export function serializeBody(body: unknown): string {
  return JSON.stringify(body, function (this: unknown, key: string, value: unknown): unknown {
    // `toJSON` has already turned a Secret into its redacted text; the holder still has it.
    const raw = (this as Record<string, unknown>)[key];
    if (raw instanceof Secret) return raw.expose();
    const extra = additionalOf(raw);
    // The copy has no additional properties of its own: it is written once.
    return extra === undefined ? value : { ...(value as object), ...extra };
  });
}
