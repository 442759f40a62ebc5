/**
 * How requests authenticate. Credentials are `Secret`s, sent only to the base URL's
 * origin and never to pre-signed URLs.
 *
 * @module
 */

import { ConfigError, DecodeError } from "./errors.js";
import { Secret, reveal } from "./secret.js";

/** How a core of type `C` carries credentials (`Auth` in `core.ts` is this for `Core`). */
export type AuthOf<C> =
  /** No credentials. */
  | { kind: "none" }
  /** Fixed headers on every request (an API key id and secret); secret values as `Secret`. */
  | { kind: "headers"; headers: readonly { name: string; value: Secret | string }[] }
  /**
   * A token from a login, sent as `<header>: <scheme> <token>`. `login(core)` is called on
   * first use and once more when a request with a token is answered 401; it should send its
   * request with `anonymous: true`. `hidden`: what the login sends that must never be shown
   * (its password), scrubbed from errors like the token.
   */
  | { kind: "token"; header: string; scheme: string; login: (core: C) => Promise<Secret>; hidden?: readonly Secret[] };

/**
 * The token of a `token` auth: logs in lazily, and again on a 401, one login at a time
 * (concurrent requests share it).
 */
export class TokenState<C> {
  readonly #auth: Extract<AuthOf<C>, { kind: "token" }>;
  #token: Secret | undefined;
  /** Bumped at every login, so a request knows whether its token was already replaced. */
  #generation = 0;
  #inflight: Promise<void> | undefined;

  /** State for `auth`; no login happens yet. */
  constructor(auth: Extract<AuthOf<C>, { kind: "token" }>) {
    this.#auth = auth;
  }

  /** The generation of the token in use (0: none yet). */
  get generation(): number {
    return this.#generation;
  }

  /** Logs in unless a token is already there. */
  async ensure(core: C): Promise<void> {
    if (this.#token === undefined) await this.renew(this.#generation, core);
  }

  /** Logs in unless another request already did since generation `seen`. */
  renew(seen: number, core: C): Promise<void> {
    if (this.#generation !== seen && this.#token !== undefined) return Promise.resolve();
    this.#inflight ??= (async () => {
      try {
        const token = await this.#auth.login(core);
        this.#token = Secret.from(token);
        this.#generation += 1;
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }

  /** The login's hidden values and the current token, for scrubbing what the service echoes. */
  secrets(): string[] {
    const out = (this.#auth.hidden ?? []).map((s) => s.expose());
    if (this.#token !== undefined) out.push(this.#token.expose());
    return out;
  }

  /** Adds the token header to `headers`, when there is a token. */
  apply(headers: Record<string, string>): void {
    if (this.#token !== undefined) {
      headers[this.#auth.header.toLowerCase()] = `${this.#auth.scheme} ${this.#token.expose()}`;
    }
  }
}

/**
 * Whether every client of the service can send `value` in a header as it is: visible ASCII,
 * spaces and tabs. (`fetch` would send other characters up to U+00FF as Latin-1 bytes, and
 * refuse the rest with a message quoting them; the other clients send neither.)
 */
function headerSafe(value: string): boolean {
  return /^[\t\x20-\x7e]*$/.test(value);
}

/**
 * Refuses fixed credential headers a header cannot carry, when the client is made rather
 * than at the first request.
 *
 * @throws {@link ConfigError} naming the header, never its value or a character of it
 */
export function checkHeaders<C>(auth: AuthOf<C>): void {
  if (auth.kind !== "headers") return;
  for (const { name, value } of auth.headers) {
    if (!headerSafe(reveal(value))) throw new ConfigError(`the \`${name.toLowerCase()}\` credential holds characters a header cannot carry`);
  }
}

/**
 * The token of a login `answer`, its string property `field`, refused when the login
 * answers (rather than when a request would send it) if a header cannot carry it.
 *
 * @throws {@link DecodeError} at `field`, quoting nothing of the token
 */
export function loginToken(answer: unknown, field: string): Secret {
  const token = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>)[field] : undefined;
  const text = token instanceof Secret ? token.expose() : token;
  if (typeof text !== "string" || text === "") throw new DecodeError(field, "the login answer carries no token", 200);
  if (!headerSafe(text)) throw new DecodeError(field, "the token holds characters a header cannot carry (it is not shown)", 200);
  return new Secret(text);
}

/** Adds the fixed credential headers of `auth` to `headers`. */
export function applyHeaders<C>(auth: AuthOf<C>, headers: Record<string, string>): void {
  if (auth.kind !== "headers") return;
  for (const { name, value } of auth.headers) headers[name.toLowerCase()] = reveal(value);
}

/**
 * The string values found at `paths` in `value` (each path a list of property names),
 * as secrets: the fields of a login body the spec marks sensitive. Paths that lead nowhere
 * or to a non-string give nothing.
 */
export function secretsAt(value: unknown, paths: readonly (readonly string[])[]): Secret[] {
  const out: Secret[] = [];
  for (const path of paths) {
    let at: unknown = value;
    for (const key of path) {
      at = typeof at === "object" && at !== null && Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
    }
    if (typeof at === "string") out.push(new Secret(at));
    else if (at instanceof Secret) out.push(at);
  }
  return out;
}
