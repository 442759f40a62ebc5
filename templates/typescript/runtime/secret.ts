/**
 * Secrets (an API key secret, a password, a token) that never show up in `String(x)`,
 * `JSON.stringify(x)`, `util.inspect(x)` or `console.log(x)`.
 *
 * @module
 */

/** What every rendering of a secret gives. */
const REDACTED = "Secret(<redacted>)";

/**
 * A secret string. The value lives in an ES private field, so no property enumeration,
 * serialisation or inspection reaches it; only {@link Secret.expose} does.
 *
 * A request body may hold `Secret` values (a password in a login body): the transport
 * sends their real value on the wire and nowhere else.
 */
export class Secret {
  readonly #value: string;

  /** Wraps `value`. */
  constructor(value: string) {
    this.#value = value;
  }

  /** `value` as a secret; a `Secret` is returned as is. */
  static from(value: Secret | string): Secret {
    return value instanceof Secret ? value : new Secret(value);
  }

  /** The secret itself, for the one place that must send it. */
  expose(): string {
    return this.#value;
  }

  /** `Secret(<redacted>)`. */
  toString(): string {
    return REDACTED;
  }

  /** `Secret(<redacted>)`, so `JSON.stringify` of anything holding a secret hides it. */
  toJSON(): string {
    return REDACTED;
  }

  /** `Secret(<redacted>)` for Node's `util.inspect` and `console.log`. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return REDACTED;
  }
}

/** The text of a value that may be a secret. */
export function reveal(value: Secret | string): string {
  return value instanceof Secret ? value.expose() : value;
}
