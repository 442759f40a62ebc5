// The scenario format as data: tests/conformance/format.json (read by files.ts), which every
// runner reads: the keys of each kind of mapping, the values some keys take, the defaults of
// the client settings. No Node API.

import { Json, JsonObject, isObject, show } from "./json.js";

/** What a key holds: any value (null), a mapping of a kind, a list of them, one of some strings. */
type Holds = null | string | [string] | { one_of: string[] };

export interface Format {
  mappings: Record<string, Record<string, Holds>>;
  defaults: { client: JsonObject; credentials: Record<string, JsonObject> };
}

/**
 * Refuses a key that `value` (a mapping of kind `kind`, at the path `at`, empty for the
 * file) or anything in it may not have, and a value the format does not allow. A value of
 * another shape than the format names is left to the reader.
 */
export function checkFormat(format: Format, value: Json | undefined, kind: string, at: string): void {
  if (!isObject(value)) return;
  const keys = format.mappings[kind] ?? {};
  for (const [key, v] of Object.entries(value)) {
    const holds = keys[key];
    if (holds === undefined) throw new Error(`unknown key \`${key}\` in ${at === "" ? "the file" : at}`);
    const inner = at === "" ? key : `${at}.${key}`;
    if (typeof holds === "string") checkFormat(format, v, holds, inner);
    else if (Array.isArray(holds)) {
      if (Array.isArray(v)) v.forEach((entry, i) => checkFormat(format, entry, holds[0], `${inner}[${i}]`));
    } else if (holds !== null && !(typeof v === "string" && holds.one_of.includes(v))) {
      throw new Error(`${inner} is one of ${holds.one_of.join(", ")}, not ${show(v)}`);
    }
  }
}

/**
 * The client settings of a scenario of `iface` whose `client` is `given`: each setting given
 * (not null), else the default; a mapping over a mapping (the credentials) key by key.
 */
export function clientSettings(format: Format, iface: string, given: Json | undefined): JsonObject {
  const client: JsonObject = { ...format.defaults.client, credentials: { ...format.defaults.credentials[iface] } };
  for (const [key, v] of Object.entries(isObject(given) ? given : {})) {
    const under = client[key];
    if (isObject(under) && isObject(v)) client[key] = { ...under, ...withoutNulls(v) };
    else if (v !== null) client[key] = v;
  }
  return client;
}

function withoutNulls(m: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null));
}
