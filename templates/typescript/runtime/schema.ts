/**
 * Type descriptors, and what the two walks over them share: `decode.ts` reads responses
 * tolerantly (nothing the service sends is lost), `validate.ts` checks requests strictly
 * against the documented limits (every violation is collected).
 *
 * The generated code describes each named type once, in a {@link Registry}; descriptors
 * refer to one another by name, so recursive and shared shapes cost nothing.
 *
 * @module
 */

import { ConfigError } from "./errors.js";
import { Secret } from "./secret.js";


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
  /** A string (also a URL); `sec`: a secret, whose characters no violation shows. */
  | { k: "string"; c?: Constraints; sec?: true }
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
   * an answer without that property, or with another its record lists, is the bare
   * record, read as if it were wrapped.
   */
  | { k: "object"; fields: readonly FieldDesc[]; oneOf?: OneOfDesc; envelope?: string; fast?: Fast }
  /**
   * A discriminated union: an object whose `tag` property picks the shape. `variants` maps a
   * tag value to the registry name of an object shape (which does not list the tag).
   */
  | { k: "union"; tag: string; common: readonly FieldDesc[]; variants: Readonly<Record<string, string>>; fast?: Fast };

/**
 * The generated decoder of a registry's record or union: reads a value exactly as the
 * walk over its descriptor does, straight-line, and throws on anything else; the walk
 * then reads the value again and names what does not fit.
 */
export type Fast = (value: unknown) => unknown;

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

// ---------------------------------------------------------------- shared by both walks

/** A plain JSON object (not `null`, not an array, not a `Secret`). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Secret);
}

/**
 * A property of a parsed JSON object, or `undefined`. JSON never holds a function, so a
 * function here is inherited (`constructor`, `toString`) and reads as absent; this is
 * cheaper than `Object.hasOwn` on the decoding hot path.
 */
export function own(obj: Record<string, unknown>, name: string): unknown {
  const v = obj[name];
  return typeof v === "function" ? undefined : v;
}

/**
 * Whether `v` is the bare record rather than its inferred envelope `key`: it lacks the
 * envelope's property, or has another that the record lists (`listed`), as a bare
 * transaction holds its nested `transaction`.
 */
export function isBare(v: Record<string, unknown>, key: string, listed: ReadonlySet<string>): boolean {
  if (own(v, key) === undefined) return true;
  return Object.keys(v).some((name) => name !== key && listed.has(name));
}

/** The registry name of the shape a union tag selects, if the tag is known. */
export function variantOf(variants: Readonly<Record<string, string>>, tag: unknown): string | undefined {
  if (typeof tag !== "string") return undefined;
  const shape: unknown = variants[tag];
  return typeof shape === "string" ? shape : undefined;
}

export function resolve(reg: Registry, name: string): Desc {
  const d: unknown = reg[name];
  // An inherited `Object.prototype` member is a function, never a descriptor.
  if (typeof d !== "object" || d === null) {
    throw new ConfigError(`the type registry has no type \`${name}\` (regenerate the client)`);
  }
  return d as Desc;
}

/** The object shape a union tag names. */
export function shapeOf(reg: Registry, name: string): Extract<Desc, { k: "object" }> {
  let d = resolve(reg, name);
  while (d.k === "ref") d = resolve(reg, d.name);
  if (d.k !== "object") throw new ConfigError(`the union shape \`${name}\` is not an object (regenerate the client)`);
  return d;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `a.key`, or `a["weird key"]` when the key is not an identifier. */
export function keyPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** How a value is named in a message: its kind, and its text when short and harmless. */
export function describe(value: unknown): string {
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
export function markUnknown(obj: Record<string, unknown>): void {
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
