/**
 * Where credentials may go: HTTPS only (plain HTTP for loopback hosts, for the sandbox),
 * and only to the base URL's own origin.
 *
 * @module
 */

import { ConfigError } from "./errors.js";

/** Whether `url`'s host is loopback: `localhost`, `127.0.0.0/8` or `::1`. */
export function isLoopback(url: URL): boolean {
  // `URL` has already normalised the host (lower case, `127.1` -> `127.0.0.1`, `[::1]`).
  const host = url.hostname;
  return host === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]";
}

/** Same scheme, host and port. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

/**
 * Parses `text` as a URL that may carry credentials or be fetched: `https://`, or
 * `http://` on a loopback host, with no user name or password in it. `what` names it in
 * the error ("the base URL", "a pre-signed URL").
 */
export function parseSecureUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text itself is not shown: it may be a pre-signed URL with its signature.
    throw new ConfigError(`${what} is not an absolute URL; expected https://host/...`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(`${what} must not carry a user name or password (${url.origin}); pass credentials as auth instead`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:") {
    if (isLoopback(url)) return url;
    throw new ConfigError(
      `${what} must use https (plain http is only allowed for loopback hosts): ${url.origin}`,
    );
  }
  throw new ConfigError(`${what} has unsupported scheme \`${url.protocol.replace(/:$/, "")}\`; use https`);
}

/** `origin + path` of `url`: how errors show a pre-signed URL, without its signed query. */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
