/**
 * The one error hierarchy of the client. No error ever carries a credential, a header
 * value or a request body: messages name the operation by method and path template, and
 * URLs are shown by origin and path only (a query may hold a signature).
 *
 * @module
 */

/** One broken limit of a request: where, and what the limit is. */
export interface Violation {
  /** The field path, e.g. `vin`, `assignee_username` or `items[2].label`. */
  path: string;
  /** What the limit is and what was given: `must be exactly 17 characters, got 16`. */
  message: string;
}

/**
 * Sets `name` on a class's prototype, not on each instance, so it stays out of
 * `JSON.stringify` and `util.inspect`'s property list while stack traces still show it.
 */
function named(cls: { prototype: Error }, name: string): void {
  Object.defineProperty(cls.prototype, "name", {
    value: name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/** The base of every error the client throws; `instanceof InspectionError` catches them all. */
export class InspectionError extends Error {}

/** The service answered with an error status. */
export class ApiError extends InspectionError {
  /** The HTTP status. */
  readonly status: number;
  /** The service's own message (the error body's message field), when the body had one. */
  readonly serviceMessage: string | undefined;
  /** How long the service asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The request method. */
  readonly method: string;
  /** The path template of the operation, e.g. `/units/{unit_id}`. */
  readonly path: string;
  /** What a 403 most likely means for this operation (e.g. the role it needs). */
  readonly hint: string | undefined;

  /** Builds the error; the message reads `GET /units/{unit_id} answered 404: <message>`. */
  constructor(init: {
    status: number;
    serviceMessage?: string | undefined;
    retryAfterMs?: number | undefined;
    method: string;
    path: string;
    hint?: string | undefined;
  }) {
    let text = `${init.method} ${init.path} answered ${init.status}`;
    if (init.serviceMessage !== undefined) text += `: ${init.serviceMessage}`;
    // A hint explains a refusal; on other statuses it would mislead.
    if (init.status === 403 && init.hint !== undefined) text += ` (${init.hint})`;
    if (init.retryAfterMs !== undefined) text += ` (retry after ${Math.ceil(init.retryAfterMs / 1000)} s)`;
    super(text);
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.method = init.method;
    this.path = init.path;
    this.hint = init.hint;
  }
}

/** The request broke documented limits; nothing was sent. Lists every violation. */
export class ValidationError extends InspectionError {
  /** Builds the error; the message reads `invalid request: vin: must be ...; year: ...`. */
  constructor(
    /** Every broken limit, in the order found. */
    readonly violations: readonly Violation[],
  ) {
    super(`invalid request: ${violations.map((v) => `${v.path}: ${v.message}`).join("; ")}`);
  }
}

/** The connection failed, or the response body could not be read. */
export class TransportError extends InspectionError {
  /** Builds the error; `detail` says what failed, `cause` is the platform's error. */
  constructor(
    /** The request method. */
    readonly method: string,
    /** The path template (or, for a pre-signed URL, its origin and path). */
    readonly path: string,
    detail: string,
    cause?: unknown,
  ) {
    super(`transport error on ${method} ${path}: ${detail}`, cause === undefined ? undefined : { cause });
  }
}

/** No answer within the timeout of an attempt (every retry timed out too). */
export class TimeoutError extends TransportError {
  /** Builds the error for `method path` after `timeoutMs`. */
  constructor(
    method: string,
    path: string,
    /** The timeout of one attempt, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(method, path, `no answer within ${timeoutMs} ms`);
    this.message = `${method} ${path} timed out after ${timeoutMs} ms`;
  }
}

/** A response body did not match the documented shape. */
export class DecodeError extends InspectionError {
  /** Builds the error. */
  constructor(
    /** The JSON path of the failure, e.g. `data[0].results[1].data[2].items[1].label` (empty: the whole body). */
    readonly path: string,
    /** What was wrong there, naming the union members passed through: ``object `checklist`: expected a string, got number 5``. */
    readonly detail: string,
    /** The HTTP status of the response, when the error comes from a response. */
    readonly status: number | undefined = undefined,
  ) {
    const what = status === undefined ? "the value" : `the ${status} response`;
    super(path === "" ? `cannot decode ${what}: ${detail}` : `cannot decode ${what} at \`${path}\`: ${detail}`);
  }
}

/**
 * The service kept answering 202 (still preparing) past the polling limit, or asked
 * (`Retry-After`) to wait longer than the client's longest wait (`retry.maxBackoffMs`),
 * which ends the polling at once.
 */
export class NotReadyError extends InspectionError {
  /** Builds the error. */
  constructor(
    /** `GET /inspections/{inspection_id}`: the operation that was polled. */
    readonly operation: string,
    /** Requests made (every answer was 202). */
    readonly attempts: number,
    /** Time spent waiting between polls, in milliseconds. */
    readonly waitedMs: number,
    /**
     * The wait the service asked for, in milliseconds, when it was longer than the client
     * waits (`Infinity` for one too long to count); `undefined` when polling ran out.
     */
    readonly retryAfterMs: number | undefined = undefined,
  ) {
    let text = `${operation} was still not ready after ${attempts} attempts (${waitedMs} ms)`;
    if (retryAfterMs !== undefined) {
      const asked = Number.isFinite(retryAfterMs) ? `${Math.floor(retryAfterMs / 1000)} s` : "longer than can be counted";
      text += `; the service asked to wait ${asked} more, longer than the client waits (retry.maxBackoffMs)`;
    }
    super(text);
  }
}

/**
 * A success body was larger than the client's `maxResponseBytes`: refused by its
 * `Content-Length`, or as soon as the bytes read passed the limit, so no more than the
 * limit was read. A download written to a stream (the `...To` methods) has no limit.
 */
export class TooLargeError extends InspectionError {
  /** Builds the error. */
  constructor(
    /** `GET /units/{unit_id}`: the operation (or `GET <origin/path>` of a pre-signed URL). */
    readonly operation: string,
    /** The limit, in bytes. */
    readonly limit: number,
  ) {
    super(
      `the answer to ${operation} is larger than the client's limit of ${limit} bytes (maxResponseBytes; downloads can be written to a stream instead)`,
    );
  }
}

/**
 * A redirect, a next-page link or a URL pointed at another origin than the base URL's; it
 * was not followed, so no credential went there.
 */
export class ForeignOriginError extends InspectionError {
  /** Builds the error. */
  constructor(
    /** What pointed away: `a redirect`, `a next-page link`, `a link`. */
    readonly what: string,
    /** The origin it pointed at (`https://host:port`), never a path or query. */
    readonly origin: string,
  ) {
    super(`refused to follow ${what} to another origin (${origin})`);
  }
}

/**
 * Paging did not advance: a next link or cursor came back that was seen before, more
 * empty pages in a row than `maxEmptyPages` each pointed to another, or a page with
 * records had no way on and nothing saying it is the last (`reason` says what it held).
 */
export class PagingStalledError extends InspectionError {
  /** Builds the error. */
  constructor(
    /** The paged operation, e.g. `GET /units`. */
    readonly operation: string,
    /** Why the walk stopped. */
    readonly reason: string = "a next page seen before came back",
  ) {
    super(`paging did not advance at ${operation} (${reason})`);
  }
}

/**
 * A page of a walk other than its start could not be fetched. `cause` is what went wrong
 * (an `ApiError`, a `TimeoutError`, ...); `resume` is where the walk can start again: pass
 * it (or its text, `cursor:...` / `link:...`, e.g. stored to resume in another process) as
 * the list operation's `resume` option, so nothing is fetched twice.
 */
export class InterruptedError extends InspectionError {
  /** What went wrong fetching the page. */
  declare readonly cause: InspectionError;

  /** Builds the error around the page's own error. */
  constructor(
    /** Where to start again. */
    readonly resume: Resume,
    cause: InspectionError,
  ) {
    super(`${cause.message} (the walk can resume at this page: ${resume.toString()})`, { cause });
  }
}

/**
 * Where a walk can start again: the cursor or the link of the page it could not fetch.
 * Its text (`cursor:<cursor>`, `link:<url>`) can be stored and read back with
 * {@link Resume.parse}.
 */
export class Resume {
  private constructor(
    /** `cursor`: sent as the list's page parameter; `link`: an absolute URL, called as it is. */
    readonly kind: "cursor" | "link",
    /** The cursor, or the URL. */
    readonly value: string,
  ) {}

  /** Resumes at the page a cursor names. */
  static cursor(cursor: string): Resume {
    return new Resume("cursor", cursor);
  }

  /** Resumes at the page an absolute link names. */
  static link(url: string): Resume {
    return new Resume("link", url);
  }

  /**
   * Reads the text form back; a `Resume` is returned as is.
   *
   * @throws {@link ConfigError} for text that is neither `cursor:...` nor `link:...`
   */
  static parse(text: Resume | string): Resume {
    if (text instanceof Resume) return text;
    if (text.startsWith("cursor:")) return Resume.cursor(text.slice("cursor:".length));
    if (text.startsWith("link:")) return Resume.link(text.slice("link:".length));
    throw new ConfigError(`\`${[...text].slice(0, 40).join("")}\` is not a resume point (\`cursor:...\` or \`link:...\`)`);
  }

  /** `cursor:<cursor>` or `link:<url>`. */
  toString(): string {
    return `${this.kind}:${this.value}`;
  }

  /** The text form, so a stored error or state serialises it readably. */
  toJSON(): string {
    return this.toString();
  }
}

/** The client was set up wrongly (a plain-http base URL that is not loopback, a bad option). */
export class ConfigError extends InspectionError {
  /** Builds the error; `message` says what is wrong and how to fix it. */
  constructor(message: string) {
    super(`configuration error: ${message}`);
  }
}

/** A webhook delivery's authentication header is missing or wrong (its value is never shown). */
export class WebhookError extends InspectionError {
  /** Builds the error. */
  constructor(message: string) {
    super(`webhook delivery refused: ${message}`);
  }
}

// Names live on the prototypes (not in static blocks, which older Safari lacks).
named(InspectionError, "InspectionError");
named(ApiError, "ApiError");
named(ValidationError, "ValidationError");
named(TransportError, "TransportError");
named(TimeoutError, "TimeoutError");
named(DecodeError, "DecodeError");
named(NotReadyError, "NotReadyError");
named(ForeignOriginError, "ForeignOriginError");
named(PagingStalledError, "PagingStalledError");
named(TooLargeError, "TooLargeError");
named(InterruptedError, "InterruptedError");
named(ConfigError, "ConfigError");

/**
 * Reads the message of an error body. The documented form is `{"<field>": "message"}`; an
 * array there is joined with `; `, an object is shown as JSON text, a JSON string body is
 * taken as is, and an HTML or other text body gives its first 500 characters, so no answer
 * of the service breaks error reporting. `undefined` for an empty body or one without the
 * field.
 */
export function errorMessage(body: Uint8Array, field: string): string | undefined {
  const text = new TextDecoder().decode(body).trim();
  if (text === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [...text].slice(0, 500).join("");
  }
  if (typeof parsed === "string") return parsed;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return [...text].slice(0, 500).join("");
  }
  const value = (parsed as Record<string, unknown>)[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join("; ");
  }
  return JSON.stringify(value);
}
named(WebhookError, "WebhookError");

/** What a secret is replaced by in error texts. */
const REDACTED = "<redacted>";

/**
 * `text` with every occurrence of each secret of four characters or more replaced by
 * `<redacted>`. Shorter secrets are left alone: replacing them would garble ordinary
 * words, and reveal little.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // A secret inside the replacement itself would grow at every pass: left alone.
    if ([...secret].length >= 4 && !REDACTED.includes(secret) && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * Replaces each secret in every text `error` holds, in place: its message and stack, its
 * own string properties (`serviceMessage`, `detail`, `path`, ...), violation messages, and
 * the same for its causes (the platform's errors included). The service may echo a
 * credential into an error body, or a decode error may quote a value; either would reach
 * logs. Returns `error`.
 */
export function scrubError<E>(error: E, secrets: readonly string[]): E {
  if (!secrets.some((s) => [...s].length >= 4)) return error;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const target = current as Record<string, unknown>;
    for (const key of [...Object.keys(target), "message", "stack"]) {
      const value = target[key];
      try {
        if (typeof value === "string") target[key] = scrub(value, secrets);
        else if (key === "violations" && Array.isArray(value)) {
          target[key] = value.map((v: Violation) => ({ path: scrub(v.path, secrets), message: scrub(v.message, secrets) }));
        }
      } catch {
        // A frozen or read-only property of a platform error: leave it.
      }
    }
    current = target["cause"];
  }
  return error;
}
