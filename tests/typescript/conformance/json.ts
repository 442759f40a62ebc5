// JSON values and the checks of a scenario file's mappings (no Node API: the browser
// runner loads it too).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function show(v: Json | undefined): string {
  return v === undefined ? "nothing" : JSON.stringify(v);
}

/**
 * Fails (as the scenario's error) unless `value` is a mapping, with only `allowed` keys when
 * given (a scenario file's keys are format.json's, checked as the file is read).
 */
export function mapping(value: Json | undefined, what: string, allowed?: readonly string[]): JsonObject {
  if (!isObject(value)) throw new Error(`${what} is a mapping, not ${show(value)}`);
  const unknown = Object.keys(value).filter((k) => allowed !== undefined && !allowed.includes(k));
  if (unknown.length > 0) throw new Error(`unknown key \`${unknown.join("`, `")}\` in ${what}`);
  return value;
}

export function optString(m: JsonObject, key: string, what: string): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new Error(`${what}.${key} is a string, not ${show(v)}`);
  return v;
}

export function optNumber(m: JsonObject, key: string, what: string): number | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw new Error(`${what}.${key} is a number, not ${show(v)}`);
  return v;
}

export function optBool(m: JsonObject, key: string, what: string): boolean | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new Error(`${what}.${key} is a boolean, not ${show(v)}`);
  return v;
}
