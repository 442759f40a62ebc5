/**
 * The tolerant walk: answers (and webhook deliveries) decoded against their descriptors,
 * keeping whatever the descriptors do not describe.
 *
 * @module
 */

import { DecodeError } from "./errors.js";
import {
  describe,
  isBare,
  isObject,
  isUnknownMember,
  keyPath,
  markUnknown,
  own,
  resolve,
  shapeOf,
  variantOf,
  type Desc,
  type FieldDesc,
  type Registry,
} from "./schema.js";

/**
 * Raised inside a decode walk. Path segments are added while it travels up (innermost
 * first), so a successful decode never builds a path at all.
 */
class Failure {
  readonly segments: (string | number)[] = [];
  detail: string;
  constructor(detail: string) {
    this.detail = detail;
  }
}

function formatPath(prefix: string, reversed: readonly (string | number)[]): string {
  let path = prefix;
  for (let i = reversed.length - 1; i >= 0; i--) {
    const seg = reversed[i];
    path = typeof seg === "number" ? `${path}[${seg}]` : keyPath(path, seg ?? "");
  }
  return path;
}

/**
 * Decodes a parsed JSON `value` as `d`, in place, and returns it (the same value, but ids
 * sent as numbers become strings, collections the service left out become empty, `null`s
 * of optional non-nullable properties are removed). Properties that `d` does not describe,
 * unknown enum values and unknown union members are kept; an unknown member is marked
 * (see {@link isUnknownMember}) and left untouched.
 *
 * @param path - the JSON path of `value` itself, prefixed to the paths of errors
 * @throws {@link DecodeError} naming the JSON path, what was found, and the union members
 *   passed through (``object `checklist`: type `checkbox`: expected a string, got number 5``)
 */
export function decode(reg: Registry, d: Desc, value: unknown, path = ""): unknown {
  const target = d.k === "ref" ? reg[d.name] : d;
  const fast = target?.k === "object" || target?.k === "union" ? target.fast : undefined;
  if (typeof fast === "function") {
    try {
      return fast(value);
    } catch {
      // The generated decoder gave up (or met what it does not read itself): the walk
      // reads the value again, from what the decoder left (its changes are the walk's own,
      // so reading them twice changes nothing), and names what does not fit.
    }
  }
  try {
    return dec(reg, d, value);
  } catch (e) {
    if (e instanceof Failure) throw new DecodeError(formatPath(path, e.segments), e.detail);
    throw e;
  }
}

function dec(reg: Registry, d: Desc, v: unknown): unknown {
  switch (d.k) {
    case "string":
    case "date":
    case "datetime":
    case "date_or_datetime":
      if (typeof v !== "string") throw new Failure(`expected a string, got ${describe(v)}`);
      return v;
    case "enum":
      if (typeof v !== "string") throw new Failure(`expected a string (an enum value), got ${describe(v)}`);
      return v;
    case "int":
      if (typeof v !== "number" || !Number.isInteger(v)) throw new Failure(`expected an integer, got ${describe(v)}`);
      return v;
    case "number":
      if (typeof v !== "number") throw new Failure(`expected a number, got ${describe(v)}`);
      return v;
    case "bool":
      if (typeof v !== "boolean") throw new Failure(`expected a boolean, got ${describe(v)}`);
      return v;
    case "json":
    case "scalar":
      return v;
    case "id":
      if (typeof v === "string") return v;
      // Documented as a string; some services send numbers, which are kept as their text.
      if (typeof v === "number" && Number.isInteger(v)) return String(v);
      throw new Failure(`expected an id (a string), got ${describe(v)}`);
    case "array":
      return decArray(reg, d.of, v);
    case "map":
      return decMap(reg, d.of, v);
    case "ref":
      return dec(reg, resolve(reg, d.name), v);
    case "object": {
      if (!isObject(v)) throw new Failure(`expected an object, got ${describe(v)}`);
      // The bare record where an envelope was expected: read as if it had been wrapped.
      const obj = d.envelope !== undefined && isBare(v, d.envelope, listed(reg, d.fields, d.envelope)) ? { [d.envelope]: v } : v;
      decFields(reg, d.fields, obj);
      return obj;
    }
    case "union":
      return decUnion(reg, d, v);
  }
}

/** The properties the record in an envelope's property `key` lists, fields and choices. */
function listed(reg: Registry, fields: readonly FieldDesc[], key: string): ReadonlySet<string> {
  let inner = fields.find((f) => f.name === key)?.d;
  if (inner?.k === "ref") inner = resolve(reg, inner.name);
  if (inner?.k !== "object") return new Set();
  const choices = inner.oneOf?.variants.flatMap((v) => v.fields) ?? [];
  return new Set([...inner.fields.map((f) => f.name), ...choices]);
}

function decArray(reg: Registry, of: Desc, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new Failure(`expected an array, got ${describe(v)}`);
  let i = 0;
  try {
    for (; i < v.length; i++) {
      const item: unknown = v[i];
      const decoded = dec(reg, of, item);
      if (decoded !== item) v[i] = decoded;
    }
  } catch (e) {
    if (e instanceof Failure) e.segments.push(i);
    throw e;
  }
  return v;
}

function decMap(reg: Registry, of: Desc, v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw new Failure(`expected an object (a map), got ${describe(v)}`);
  let key = "";
  try {
    for (key of Object.keys(v)) v[key] = dec(reg, of, v[key]);
  } catch (e) {
    if (e instanceof Failure) e.segments.push(key);
    throw e;
  }
  return v;
}

function decFields(reg: Registry, fields: readonly FieldDesc[], obj: Record<string, unknown>): void {
  let name = "";
  try {
    for (const f of fields) {
      name = f.name;
      const v = own(obj, name);
      if (v === undefined) {
        if (f.fill !== undefined) obj[name] = f.fill === "array" ? [] : {};
        else if (f.req) throw new Failure("is required, but absent");
        continue;
      }
      if (v === null) {
        if (f.nul) continue;
        // `null` where none is documented reads as absent: tolerant, and nothing is lost.
        if (f.fill !== undefined) obj[name] = f.fill === "array" ? [] : {};
        else if (f.req) throw new Failure("is required, but null");
        else delete obj[name];
        continue;
      }
      const decoded = dec(reg, f.d, v);
      // Most values come back as they were; a store only where one changed.
      if (decoded !== v) obj[name] = decoded;
    }
  } catch (e) {
    if (e instanceof Failure) e.segments.push(name);
    throw e;
  }
}

function decUnion(reg: Registry, d: Extract<Desc, { k: "union" }>, v: unknown): unknown {
  if (!isObject(v)) throw new Failure(`expected an object, got ${describe(v)}`);
  const tag = own(v, d.tag);
  const shape = variantOf(d.variants, tag);
  if (shape === undefined) {
    // A member this client does not know (or without a tag): kept whole, written back as is.
    markUnknown(v);
    return v;
  }
  try {
    decFields(reg, d.common, v);
    const s = shapeOf(reg, shape);
    decFields(reg, s.fields, v);
  } catch (e) {
    if (e instanceof Failure) e.detail = `${d.tag} \`${tag}\`: ${e.detail}`;
    throw e;
  }
  return v;
}

// ---------------------------------------------------------------- for the generated decoders

/** What a generated decoder throws to give up: a value, not an `Error` (no stack to capture). */
const GIVE_UP: unique symbol = Symbol("the generated decoder gives up");

/**
 * Gives up a generated decoder's reading: the descriptors' walk reads the answer again and
 * names what does not fit. Not part of the package's API.
 */
export function mismatch(): never {
  throw GIVE_UP;
}

/** An id sent as an integer, kept as its decimal text (as the walk reads `id`); else gives up. */
export function readId(v: unknown): string {
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  throw GIVE_UP;
}

const textDecoder = new TextDecoder();

/**
 * A JSON body (an answer with its `status`, or a webhook delivery) parsed and decoded as
 * `d`.
 *
 * @throws {@link DecodeError} naming the status and the JSON path of a failure; never quoting the body
 */
export function decodeJson(reg: Registry, d: Desc, body: Uint8Array | string, status?: number, contentType?: string | null): unknown {
  const text = typeof body === "string" ? body : textDecoder.decode(body);
  if (text.trim() === "") throw new DecodeError("", "the body is empty; JSON was expected", status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the body, which is not for error messages.
    const shown = contentType === null || contentType === undefined ? "" : ` (Content-Type ${contentType.split(";")[0]})`;
    throw new DecodeError("", `the body is not JSON${shown}`, status);
  }
  try {
    return decode(reg, d, parsed);
  } catch (e) {
    if (e instanceof DecodeError && status !== undefined) throw new DecodeError(e.path, e.detail, status);
    throw e;
  }
}
