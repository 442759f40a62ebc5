// The spec's operations, from the IR: how a scenario's `call` finds a client method.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

import { Json, JsonObject, ROOT, isObject } from "./json.js";

interface Operation {
  name: string;
  method: string;
  /** Path parameters in the spec's order, each with whether its type names a record (`record_ref`). */
  pathParams: { name: string; ref: boolean }[];
  query: { name: string; required: boolean }[];
  /**
   * The body: a JSON one (`args.body`) of the named type, when the spec names one, or
   * bytes sent as they are (`args.body_text`, and an optional `args.content_type`).
   */
  body: { binary: false; type: string | undefined } | { binary: true } | undefined;
  paginated: boolean;
  /** The only 2xx answers are binary (a PDF): `send` and `pdf` are the same. */
  binaryOnly: boolean;
}

function lowerCamel(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function bodyOf(body: Json | undefined): Operation["body"] {
  if (body === undefined || body === null) return undefined;
  const type = isObject(body) ? body["type"] : body;
  if (type === "binary") return { binary: true };
  return { binary: false, type: typeof type === "string" ? type : undefined };
}

function readOperations(iface: "v3" | "legacy"): Map<string, Operation> {
  const spec = parse(readFileSync(join(ROOT, "spec", `${iface}.yaml`), "utf8")) as JsonObject;
  const types = isObject(spec["types"]) ? spec["types"] : {};
  const ops = spec["operations"];
  assert.ok(isObject(ops), `spec/${iface}.yaml has no operations`);
  const out = new Map<string, Operation>();
  for (const [name, raw] of Object.entries(ops)) {
    if (!isObject(raw)) continue;
    const params = isObject(raw["path_params"]) ? raw["path_params"] : {};
    const query = isObject(raw["query"]) ? raw["query"] : {};
    const responses = Array.isArray(raw["responses"]) ? raw["responses"] : [];
    const ok = responses.filter((r): r is JsonObject => isObject(r) && typeof r["status"] === "number" && r["status"] >= 200 && r["status"] < 300 && r["body"] !== undefined);
    out.set(name, {
      name,
      method: lowerCamel(name),
      pathParams: Object.entries(params).map(([p, d]) => {
        const type = isObject(d) ? d["type"] : undefined;
        const declared = typeof type === "string" ? types[type] : undefined;
        return { name: p, ref: isObject(declared) && declared["record_ref"] !== undefined };
      }),
      query: Object.entries(query).map(([q, d]) => ({ name: q, required: isObject(d) && d["required"] === true })),
      body: bodyOf(raw["body"]),
      paginated: raw["paginated"] === true,
      binaryOnly: ok.length > 0 && ok.every((r) => r["body"] === "binary"),
    });
  }
  return out;
}

export const OPERATIONS = { v3: readOperations("v3"), legacy: readOperations("legacy") };
