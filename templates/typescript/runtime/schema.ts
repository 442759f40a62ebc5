/**
 * Type descriptors, and the two walks over them: {@link decode} reads responses
 * tolerantly (nothing the service sends is lost), {@link validate} checks requests
 * strictly against the documented limits (every violation is collected).
 *
 * The generated code describes each named type once, in a {@link Registry}; descriptors
 * refer to one another by name, so recursive and shared shapes cost nothing.
 *
 * @module
 */

import { ConfigError, DecodeError, type Violation } from "./errors.js";
import { Secret } from "./secret.js";

export { DecodeError };
export type { Violation };

/** Any JSON value (what a `json` descriptor holds). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Which characters a string may hold. */
export type CharClass = "ascii_alphanumeric" | "ascii_digits";

/** Documented limits of a request value. Lengths count Unicode code points. */
export type Constraints = {
  /** At most this many characters. */
  maxLength?: number;
  /** Exactly this many characters. */
  length?: number;
  /** The smallest number allowed. */
  min?: number;
  /** The largest number allowed. */
  max?: number;
  /** Only characters of `allow`, and none of the characters of `forbid`. */
  chars?: { allow: CharClass; forbid: string };
  /** At least this many items. */
  minItems?: number;
  /** At most this many items. */
  maxItems?: number;
};

/** Describes one type: what a value looks like on the wire. */
export type Desc =
  /** A string (also a URL). */
  | { k: "string"; c?: Constraints }
  /** A JSON number that is an integer; `bits: 32` is range-checked on validation. */
  | { k: "int"; bits: 32 | 64; c?: Constraints }
  /** Any JSON number. */
  | { k: "number"; c?: Constraints }
  /** `true` or `false`. */
  | { k: "bool" }
  /** A calendar date, kept as the string `YYYY-MM-DD` (never converted to `Date`). */
  | { k: "date" }
  /** A date-time, kept as its ISO 8601 string. */
  | { k: "datetime" }
  /** A string holding either a date or a date-time. */
  | { k: "date_or_datetime" }
  /** Any JSON. */
  | { k: "json" }
  /** An opaque id string; a JSON number is accepted when decoding and replaced by its decimal text. */
  | { k: "id"; c?: Constraints }
  /** A string from a list. Open: unknown values are normal; closed: validation refuses them. */
  | { k: "enum"; values: readonly string[]; open: boolean }
  /** A JSON array of `of`. */
  | { k: "array"; of: Desc; c?: Constraints }
  /** A JSON object whose every property is an `of`. */
  | { k: "map"; of: Desc }
  /** A JSON scalar of one of the listed kinds; decoding accepts any kind, validation checks it. */
  | { k: "scalar"; of: readonly ("string" | "integer" | "boolean" | "number" | "null")[] }
  /** The named type of the registry. */
  | { k: "ref"; name: string }
  /**
   * A record: the described fields, and any other property kept untouched. `envelope`: a
   * record envelope (`{asset: {...}}`) whose wrapping is not documented for every answer;
   * an answer without that property is the bare record, read as if it were wrapped.
   */
  | { k: "object"; fields: readonly FieldDesc[]; oneOf?: OneOfDesc; envelope?: string }
  /**
   * A discriminated union: an object whose `tag` property picks the shape. `variants` maps a
   * tag value to the registry name of an object shape (which does not list the tag).
   */
  | { k: "union"; tag: string; common: readonly FieldDesc[]; variants: Readonly<Record<string, string>> };

/**
 * One property of a record.
 *
 * A field listed in a {@link OneOfDesc} variant is never `req`: its group is required, and
 * the one-of rule reports a missing or doubled group.
 */
export type FieldDesc = {
  /** The wire name. */
  name: string;
  /** Its type. */
  d: Desc;
  /** Required: absence is an error when decoding and a violation when validating. */
  req: boolean;
  /** Documented nullable: `null` is a value of its own, kept and allowed. */
  nul: boolean;
  /** A collection the service may leave out (or send as `null`): decoding puts an empty one there. */
  fill?: "array" | "map";
};

/**
 * Exactly one of several field groups must be present (a task's assignee). A group is
 * present when any of its fields is present and not `null`.
 */
export type OneOfDesc = {
  /** The name violations are reported under, e.g. `assignee`. */
  name: string;
  /** Each variant: its name and the wire names of the fields it adds. */
  variants: readonly { name: string; fields: readonly string[] }[];
};

/** Every named type of an interface, by name. */
export type Registry = Readonly<Record<string, Desc>>;

// ---------------------------------------------------------------- shared helpers

/** A plain JSON object (not `null`, not an array, not a `Secret`). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Secret);
}

/**
 * A property of a parsed JSON object, or `undefined`. JSON never holds a function, so a
 * function here is inherited (`constructor`, `toString`) and reads as absent; this is
 * cheaper than `Object.hasOwn` on the decoding hot path.
 */
function own(obj: Record<string, unknown>, name: string): unknown {
  const v = obj[name];
  return typeof v === "function" ? undefined : v;
}

/** The registry name of the shape a union tag selects, if the tag is known. */
function variantOf(variants: Readonly<Record<string, string>>, tag: unknown): string | undefined {
  if (typeof tag !== "string") return undefined;
  const shape: unknown = variants[tag];
  return typeof shape === "string" ? shape : undefined;
}

function resolve(reg: Registry, name: string): Desc {
  const d: unknown = reg[name];
  // An inherited `Object.prototype` member is a function, never a descriptor.
  if (typeof d !== "object" || d === null) {
    throw new ConfigError(`the type registry has no type \`${name}\` (regenerate the client)`);
  }
  return d as Desc;
}

/** The object shape a union tag names. */
function shapeOf(reg: Registry, name: string): Extract<Desc, { k: "object" }> {
  let d = resolve(reg, name);
  while (d.k === "ref") d = resolve(reg, d.name);
  if (d.k !== "object") throw new ConfigError(`the union shape \`${name}\` is not an object (regenerate the client)`);
  return d;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `a.key`, or `a["weird key"]` when the key is not an identifier. */
function keyPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** How a value is named in a message: its kind, and its text when short and harmless. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (value instanceof Secret) return "a secret";
  switch (typeof value) {
    case "string":
      // A long string may be a token; a short one helps the reader more than it could leak.
      return value.length <= 40 ? `string ${JSON.stringify(value)}` : `a string of ${[...value].length} characters`;
    case "number":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "object":
      return Array.isArray(value) ? "an array" : "an object";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Whether `x` is a union member whose tag this client does not know: kept whole and
 * written back unchanged by `JSON.stringify`.
 */
export function isUnknownMember(x: unknown): boolean {
  if (typeof x !== "object" || x === null) return false;
  const mark = Object.getOwnPropertyDescriptor(x, "$unknown");
  return mark !== undefined && !mark.enumerable && mark.value === true;
}

/** Marks `obj` as an unknown union member, invisibly to `JSON.stringify` and `Object.keys`. */
function markUnknown(obj: Record<string, unknown>): void {
  // A member that really has a `$unknown` property keeps it: nothing is ever lost.
  if (Object.hasOwn(obj, "$unknown")) return;
  Object.defineProperty(obj, "$unknown", { value: true, enumerable: false, configurable: true, writable: false });
}

// ---------------------------------------------------------------- additional properties

/** Where {@link withAdditional} keeps a record's additional properties: invisible to `JSON.stringify` and `Object.keys`. */
const ADDITIONAL: unique symbol = Symbol("additional properties");

/**
 * A copy of the request record `body` that also sends `properties`: properties the spec
 * does not list yet (the service may accept new optional ones before the spec has them).
 * The type stays `T`, so object literals keep their excess-property checks; the
 * properties go out beside the record's own when it is sent (also when it is nested in a
 * body), after those of an earlier `withAdditional` on it. Validation refuses one the spec
 * lists for the record: give that as a property of `body` instead.
 *
 * ```ts
 * await client.createUnit(withAdditional({ reference_number: "A-1" }, { color: "teal" }));
 * ```
 *
 * @throws {@link ConfigError} when `body` is not a record (an array, or not an object)
 */
export function withAdditional<T extends object>(body: T, properties: Readonly<Record<string, JsonValue>>): T {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ConfigError("withAdditional takes a record (a plain object) to add properties to");
  }
  const copy = { ...body };
  const value = Object.freeze({ ...additionalOf(body), ...properties });
  Object.defineProperty(copy, ADDITIONAL, { value, enumerable: false });
  return copy;
}

/** The additional properties {@link withAdditional} gave `value`, if any. */
export function additionalOf(value: unknown): Readonly<Record<string, JsonValue>> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  return (value as { [ADDITIONAL]?: Readonly<Record<string, JsonValue>> })[ADDITIONAL];
}

// ---------------------------------------------------------------- decode

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
      const obj = d.envelope !== undefined && own(v, d.envelope) === undefined ? { [d.envelope]: v } : v;
      decFields(reg, d.fields, obj);
      return obj;
    }
    case "union":
      return decUnion(reg, d, v);
  }
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

// ---------------------------------------------------------------- validate

const CLASS_TEXT: Record<CharClass, string> = {
  ascii_alphanumeric: "ASCII letters and digits",
  ascii_digits: "ASCII digits",
};

function allowed(cls: CharClass, c: string): boolean {
  return cls === "ascii_alphanumeric" ? /^[A-Za-z0-9]$/.test(c) : /^[0-9]$/.test(c);
}

/** A character as Rust's `{:?}` shows it: `'O'`, `'\n'`. */
function quoteChar(c: string): string {
  const json = JSON.stringify(c);
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function checkString(text: string, secret: boolean, c: Constraints | undefined, path: string, out: Violation[]): void {
  if (c === undefined) return;
  const chars = [...text];
  if (c.maxLength !== undefined && chars.length > c.maxLength) {
    out.push({ path, message: `must be at most ${c.maxLength} characters, got ${chars.length}` });
  }
  if (c.length !== undefined && chars.length !== c.length) {
    out.push({ path, message: `must be exactly ${c.length} characters, got ${chars.length}` });
  }
  if (c.chars !== undefined) {
    const { allow, forbid } = c.chars;
    const at = chars.findIndex((ch) => !allowed(allow, ch) || forbid.includes(ch));
    if (at >= 0) {
      const never = forbid === "" ? "" : `, never ${[...forbid].join(", ")}`;
      // A secret's characters are not shown, not even one.
      const found = secret ? "a character not allowed" : quoteChar(chars[at] ?? "");
      out.push({ path, message: `must hold only ${CLASS_TEXT[allow]}${never}; found ${found} at position ${at + 1}` });
    }
  }
}

function checkRange(n: number, c: Constraints | undefined, path: string, out: Violation[]): void {
  if (c === undefined) return;
  if (c.min !== undefined && n < c.min) out.push({ path, message: `must be at least ${c.min}, got ${n}` });
  if (c.max !== undefined && n > c.max) out.push({ path, message: `must be at most ${c.max}, got ${n}` });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A real calendar day (no 2026-02-30). */
function isCalendarDate(y: string, m: string, d: string): boolean {
  const day = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return day.getUTCFullYear() === Number(y) && day.getUTCMonth() === Number(m) - 1 && day.getUTCDate() === Number(d);
}

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return m !== null && isCalendarDate(m[1] ?? "", m[2] ?? "", m[3] ?? "");
}

function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  return (
    m !== null &&
    isCalendarDate(m[1] ?? "", m[2] ?? "", m[3] ?? "") &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6]) < 61
  );
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function scalarKind(v: unknown): "string" | "integer" | "number" | "boolean" | "null" | undefined {
  if (v === null) return "null";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number" && Number.isFinite(v)) return Number.isInteger(v) ? "integer" : "number";
  return undefined;
}

const KIND_TEXT = { string: "a string", integer: "an integer", number: "a number", boolean: "a boolean", null: "null" };

/**
 * Checks a request value against `d` and its documented limits, adding every violation to
 * `out` (nothing is thrown). `undefined` is "not given" and always passes here: a required
 * property's absence is reported by the record that holds it.
 *
 * @param path - the path of `value` in the request, e.g. `body` or `vin`; empty for a body's root
 */
export function validate(reg: Registry, d: Desc, value: unknown, path: string, out: Violation[]): void {
  if (value === undefined) return;
  switch (d.k) {
    case "string":
    case "id": {
      if (value instanceof Secret) return checkString(value.expose(), true, d.c, path, out);
      if (typeof value !== "string") return void out.push({ path, message: `expected a string, got ${describe(value)}` });
      return checkString(value, false, d.c, path, out);
    }
    case "int": {
      if (typeof value !== "number" || !Number.isInteger(value)) {
        return void out.push({ path, message: `expected an integer, got ${describe(value)}` });
      }
      if (d.bits === 32 && (value < INT32_MIN || value > INT32_MAX)) {
        out.push({ path, message: `must be a 32-bit integer (${INT32_MIN} to ${INT32_MAX}), got ${value}` });
      } else if (d.bits === 64 && !Number.isSafeInteger(value)) {
        out.push({ path, message: `must be at most ${Number.MAX_SAFE_INTEGER} in magnitude to be sent exactly, got ${value}` });
      }
      return checkRange(value, d.c, path, out);
    }
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return void out.push({ path, message: `expected a finite number, got ${describe(value)}` });
      }
      return checkRange(value, d.c, path, out);
    case "bool":
      if (typeof value !== "boolean") out.push({ path, message: `expected a boolean, got ${describe(value)}` });
      return;
    case "date":
      if (typeof value !== "string" || !isDate(value)) {
        out.push({ path, message: `expected an ISO 8601 date (YYYY-MM-DD), got ${describe(value)}` });
      }
      return;
    case "datetime":
      if (typeof value !== "string" || !isDateTime(value)) {
        out.push({ path, message: `expected an ISO 8601 date-time (2026-03-01T17:00:00Z), got ${describe(value)}` });
      }
      return;
    case "date_or_datetime":
      if (typeof value !== "string" || !(isDate(value) || isDateTime(value))) {
        out.push({ path, message: `expected an ISO 8601 date or date-time, got ${describe(value)}` });
      }
      return;
    case "json":
      return;
    case "enum":
      if (typeof value !== "string") return void out.push({ path, message: `expected a string, got ${describe(value)}` });
      if (!d.open && !d.values.includes(value)) {
        out.push({ path, message: `must be one of ${d.values.map((v) => `\`${v}\``).join(", ")}, got ${describe(value)}` });
      }
      return;
    case "scalar": {
      const kind = scalarKind(value);
      // An integer is also a number.
      const ok = kind !== undefined && (d.of.includes(kind) || (kind === "integer" && d.of.includes("number")));
      if (!ok) {
        const kinds = d.of.map((k) => KIND_TEXT[k]);
        const list = kinds.length <= 1 ? kinds.join("") : `${kinds.slice(0, -1).join(", ")} or ${kinds[kinds.length - 1]}`;
        out.push({ path, message: `expected ${list}, got ${describe(value)}` });
      }
      return;
    }
    case "array": {
      if (!Array.isArray(value)) return void out.push({ path, message: `expected an array, got ${describe(value)}` });
      const n = value.length;
      if (d.c?.minItems !== undefined && n < d.c.minItems) {
        out.push({ path, message: `must have at least ${d.c.minItems} items, got ${n}` });
      }
      if (d.c?.maxItems !== undefined && n > d.c.maxItems) {
        out.push({ path, message: `must have at most ${d.c.maxItems} items, got ${n}` });
      }
      value.forEach((item: unknown, i) => validate(reg, d.of, item, `${path}[${i}]`, out));
      return;
    }
    case "map":
      if (!isObject(value)) return void out.push({ path, message: `expected an object (a map), got ${describe(value)}` });
      for (const key of Object.keys(value)) validate(reg, d.of, value[key], keyPath(path, key), out);
      return;
    case "ref":
      return validate(reg, resolve(reg, d.name), value, path, out);
    case "object":
      if (!isObject(value)) return void out.push({ path, message: `expected an object, got ${describe(value)}` });
      checkFields(reg, d.fields, d.oneOf, value, path, out);
      return checkAdditional(value, [d.fields], undefined, path, out);
    case "union": {
      if (!isObject(value)) return void out.push({ path, message: `expected an object, got ${describe(value)}` });
      const tag = own(value, d.tag);
      const shape = variantOf(d.variants, tag);
      if (shape === undefined) {
        // A member read from the service and sent back unchanged is the service's own.
        if (isUnknownMember(value)) return;
        const known = Object.keys(d.variants).map((t) => `\`${t}\``).join(", ");
        return void out.push({ path: keyPath(path, d.tag), message: `must be one of ${known}, got ${describe(tag)}` });
      }
      checkFields(reg, d.common, undefined, value, path, out);
      const s = shapeOf(reg, shape);
      checkFields(reg, s.fields, s.oneOf, value, path, out);
      return checkAdditional(value, [d.common, s.fields], d.tag, path, out);
    }
  }
}

/**
 * Refuses an additional property ({@link withAdditional}) that the record lists: it
 * would replace the property's own value unchecked.
 */
function checkAdditional(
  obj: Record<string, unknown>,
  listed: readonly (readonly FieldDesc[])[],
  tag: string | undefined,
  path: string,
  out: Violation[],
): void {
  const extra = additionalOf(obj);
  if (extra === undefined) return;
  for (const key of Object.keys(extra)) {
    if (key === tag || listed.some((fields) => fields.some((f) => f.name === key))) {
      out.push({
        path: keyPath(path, key),
        message: "is a property the spec lists: give it as a property of the record, not as an additional one",
      });
    }
  }
}

function checkFields(
  reg: Registry,
  fields: readonly FieldDesc[],
  oneOf: OneOfDesc | undefined,
  obj: Record<string, unknown>,
  path: string,
  out: Violation[],
): void {
  // If none or several variants are present, the one-of violation says so.
  let oneOfViolation: Violation | undefined;
  if (oneOf !== undefined) {
    const present = oneOf.variants.filter((v) => v.fields.some((n) => own(obj, n) !== undefined && own(obj, n) !== null));
    if (present.length !== 1) {
      const group = (v: { fields: readonly string[] }): string => v.fields.map((f) => `\`${f}\``).join("+");
      const found = present.length === 0 ? "none" : present.map(group).join(" and ");
      oneOfViolation = {
        path: keyPath(path, oneOf.name),
        message: `expected exactly one of ${oneOf.variants.map(group).join(", ")}, found ${found}`,
      };
    }
  }
  for (const f of fields) {
    const v = own(obj, f.name);
    const p = keyPath(path, f.name);
    if (v === undefined) {
      if (f.req) out.push({ path: p, message: "is required" });
    } else if (v === null) {
      if (!f.nul) out.push({ path: p, message: f.req ? "must not be null" : "must not be null (leave it out instead)" });
    } else {
      validate(reg, f.d, v, p, out);
    }
  }
  if (oneOfViolation !== undefined) out.push(oneOfViolation);
}
