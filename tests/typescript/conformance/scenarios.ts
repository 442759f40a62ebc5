// The scenarios of a file (tests/conformance/*.yaml, read by files.ts), checked against
// the format (tests/conformance/README.md; as data, format.json). No Node API.

import { Json, JsonObject, show, mapping, optString, optNumber, optBool } from "./json.js";
import { type Format, checkFormat, clientSettings } from "./format.js";

/** A file's or a scenario's `sandbox:`: the sandbox's flags, and whether a proxy is put in front. */
export interface SandboxSpec {
  args: string[];
  proxy: boolean;
}

function sandboxSpec(value: Json | undefined, what: string): SandboxSpec {
  if (value === undefined || value === null) return { args: [], proxy: false };
  const m = mapping(value, what);
  const args = m["args"] ?? [];
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === "string")) {
    throw new Error(`${what}.args is a list of strings, not ${show(args)}`);
  }
  return { args, proxy: optBool(m, "proxy", what) ?? false };
}

/** A step's `mode` (format.json has the values every runner accepts). */
export type Mode = "send" | "pdf" | "pages" | "items" | "pages_backward" | "items_backward" | "items_resumed";

interface Expect {
  ok?: Json;
  equals?: Json;
  count?: number;
  error?: Json;
}

/** A `sandbox` step: `METHOD /_sandbox/...`, with a JSON body when one is given. */
interface Control {
  request: string;
  body?: Json;
}

export interface Step {
  call?: string;
  sandbox?: Control;
  args?: Json;
  mode: Mode;
  save?: string;
  expect: Expect;
  expectRequests?: Json[];
  /** Every event the client reports during the step, in order (README: `expect_events`). */
  expectEvents?: Json[];
  minMs?: number;
  maxMs?: number;
}

/** Client settings: the scenario's, else the defaults of format.json. */
export interface ClientSpec {
  /** The interface's credentials by their names in the file (`key_id`, `password`, ...). */
  credentials: Record<string, string>;
  rate_limit: { requests: number; window_ms: number } | null;
  max_attempts: number;
  initial_backoff_ms: number;
  max_backoff_ms: number;
  timeout_ms: number;
  validate: boolean;
  max_polls: number;
  poll_interval_ms: number;
  max_response_bytes: number;
  max_error_bytes: number;
  max_empty_pages: number;
}

export interface Scenario {
  file: string;
  name: string;
  interface: "v3" | "legacy";
  sandbox: SandboxSpec;
  client: ClientSpec;
  script: Json[];
  steps: Step[];
}

/** The client settings, the defaults already filled in (`clientSettings`). */
function readClient(m: JsonObject, what: string): ClientSpec {
  const needed = <T>(v: T | undefined, key: string, at: string): T => {
    if (v === undefined) throw new Error(`${at} needs ${key}`);
    return v;
  };
  const setting = (key: string): number => needed(optNumber(m, key, what), key, what);
  const at = `${what}.credentials`;
  const given = mapping(m["credentials"], at);
  const credentials: Record<string, string> = {};
  for (const key of Object.keys(given)) credentials[key] = needed(optString(given, key, at), key, at);
  let rate_limit: ClientSpec["rate_limit"] = null;
  if (m["rate_limit"] !== null && m["rate_limit"] !== undefined) {
    const at = `${what}.rate_limit`;
    const r = mapping(m["rate_limit"], at);
    rate_limit = { requests: needed(optNumber(r, "requests", at), "requests", at), window_ms: needed(optNumber(r, "window_ms", at), "window_ms", at) };
  }
  return {
    credentials,
    rate_limit,
    max_attempts: setting("max_attempts"),
    initial_backoff_ms: setting("initial_backoff_ms"),
    max_backoff_ms: setting("max_backoff_ms"),
    timeout_ms: setting("timeout_ms"),
    validate: needed(optBool(m, "validate", what), "validate", what),
    max_polls: setting("max_polls"),
    poll_interval_ms: setting("poll_interval_ms"),
    max_response_bytes: setting("max_response_bytes"),
    max_error_bytes: setting("max_error_bytes"),
    max_empty_pages: setting("max_empty_pages"),
  };
}

function readStep(value: Json | undefined, what: string): Step {
  const m = mapping(value, what);
  // format.json allows only the modes there are.
  const step: Step = { mode: (optString(m, "mode", what) ?? "send") as Mode, expect: {} };
  const call = optString(m, "call", what);
  const control = readControl(m["sandbox"], `${what}.sandbox`);
  if ((call === undefined) === (control === undefined)) {
    throw new Error(`${what} has exactly one of \`call\` and \`sandbox\``);
  }
  if (call !== undefined) step.call = call;
  if (control !== undefined) step.sandbox = control;
  if (m["args"] !== undefined) step.args = m["args"];
  const save = optString(m, "save", what);
  if (save !== undefined) step.save = save;
  if (m["expect"] !== undefined && m["expect"] !== null) {
    const e = mapping(m["expect"], `${what}.expect`);
    // A key that is there counts, even with the value null (`equals: null`).
    if ("ok" in e) step.expect.ok = e["ok"] ?? null;
    if ("equals" in e) step.expect.equals = e["equals"] ?? null;
    const count = optNumber(e, "count", `${what}.expect`);
    if (count !== undefined) step.expect.count = count;
    if (e["error"] !== undefined && e["error"] !== null) step.expect.error = e["error"];
  }
  const requests = m["expect_requests"];
  if (requests !== undefined && requests !== null) {
    if (!Array.isArray(requests)) throw new Error(`${what}.expect_requests is a list, not ${show(requests)}`);
    step.expectRequests = requests;
  }
  const events = m["expect_events"];
  if (events !== undefined && events !== null) {
    if (!Array.isArray(events)) throw new Error(`${what}.expect_events is a list, not ${show(events)}`);
    step.expectEvents = events;
  }
  const minMs = optNumber(m, "min_ms", what);
  if (minMs !== undefined) step.minMs = minMs;
  const maxMs = optNumber(m, "max_ms", what);
  if (maxMs !== undefined) step.maxMs = maxMs;
  return step;
}

/** `sandbox: "POST /_sandbox/..."`, or `sandbox: {request: "POST /_sandbox/...", body: {...}}`. */
function readControl(value: Json | undefined, what: string): Control | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return { request: value };
  const m = mapping(value, what);
  const request = optString(m, "request", what);
  if (request === undefined) throw new Error(`${what} needs \`request\``);
  const control: Control = { request };
  if (m["body"] !== undefined) control.body = m["body"];
  return control;
}

/**
 * The scenarios of one file, `doc` as parsed (YAML 1.2 core schema), checked against
 * `format`; `names` holds the names seen so far, across files, and gets these. A malformed
 * file throws, naming it.
 */
export function scenariosOf(file: string, doc: Json, names: Set<string>, format: Format): Scenario[] {
  const scenarios: Scenario[] = [];
  try {
    checkFormat(format, doc, "file", "");
    const top = mapping(doc, "the file");
    const fileSandbox = sandboxSpec(top["sandbox"], "sandbox");
    const list = top["scenarios"];
    if (!Array.isArray(list)) throw new Error("`scenarios` is a list");
    list.forEach((entry, i) => {
      const at = `scenario ${i + 1}`;
      const s = mapping(entry, at);
      const name = optString(s, "name", at);
      if (name === undefined) throw new Error(`${at} has no name`);
      if (names.has(name)) throw new Error(`the scenario name \`${name}\` is used twice`);
      names.add(name);
      const iface = s["interface"];
      if (iface !== "v3" && iface !== "legacy") throw new Error(`${name}: interface is v3 or legacy, not ${show(iface)}`);
      const script = s["script"] ?? [];
      if (!Array.isArray(script)) throw new Error(`${name}: script is a list`);
      const steps = s["steps"];
      if (!Array.isArray(steps) || steps.length === 0) throw new Error(`${name}: has no steps`);
      scenarios.push({
        file,
        name,
        interface: iface,
        sandbox: s["sandbox"] === undefined || s["sandbox"] === null ? fileSandbox : sandboxSpec(s["sandbox"], `${name}: sandbox`),
        client: readClient(clientSettings(format, iface, s["client"]), `${name}: client`),
        script,
        steps: steps.map((step, j) => readStep(step, `${name}: step ${j + 1}`)),
      });
    });
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return scenarios;
}
