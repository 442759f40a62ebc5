// `${...}` references filled from earlier steps, and the patterns an answer is matched with.

import { Json, isObject, show } from "./json.js";

export type Vars = Map<string, Json>;

function lookup(reference: string, vars: Vars): Json {
  const [name = "", ...parts] = reference.split(".");
  let value = vars.get(name);
  if (value === undefined) throw new Error(`\`\${${reference}}\`: nothing was saved as \`${name}\``);
  for (const part of parts) {
    let next: Json | undefined;
    if (Array.isArray(value)) next = /^\d+$/.test(part) ? value[Number(part)] : undefined;
    else if (isObject(value)) next = Object.hasOwn(value, part) ? value[part] : undefined;
    if (next === undefined) throw new Error(`\`\${${reference}}\`: \`${part}\` is not in ${show(value)}`);
    value = next;
  }
  return value;
}

function fillString(s: string, vars: Vars): Json {
  if (s.startsWith("${") && s.endsWith("}") && !s.slice(2).includes("${")) return lookup(s.slice(2, -1), vars);
  let out = "";
  let rest = s;
  for (let start = rest.indexOf("${"); start >= 0; start = rest.indexOf("${")) {
    out += rest.slice(0, start);
    const after = rest.slice(start + 2);
    const end = after.indexOf("}");
    if (end < 0) throw new Error(`\`${s}\`: \`\${\` without a closing \`}\``);
    const value = lookup(after.slice(0, end), vars);
    out += typeof value === "string" ? value : JSON.stringify(value);
    rest = after.slice(end + 1);
  }
  return out + rest;
}

/** Replaces every `${name.path}` in the strings of `value` (a whole-string reference keeps its JSON type). */
export function fill(value: Json, vars: Vars): Json {
  if (typeof value === "string") return fillString(value, vars);
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}

/** Equality, numbers by value, objects with the same keys. */
export function same(a: Json, b: Json): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i] ?? null));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k] ?? null, b[k] ?? null));
  }
  return a === b;
}

function matcher(pattern: Json): [string, Json] | undefined {
  if (!isObject(pattern)) return undefined;
  const entries = Object.entries(pattern);
  const first = entries[0];
  return entries.length === 1 && first !== undefined && first[0].startsWith("$") ? first : undefined;
}

function join2(at: string, key: string): string {
  return at === "" ? key : `${at}.${key}`;
}

/** Whether `actual` (undefined: absent) matches `pattern`, as the README's patterns say. */
export function check(pattern: Json, actual: Json | undefined, at: string): void {
  const here = at === "" ? "the result" : at;
  const m = matcher(pattern);
  if (m !== undefined) {
    const [name, arg] = m;
    let matched: boolean;
    switch (name) {
      case "$absent":
        matched = actual === undefined;
        break;
      case "$any":
        matched = actual !== undefined;
        break;
      case "$at_least":
        matched = typeof actual === "number" && typeof arg === "number" && actual >= arg;
        break;
      case "$starts_with":
        matched = typeof actual === "string" && typeof arg === "string" && actual.startsWith(arg);
        break;
      case "$json": {
        matched = false;
        if (typeof actual === "string") {
          try {
            matched = same(arg, JSON.parse(actual) as Json);
          } catch {
            matched = false;
          }
        }
        break;
      }
      default:
        throw new Error(`${here}: unknown matcher \`${name}\``);
    }
    if (!matched) throw new Error(`${here}: expected ${show(pattern)}, got ${show(actual)}`);
    return;
  }
  if (actual === undefined) throw new Error(`${here}: expected ${show(pattern)}, got nothing`);
  if (isObject(pattern) && isObject(actual)) {
    for (const [key, p] of Object.entries(pattern)) check(p, Object.hasOwn(actual, key) ? actual[key] : undefined, join2(at, key));
    return;
  }
  if (Array.isArray(pattern) && Array.isArray(actual)) {
    if (pattern.length !== actual.length) {
      throw new Error(`${here}: expected ${pattern.length} entries, got ${actual.length}: ${show(actual)}`);
    }
    pattern.forEach((p, i) => check(p, actual[i], `${at}[${i}]`));
    return;
  }
  if (!same(pattern, actual)) throw new Error(`${here}: expected ${show(pattern)}, got ${show(actual)}`);
}
