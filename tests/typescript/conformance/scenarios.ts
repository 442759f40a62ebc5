// The scenarios of a file (tests/conformance/*.yaml, read by files.ts), checked against
// the format in tests/conformance/README.md. No Node API: the browser runner loads it too.

import { Json, show, mapping, optString, optNumber, optBool } from "./json.js";

/** A file's or a scenario's `sandbox:`: the sandbox's flags, and whether a proxy is put in front. */
export interface SandboxSpec {
  args: string[];
  proxy: boolean;
}

function sandboxSpec(value: Json | undefined, what: string): SandboxSpec {
  if (value === undefined || value === null) return { args: [], proxy: false };
  const m = mapping(value, what, ["args", "proxy"]);
  const args = m["args"] ?? [];
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === "string")) {
    throw new Error(`${what}.args is a list of strings, not ${show(args)}`);
  }
  return { args, proxy: optBool(m, "proxy", what) ?? false };
}

export type Mode = "send" | "pdf" | "pages" | "items" | "pages_backward" | "items_backward" | "items_resumed";
const MODES: readonly Mode[] = ["send", "pdf", "pages", "items", "pages_backward", "items_backward", "items_resumed"];

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

export interface ClientSpec {
  credentials: { key_id?: string; key_secret?: string; username?: string; password?: string };
  rateLimit?: { requests: number; windowMs: number };
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  timeoutMs?: number;
  validate?: boolean;
  maxPolls?: number;
  pollIntervalMs?: number;
  maxResponseBytes?: number;
  maxErrorBytes?: number;
  maxEmptyPages?: number;
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

function readClient(value: Json | undefined, what: string): ClientSpec {
  if (value === undefined || value === null) return { credentials: {} };
  const m = mapping(value, what, [
    "credentials",
    "rate_limit",
    "max_attempts",
    "initial_backoff_ms",
    "max_backoff_ms",
    "timeout_ms",
    "validate",
    "max_polls",
    "poll_interval_ms",
    "max_response_bytes",
    "max_error_bytes",
    "max_empty_pages",
  ]);
  const spec: ClientSpec = { credentials: {} };
  if (m["credentials"] !== undefined && m["credentials"] !== null) {
    const at = `${what}.credentials`;
    const c = mapping(m["credentials"], at, ["key_id", "key_secret", "username", "password"]);
    for (const key of ["key_id", "key_secret", "username", "password"] as const) {
      const v = optString(c, key, at);
      if (v !== undefined) spec.credentials[key] = v;
    }
  }
  if (m["rate_limit"] !== undefined && m["rate_limit"] !== null) {
    const at = `${what}.rate_limit`;
    const r = mapping(m["rate_limit"], at, ["requests", "window_ms"]);
    const requests = optNumber(r, "requests", at);
    const windowMs = optNumber(r, "window_ms", at);
    if (requests === undefined || windowMs === undefined) throw new Error(`${at} needs requests and window_ms`);
    spec.rateLimit = { requests, windowMs };
  }
  const numbers = [
    ["max_attempts", "maxAttempts"],
    ["initial_backoff_ms", "initialBackoffMs"],
    ["max_backoff_ms", "maxBackoffMs"],
    ["timeout_ms", "timeoutMs"],
    ["max_polls", "maxPolls"],
    ["poll_interval_ms", "pollIntervalMs"],
    ["max_response_bytes", "maxResponseBytes"],
    ["max_error_bytes", "maxErrorBytes"],
    ["max_empty_pages", "maxEmptyPages"],
  ] as const;
  for (const [key, field] of numbers) {
    const v = optNumber(m, key, what);
    if (v !== undefined) spec[field] = v;
  }
  const validate = optBool(m, "validate", what);
  if (validate !== undefined) spec.validate = validate;
  return spec;
}

function readStep(value: Json | undefined, what: string): Step {
  const m = mapping(value, what, [
    "call",
    "sandbox",
    "args",
    "mode",
    "save",
    "expect",
    "expect_requests",
    "expect_events",
    "min_ms",
    "max_ms",
  ]);
  const mode = m["mode"] ?? "send";
  if (typeof mode !== "string" || !(MODES as readonly string[]).includes(mode)) {
    throw new Error(`${what}.mode is one of ${MODES.join(", ")}, not ${show(mode)}`);
  }
  const step: Step = { mode: mode as Mode, expect: {} };
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
    const e = mapping(m["expect"], `${what}.expect`, ["ok", "equals", "count", "error"]);
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
  const m = mapping(value, what, ["request", "body"]);
  const request = optString(m, "request", what);
  if (request === undefined) throw new Error(`${what} needs \`request\``);
  const control: Control = { request };
  if (m["body"] !== undefined) control.body = m["body"];
  return control;
}

/**
 * The scenarios of one file, `doc` as parsed (YAML 1.2 core schema); `names` holds the
 * names seen so far, across files, and gets these. A malformed file throws, naming it.
 */
export function scenariosOf(file: string, doc: Json, names: Set<string>): Scenario[] {
  const scenarios: Scenario[] = [];
  try {
    const top = mapping(doc, "the file", ["description", "sandbox", "definitions", "scenarios"]);
    const fileSandbox = sandboxSpec(top["sandbox"], "sandbox");
    const list = top["scenarios"];
    if (!Array.isArray(list)) throw new Error("`scenarios` is a list");
    list.forEach((entry, i) => {
      const at = `scenario ${i + 1}`;
      const s = mapping(entry, at, ["name", "interface", "sandbox", "client", "script", "steps"]);
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
        client: readClient(s["client"], `${name}: client`),
        script,
        steps: steps.map((step, j) => readStep(step, `${name}: step ${j + 1}`)),
      });
    });
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return scenarios;
}
