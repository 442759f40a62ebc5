// A step's call through the generated client, and its outcome as JSON. No Node API: the
// browser runner loads it too.

import {
  ApiError,
  DecodeError,
  ForeignOriginError,
  InterruptedError,
  NotReadyError,
  TooLargeError,
  ValidationError,
  errorKind,
  legacy,
  v3,
  withAdditional,
  type Registry,
} from "inspection-client";

import { Json, JsonObject, isObject, show } from "./json.js";
import type { Mode } from "./scenarios.js";
import type { Operation, Operations } from "./operations.js";

/**
 * How a value is shown in full (an error with its fields, stack and causes): Node's
 * `util.inspect` where the runner has it (`useInspect`), else `showAll`.
 */
let inspectValue: (value: unknown) => string = (value) => showAll(value);

export function useInspect(inspect: (value: unknown) => string): void {
  inspectValue = inspect;
}

/**
 * Every own property of `value` (enumerable or not: an error's `message`, `stack`, `cause`
 * and fields), as text, to `depth` levels: what `util.inspect` shows, where there is none.
 */
export function showAll(value: unknown, depth = 6, seen = new Set<unknown>()): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object" || value === null) return String(value);
  if (seen.has(value) || depth < 0) return "[...]";
  seen.add(value);
  const parts: string[] = [];
  for (const key of Reflect.ownKeys(value)) {
    let field: unknown;
    try {
      field = (value as Record<string | symbol, unknown>)[key];
    } catch {
      continue;
    }
    if (typeof field === "function") continue;
    parts.push(`${String(key)}: ${showAll(field, depth - 1, seen)}`);
  }
  const name = (value as { constructor?: { name?: string } }).constructor?.name ?? "Object";
  return `${name} { ${parts.join(", ")} }`;
}

/** What a call gave: a result, an error, or for a paging walk both. */
export interface Outcome {
  result?: Json;
  error?: unknown;
}

/**
 * The error as the JSON the `error` expectation is matched against (as the Rust runner's
 * call.rs): its kind as the client names it (`errorKind`, also its events'), and what each
 * kind carries.
 */
export function describeError(e: unknown): Json {
  // A walk interrupted past its start: the page's own error, and where to resume.
  if (e instanceof InterruptedError) {
    const inner = describeError(e.cause);
    return isObject(inner) ? { ...inner, resume: e.resume.toString() } : inner;
  }
  const kind = errorKind(e);
  if (e instanceof ApiError) {
    const retryAfterS = e.retryAfterMs === undefined ? null : Math.floor(e.retryAfterMs / 1000);
    return { kind, status: e.status, message: e.serviceMessage ?? null, retry_after_s: retryAfterS };
  }
  if (e instanceof ValidationError) return { kind, paths: e.violations.map((v) => v.path).sort() };
  if (e instanceof DecodeError) return { kind, status: e.status ?? null, path: e.path };
  if (e instanceof NotReadyError) {
    const asked = e.retryAfterMs;
    return {
      kind,
      attempts: e.attempts,
      retry_after_s: asked === undefined ? null : Number.isFinite(asked) ? Math.floor(asked / 1000) : Number.MAX_VALUE,
    };
  }
  if (e instanceof TooLargeError) return { kind, limit: e.limit };
  if (e instanceof ForeignOriginError) {
    return { kind, origin: e.origin, via: e.what === "a redirect" ? "redirect" : "link" };
  }
  return kind === "unknown" ? { kind, debug: inspectValue(e) } : { kind };
}

/** What a user sees of an error: its text, its inspection and its JSON. */
export function errorText(e: unknown): string {
  let json = "";
  try {
    json = JSON.stringify(e) ?? "";
  } catch {
    json = "";
  }
  return `${String(e)} ${inspectValue(e)} ${json}`;
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** A call's answer as JSON: bytes as `{size, text}`, nothing as null, values written back. */
function toJson(value: unknown): Json {
  if (value === undefined) return null;
  if (value instanceof Uint8Array) return { size: value.length, text: utf8.decode(value) };
  return JSON.parse(JSON.stringify(value)) as Json;
}

export async function settle(call: () => unknown): Promise<Outcome> {
  try {
    return { result: toJson(await call()) };
  } catch (error) {
    return { error };
  }
}

/** Every page or item of a walk, and the error that ended it early, if any. */
async function collect(walk: () => AsyncIterable<unknown>): Promise<Outcome> {
  const items: Json[] = [];
  try {
    for await (const item of walk()) items.push(toJson(item));
  } catch (error) {
    return { result: items, error };
  }
  return { result: items };
}

/**
 * Mode `items_resumed`: every record; a walk that fails past its start is started again
 * at its error's resume point, a fresh walk's failed first page from the start (each at
 * most 500 times). The result: `{records, distinct_ids, interruptions}`.
 */
async function walkResumed(start: (from: unknown) => AsyncIterable<unknown>): Promise<Outcome> {
  let records = 0;
  const ids = new Set<string>();
  let interruptions = 0;
  let restarts = 0;
  let from: unknown = undefined;
  for (;;) {
    let failure: unknown = undefined;
    try {
      for await (const item of start(from)) {
        records += 1;
        const json = toJson(item) as Json;
        ids.add(JSON.stringify(isObject(json) ? json["id"] : json));
      }
    } catch (error) {
      failure = error ?? new Error("a walk failed with nothing");
    }
    from = undefined;
    const result = { records, distinct_ids: ids.size, interruptions };
    if (failure === undefined) return { result };
    if (failure instanceof InterruptedError && interruptions < 500) {
      interruptions += 1;
      from = failure.resume;
      continue;
    }
    if (records === 0 && restarts < 500) {
      restarts += 1;
      continue;
    }
    return { result, error: failure };
  }
}

/** A step's `args`, taken key by key, so leftovers can be named. */
export class Args {
  readonly path: JsonObject;
  readonly query: JsonObject;
  body: Json | undefined;
  readonly other: JsonObject;

  constructor(args: Json | undefined) {
    if (args !== undefined && args !== null && !isObject(args)) throw new Error(`\`args\` is a mapping, not ${show(args)}`);
    const map: JsonObject = { ...(args ?? {}) };
    const section = (name: string): JsonObject => {
      const v = map[name];
      delete map[name];
      if (v === undefined || v === null) return {};
      if (!isObject(v)) throw new Error(`\`args.${name}\` is a mapping, not ${show(v)}`);
      return { ...v };
    };
    this.path = section("path");
    this.query = section("query");
    this.body = map["body"];
    delete map["body"];
    this.other = map;
  }

  take(name: string): Json | undefined {
    const v = this.other[name];
    delete this.other[name];
    return v ?? undefined;
  }

  string(name: string, required: true): string;
  string(name: string, required: false): string | undefined;
  string(name: string, required: boolean): string | undefined {
    const v = this.take(name);
    if (v === undefined) {
      if (required) throw new Error(`\`args.${name}\` is required`);
      return undefined;
    }
    if (typeof v !== "string") throw new Error(`\`args.${name}\` is a string, not ${show(v)}`);
    return v;
  }

  strings(name: string): string[] {
    const v = this.take(name);
    if (!Array.isArray(v) || !v.every((s): s is string => typeof s === "string")) {
      throw new Error(`\`args.${name}\` is a list of strings, not ${show(v)}`);
    }
    return v;
  }

  /** Fails when an argument was given that the call does not take. */
  finish(): void {
    const left = [
      ...Object.keys(this.path).map((k) => `path.${k}`),
      ...Object.keys(this.query).map((k) => `query.${k}`),
      ...(this.body === undefined ? [] : ["body"]),
      ...Object.keys(this.other),
    ];
    if (left.length > 0) throw new Error(`this call takes no \`args.${left.join("`, `args.")}\``);
  }
}

export type AnyClient = v3.Client | legacy.Client;

const encoder = new TextEncoder();

/** The client actions both interfaces have; undefined for other names. */
async function presignedAction(client: AnyClient, name: string, a: Args): Promise<Outcome | undefined> {
  switch (name) {
    case "fetch_presigned": {
      const url = a.string("url", true);
      return settle(() => client.fetchPresigned(url));
    }
    case "put_presigned": {
      const url = a.string("url", true);
      const body = a.string("body_text", true);
      const contentType = a.string("content_type", false);
      return settle(async () => {
        const { etag } = await client.putPresigned(url, encoder.encode(body), contentType);
        return { etag: etag ?? null };
      });
    }
    case "put_parts": {
      const urls = a.strings("urls");
      const parts = a.strings("parts").map((p) => encoder.encode(p));
      const contentType = a.string("content_type", false);
      const concurrency = a.take("concurrency") ?? 1;
      if (typeof concurrency !== "number") throw new Error(`\`args.concurrency\` is a number, not ${show(concurrency)}`);
      return settle(async () => {
        const etags = await client.putParts(urls, parts, contentType, concurrency);
        return etags.map((etag, i) => ({ part_number: i + 1, etag }));
      });
    }
    default:
      return undefined;
  }
}

/** A path value: ids as text; for a record reference also `{external: X}` or `{self: true}`. */
function pathValue(value: Json | undefined, name: string, ref: boolean): unknown {
  if (value === undefined) throw new Error(`\`args.path.${name}\` is required`);
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (ref && isObject(value) && Object.keys(value).length === 1) {
    if (value["self"] === true) return { self: true };
    if (typeof value["external"] === "string") return { external: value["external"] };
  }
  throw new Error(`\`args.path.${name}\`: ${ref ? "an id, {external: ...} or {self: true}" : "a string or number"}, not ${show(value)}`);
}

const SCHEMAS = { v3: v3.SCHEMA, legacy: legacy.SCHEMA };

/**
 * A JSON body as the client takes it: the properties its record type does not list go
 * through `withAdditional`, as serde puts them in `additional_properties` in Rust.
 */
function withUnlisted(schema: Registry, type: string | undefined, body: Json): unknown {
  const d = type === undefined ? undefined : schema[type];
  if (d?.k !== "object" || !isObject(body)) return body;
  const listed = new Set(d.fields.map((f) => f.name));
  const own: JsonObject = {};
  const unlisted: JsonObject = {};
  for (const [key, value] of Object.entries(body)) (listed.has(key) ? own : unlisted)[key] = value;
  return Object.keys(unlisted).length === 0 ? body : withAdditional(own, unlisted);
}

/**
 * The arguments of `op`'s client method, taken from a step's `args` (what is left there
 * is what the call does not take): in the method's order, the path values, the body, the
 * query, a binary body's content type, and a paged operation's resume point.
 */
function argumentsOf(op: Operation, schema: Registry, a: Args): unknown[] {
  const positional: unknown[] = op.pathParams.map((p) => {
    const value = pathValue(a.path[p.name], p.name, p.ref);
    delete a.path[p.name];
    return value;
  });
  let contentType: string | undefined;
  if (op.body?.binary === true) {
    positional.push(encoder.encode(a.string("body_text", true)));
    contentType = a.string("content_type", false);
  } else if (op.body !== undefined) {
    if (a.body === undefined && !op.body.optional) throw new Error("`args.body` is required");
    positional.push(a.body === undefined ? undefined : withUnlisted(schema, op.body.type, a.body));
    a.body = undefined;
  }
  if (op.query.length > 0) {
    const query: JsonObject = {};
    for (const q of op.query) {
      const value = a.query[q.name];
      if (value !== undefined) query[q.name] = value;
      else if (q.required) throw new Error(`\`args.query.${q.name}\` is required`);
      delete a.query[q.name];
    }
    positional.push(Object.keys(query).length === 0 && !op.query.some((q) => q.required) ? undefined : query);
  }
  // The content type of a binary body comes last before the options.
  if (op.body?.binary === true) positional.push(contentType);
  // A paged operation starts at `args.resume` (an interrupted walk's `resume`) when given.
  const resume = op.paginated ? a.string("resume", false) : undefined;
  if (resume !== undefined) positional.push({ resume });
  return positional;
}

/** What a paged operation's method returns: a walk of its pages and items. */
type Walk = {
  first(): Promise<unknown>;
  pages(): AsyncIterable<unknown>;
  backward(): AsyncIterable<unknown>;
  pagesBackward(): AsyncIterable<unknown>;
} & AsyncIterable<unknown>;

/**
 * A paged operation called in `mode`: its first page, or its walk of pages or items.
 * `start` calls the method, from `from` (an interrupted walk's resume point) when given.
 */
async function callWalk(start: (from?: unknown) => Walk, mode: Mode, unsupported: () => Error): Promise<Outcome> {
  // Validation happens when the method is called; a walk then has collected nothing.
  let list: Walk;
  try {
    list = start();
  } catch (error) {
    return mode === "send" ? { error } : { result: [], error };
  }
  switch (mode) {
    case "send":
      return settle(() => list.first());
    case "pages":
      return collect(() => list.pages());
    case "items":
      return collect(() => list);
    case "pages_backward":
      return collect(() => list.pagesBackward());
    case "items_backward":
      return collect(() => list.backward());
    case "items_resumed":
      return walkResumed(start);
    case "pdf":
      throw unsupported();
  }
}

/** A step's call of an operation (or a client action) on the generated client. */
export async function callOperation(
  operations: Operations,
  client: AnyClient,
  iface: "v3" | "legacy",
  name: string,
  a: Args,
  mode: Mode,
): Promise<Outcome> {
  const op = operations[iface].get(name);
  if (op === undefined) {
    const outcome = await presignedAction(client, name, a);
    if (outcome === undefined) throw new Error(`\`${name}\` is no ${iface} operation or client action`);
    a.finish();
    return outcome;
  }
  const methods = client as unknown as Record<string, unknown>;
  const method = methods[op.method];
  if (typeof method !== "function") throw new Error(`the ${iface} client has no method \`${op.method}\` for \`${name}\``);
  const positional = argumentsOf(op, SCHEMAS[iface], a);
  a.finish();
  const invoke = (fn: unknown, args = positional): unknown => (fn as (...values: unknown[]) => unknown).apply(client, args);
  const unsupported = (): Error => new Error(`\`${name}\` cannot be called in mode ${mode}`);
  if (op.paginated) {
    return callWalk((from) => invoke(method, from === undefined ? positional : [...positional, { resume: from }]) as Walk, mode, unsupported);
  }
  switch (mode) {
    case "send":
      return settle(() => invoke(method));
    case "pdf": {
      const pdf = methods[`${op.method}Pdf`];
      if (typeof pdf === "function") return settle(() => invoke(pdf));
      if (op.binaryOnly) return settle(() => invoke(method));
      throw unsupported();
    }
    default:
      throw unsupported();
  }
}
