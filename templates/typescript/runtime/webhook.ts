/**
 * Webhook deliveries: reading one, and checking the authentication header that the
 * service's support configured for it.
 *
 * @module
 */

import { WebhookError } from "./errors.js";
import { decodeJson } from "./decode.js";
import type { Desc, Registry } from "./schema.js";

const encoder = new TextEncoder();

/**
 * Reads a delivery's JSON body as `d` (an interface's open `Event` union: an event type the
 * spec does not know is kept whole, never an error).
 *
 * @throws {@link DecodeError} for a body that is not JSON, or a known event whose payload does not fit (with its JSON path)
 */
export function parseDelivery<T>(reg: Registry, d: Desc, body: Uint8Array | string): T {
  return decodeJson(reg, d, body) as T;
}

/** Headers as `fetch` gives them, or as Node's `IncomingMessage.headers` holds them. */
export type DeliveryHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Checks that a delivery carries header `name` with exactly `expected`, compared in
 * constant time.
 *
 * @throws {@link WebhookError} when the header is missing, repeated or different; its message never holds either value
 */
export function verifyWebhook(headers: DeliveryHeaders, name: string, expected: string): void {
  const value = single(headers, name);
  if (value === undefined) throw new WebhookError(`the delivery has no single \`${name}\` header`);
  if (!sameBytes(value, expected)) throw new WebhookError(`the delivery's \`${name}\` header does not match`);
}

function single(headers: DeliveryHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    // `Headers` joins a repeated header with ", ".
    return headers.get(wanted) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === wanted);
  const value = key === undefined ? undefined : record[key];
  if (typeof value === "string") return value;
  return value !== undefined && value.length === 1 ? value[0] : undefined;
}

function sameBytes(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  // The length is the configured value's, not a secret; the bytes are.
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
