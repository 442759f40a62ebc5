// What the client reports through its hooks (`ClientOptions.hooks`), written as the README's
// snake_case JSON (`expect_events`), and the checks every step makes of it.

import type { ClientHooks } from "inspection-client";

import { Json, JsonObject, isObject, show } from "./json.js";
import { check } from "./patterns.js";

/** The README's `event` for each hook. */
const EVENTS = {
  onRequest: "request",
  onResponse: "response",
  onRetry: "retry",
  onPause: "pause",
  onPage: "page",
  onError: "error",
} as const;

type Kind = (typeof EVENTS)[keyof typeof EVENTS];

/**
 * The keys each event has besides `event`, with the type of their values: the README's,
 * plus the TypeScript client's `call_id` (and the request's server address and port).
 * An event with a key missing, one more, or a value of another type fails the step.
 */
const SHAPES: Record<Kind, Record<string, string>> = {
  request: {
    operation: "string",
    call_id: "number",
    method: "string",
    url_template: "string",
    attempt: "number",
    server_address: "string",
    server_port: "number",
  },
  response: {
    operation: "string",
    call_id: "number",
    method: "string",
    url_template: "string",
    attempt: "number",
    status: "number",
    duration_ms: "number",
    request_id: "string|null",
  },
  retry: {
    operation: "string",
    call_id: "number",
    attempt: "number",
    reason: "string",
    status: "number|null",
    wait_ms: "number",
    retry_after: "boolean",
  },
  pause: { operation: "string", call_id: "number", reason: "string", wait_ms: "number" },
  page: { operation: "string", call_id: "number", page: "number", items: "number" },
  error: { operation: "string", call_id: "number", error_type: "string", status: "number|null", attempt: "number" },
};

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function typeOf(value: Json): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** An event as the README writes it: `{event: request, operation: ..., url_template: ...}`. */
export function eventJson(kind: Kind, event: object): JsonObject {
  const out: JsonObject = { event: kind };
  for (const [key, value] of Object.entries(event)) out[snake(key)] = value as Json;
  return out;
}

/** Fails unless `event` has exactly the keys of its kind, each of its type. */
function checkShape(event: JsonObject): void {
  const kind = event["event"] as Kind;
  const shape = SHAPES[kind];
  const keys = Object.keys(event).filter((k) => k !== "event");
  const extra = keys.filter((k) => !Object.hasOwn(shape, k));
  const missing = Object.keys(shape).filter((k) => !keys.includes(k));
  if (extra.length > 0 || missing.length > 0) {
    const wrong = [...extra.map((k) => `an unknown \`${k}\``), ...missing.map((k) => `no \`${k}\``)];
    throw new Error(`a ${kind} event has ${wrong.join(", ")}: ${show(event)}`);
  }
  for (const [key, type] of Object.entries(shape)) {
    const actual = typeOf(event[key] ?? null);
    if (!type.split("|").includes(actual)) throw new Error(`a ${kind} event's \`${key}\` is ${actual}, not ${type}: ${show(event)}`);
  }
}

/** Every string a value holds, at any depth (keys too). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  }
  return out;
}

/** The events the hooks of every client a scenario makes report, as they come. */
export class EventLog {
  /** Each event as JSON, and the object the hook was given. */
  readonly #events: { json: JsonObject; raw: object }[] = [];

  /** Hooks recording into this log (given to every client the runner makes). */
  readonly hooks: ClientHooks = Object.fromEntries(
    Object.entries(EVENTS).map(([hook, kind]) => [hook, (event: object): void => this.#record(kind, event)]),
  ) as ClientHooks;

  #record(kind: Kind, event: object): void {
    this.#events.push({ json: eventJson(kind, event), raw: event });
  }

  /** The events since the last call, and empties the log. */
  take(): { json: JsonObject; raw: object }[] {
    return this.#events.splice(0, this.#events.length);
  }
}

/**
 * The checks of a step's events: each has the shape of its kind, and none holds a secret in
 * any value (of the object the hook was given); then, with `expected`, exactly as many as
 * reported, each matching its pattern in order.
 */
export function checkEvents(events: readonly { json: JsonObject; raw: object }[], secrets: readonly string[], expected: Json[] | undefined): void {
  for (const { json, raw } of events) {
    checkShape(json);
    for (const text of strings(raw)) {
      for (const secret of secrets) {
        if (text.includes(secret)) throw new Error(`an event holds the secret \`${secret}\`: ${show(json)}`);
      }
    }
  }
  if (expected === undefined) return;
  const actual = events.map((e) => e.json);
  const list = (): string => actual.map((e) => `\n    ${show(e)}`).join("");
  if (actual.length !== expected.length) {
    throw new Error(`expected ${expected.length} events, the client reported ${actual.length}:${list()}`);
  }
  expected.forEach((pattern, i) => {
    if (!isObject(pattern)) throw new Error(`expect_events[${i}] is a mapping, not ${show(pattern)}`);
    try {
      check(pattern, actual[i], `event ${i + 1}`);
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; the events:${list()}`);
    }
  });
}
