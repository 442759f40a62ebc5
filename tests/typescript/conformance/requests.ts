// The requests the sandbox recorded, held to a scenario's `requests` list.

import { Json, JsonObject, isObject, show } from "./json.js";
import { same, check } from "./patterns.js";


function text(record: JsonObject, key: string): string {
  const v = record[key];
  return typeof v === "string" ? v : "";
}

/** Query values are text: numbers and booleans in a pattern stand for their JSON text. */
function asText(pattern: Json): Json {
  if (typeof pattern === "number" || typeof pattern === "boolean") return JSON.stringify(pattern);
  if (Array.isArray(pattern)) return pattern.map(asText);
  return pattern;
}

function checkQuery(want: Json | undefined, pairs: Json | undefined): void {
  const got = new Map<string, Json[]>();
  for (const pair of Array.isArray(pairs) ? pairs : []) {
    if (!Array.isArray(pair)) continue;
    const name = typeof pair[0] === "string" ? pair[0] : "";
    const values = got.get(name) ?? [];
    values.push(pair[1] ?? null);
    got.set(name, values);
  }
  let expected: JsonObject = {};
  if (want !== undefined) {
    if (!isObject(want)) throw new Error(`\`query\` is a mapping, not ${show(want)}`);
    expected = want;
  }
  for (const [name, values] of got) {
    if (!Object.hasOwn(expected, name)) throw new Error(`unexpected query parameter \`${name}\` (${show(values)})`);
  }
  for (const [name, pattern] of Object.entries(expected)) {
    const values = got.get(name);
    let actual: Json | undefined;
    if (values !== undefined) actual = values.length === 1 && !Array.isArray(pattern) ? values[0] : values;
    check(asText(pattern), actual, `query ${name}`);
  }
}

function checkRequest(wantJson: Json, got: JsonObject, previous: JsonObject | undefined): void {
  if (!isObject(wantJson)) throw new Error(`an expected request is a mapping, not ${show(wantJson)}`);
  const want = wantJson;
  const ignore = want["ignore"];
  const ignored = (what: string): boolean => Array.isArray(ignore) && ignore.includes(what);
  const method = want["method"];
  if (typeof method !== "string") throw new Error("an expected request needs `method`");
  if (method.toUpperCase() !== text(got, "method").toUpperCase()) {
    throw new Error(`expected method ${method}, got ${text(got, "method")}`);
  }
  const path = want["path"];
  if (typeof path !== "string") throw new Error("an expected request needs `path`");
  const pathOk = path.endsWith("*") ? text(got, "path").startsWith(path.slice(0, -1)) : text(got, "path") === path;
  if (!pathOk) throw new Error(`expected path ${path}, got ${text(got, "path")}`);
  if (!ignored("query")) checkQuery(want["query"], got["query_pairs"]);
  const headers = want["headers"];
  if (headers !== undefined) {
    if (!isObject(headers)) throw new Error("`headers` is a mapping of lowercase names");
    const gotHeaders = isObject(got["headers"]) ? got["headers"] : {};
    for (const [name, value] of Object.entries(headers)) {
      const pattern: Json = value === null ? { $absent: true } : value;
      check(pattern, Object.hasOwn(gotHeaders, name) ? gotHeaders[name] : undefined, `header ${name}`);
    }
  }
  if (!ignored("body")) {
    const body = text(got, "body");
    if (want["body"] !== undefined) {
      let parsed: Json;
      try {
        parsed = JSON.parse(body) as Json;
      } catch (e) {
        throw new Error(`expected a JSON body, got ${JSON.stringify(body)} (${String(e)})`);
      }
      if (!same(want["body"], parsed)) throw new Error(`expected the body ${show(want["body"])}, got ${show(parsed)}`);
    } else if (want["body_text"] !== undefined) {
      if (want["body_text"] !== body) throw new Error(`expected the body text ${show(want["body_text"])}, got ${JSON.stringify(body)}`);
    } else if (body !== "") {
      throw new Error(`expected no body, got ${JSON.stringify(body)}`);
    }
  }
  const status = want["status"];
  if (status !== undefined && !same(status, got["status"] ?? null)) {
    throw new Error(`expected the sandbox to answer ${show(status)}, it answered ${show(got["status"])}`);
  }
  const received = (r: JsonObject): number => (typeof r["received_ms"] === "number" ? r["received_ms"] : 0);
  for (const [key, tooShort] of [
    ["min_gap_ms", true],
    ["max_gap_ms", false],
  ] as const) {
    const limit = want[key];
    if (typeof limit !== "number") continue;
    if (previous === undefined) throw new Error(`\`${key}\` on the first request has nothing to measure from`);
    const gap = received(got) - received(previous);
    if ((tooShort && gap < limit) || (!tooShort && gap > limit)) {
      throw new Error(`came ${gap.toFixed(0)} ms after the previous request (${key}: ${limit})`);
    }
  }
}

export function checkRequests(expected: Json[], recorded: JsonObject[]): void {
  const listing = (): string =>
    recorded
      .map((r) => {
        const q = text(r, "query");
        return `  ${text(r, "method") || "?"} ${text(r, "path") || "?"}${q === "" ? "" : `?${q}`} -> ${show(r["status"])}`;
      })
      .join("\n");
  if (expected.length !== recorded.length) {
    throw new Error(`expected ${expected.length} requests, the sandbox received ${recorded.length}:\n${listing()}`);
  }
  expected.forEach((want, i) => {
    const got = recorded[i] ?? {};
    try {
      checkRequest(want, got, i === 0 ? undefined : recorded[i - 1]);
    } catch (e) {
      throw new Error(`request ${i}: ${e instanceof Error ? e.message : String(e)}\nreceived:\n${listing()}`);
    }
  });
}
