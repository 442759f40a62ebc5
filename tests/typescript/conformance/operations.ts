// The spec's operations (spec/*.yaml, read by files.ts): how a scenario's `call` finds a
// client method. No Node API: the browser runner loads it too.

import { Json, JsonObject, isObject } from "./json.js";

export interface Operation {
  name: string;
  method: string;
  /** Path parameters in the spec's order, each with whether its type names a record (`record_ref`). */
  pathParams: { name: string; ref: boolean }[];
  query: { name: string; required: boolean }[];
  /**
   * The body: a JSON one (`args.body`) of the named type, when the spec names one (which
   *   `optional` lets a step leave out), or
   * bytes sent as they are (`args.body_text`, and an optional `args.content_type`).
   */
  body: { binary: false; type: string | undefined; optional: boolean } | { binary: true } | undefined;
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
  const optional = isObject(body) && body["optional"] === true;
  return { binary: false, type: typeof type === "string" ? type : undefined, optional };
}

/** Each interface's operations by their spec name. */
export type Operations = Record<"v3" | "legacy", Map<string, Operation>>;

/** The operations of an interface's spec file (`spec/<iface>.yaml` as parsed). */
export function operationsOf(iface: "v3" | "legacy", spec: Json): Map<string, Operation> {
  if (!isObject(spec)) throw new Error(`spec/${iface}.yaml is not a mapping`);
  const types = isObject(spec["types"]) ? spec["types"] : {};
  const ops = spec["operations"];
  if (!isObject(ops)) throw new Error(`spec/${iface}.yaml has no operations`);
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
