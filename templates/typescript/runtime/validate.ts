/**
 * The strict walk: a request checked against the documented limits before it is sent,
 * every violation collected with its path.
 *
 * @module
 */

import type { Violation } from "./errors.js";
import { Secret } from "./secret.js";
import {
  additionalOf,
  describe,
  isObject,
  isUnknownMember,
  keyPath,
  own,
  resolve,
  shapeOf,
  variantOf,
  type CharClass,
  type Constraints,
  type Desc,
  type FieldDesc,
  type OneOfDesc,
  type Registry,
} from "./schema.js";

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
 * A string or an id: its length and characters. A {@link Secret} is checked by its text,
 * which no violation shows.
 */
function checkText(d: Extract<Desc, { k: "string" | "id" }>, value: unknown, path: string, out: Violation[]): void {
  if (value instanceof Secret) return checkString(value.expose(), true, d.c, path, out);
  if (typeof value !== "string") return void out.push({ path, message: `expected a string, got ${describe(value)}` });
  return checkString(value, d.k === "string" && d.sec === true, d.c, path, out);
}

/**
 * An integer: within its width (a 64-bit one within what a JavaScript number holds
 * exactly), then within its documented range.
 */
function checkInt(d: Extract<Desc, { k: "int" }>, value: unknown, path: string, out: Violation[]): void {
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

/** The string forms of dates: what each accepts, and what a violation says it expected. */
const DATE_FORMS: Record<"date" | "datetime" | "date_or_datetime", { test(s: string): boolean; expected: string }> = {
  date: { test: isDate, expected: "an ISO 8601 date (YYYY-MM-DD)" },
  datetime: { test: isDateTime, expected: "an ISO 8601 date-time (2026-03-01T17:00:00Z)" },
  date_or_datetime: { test: (s) => isDate(s) || isDateTime(s), expected: "an ISO 8601 date or date-time" },
};

/** A JSON scalar of one of the kinds `of` lists. */
function checkScalar(of: Extract<Desc, { k: "scalar" }>["of"], value: unknown, path: string, out: Violation[]): void {
  const kind = scalarKind(value);
  // An integer is also a number.
  if (kind !== undefined && (of.includes(kind) || (kind === "integer" && of.includes("number")))) return;
  const kinds = of.map((k) => KIND_TEXT[k]);
  const list = kinds.length <= 1 ? kinds.join("") : `${kinds.slice(0, -1).join(", ")} or ${kinds[kinds.length - 1]}`;
  out.push({ path, message: `expected ${list}, got ${describe(value)}` });
}

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
    case "id":
      return checkText(d, value, path, out);
    case "int":
      return checkInt(d, value, path, out);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return void out.push({ path, message: `expected a finite number, got ${describe(value)}` });
      }
      return checkRange(value, d.c, path, out);
    case "bool":
      if (typeof value !== "boolean") out.push({ path, message: `expected a boolean, got ${describe(value)}` });
      return;
    case "date":
    case "datetime":
    case "date_or_datetime": {
      const form = DATE_FORMS[d.k];
      if (typeof value !== "string" || !form.test(value)) {
        out.push({ path, message: `expected ${form.expected}, got ${describe(value)}` });
      }
      return;
    }
    case "json":
      return;
    case "enum":
      if (typeof value !== "string") return void out.push({ path, message: `expected a string, got ${describe(value)}` });
      if (!d.open && !d.values.includes(value)) {
        out.push({ path, message: `must be one of ${d.values.map((v) => `\`${v}\``).join(", ")}, got ${describe(value)}` });
      }
      return;
    case "scalar":
      return checkScalar(d.of, value, path, out);
    case "array":
      return checkArray(reg, d, value, path, out);
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
    case "union":
      return checkUnion(reg, d, value, path, out);
  }
}

/** An array: its number of items, then each item. */
function checkArray(reg: Registry, d: Extract<Desc, { k: "array" }>, value: unknown, path: string, out: Violation[]): void {
  if (!Array.isArray(value)) return void out.push({ path, message: `expected an array, got ${describe(value)}` });
  const n = value.length;
  if (d.c?.minItems !== undefined && n < d.c.minItems) {
    out.push({ path, message: `must have at least ${d.c.minItems} items, got ${n}` });
  }
  if (d.c?.maxItems !== undefined && n > d.c.maxItems) {
    out.push({ path, message: `must have at most ${d.c.maxItems} items, got ${n}` });
  }
  value.forEach((item: unknown, i) => validate(reg, d.of, item, `${path}[${i}]`, out));
}

/**
 * A union member: its tag names a known variant (or it is a member of another, read from
 * the service), then the common fields and the variant's own.
 */
function checkUnion(reg: Registry, d: Extract<Desc, { k: "union" }>, value: unknown, path: string, out: Violation[]): void {
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
