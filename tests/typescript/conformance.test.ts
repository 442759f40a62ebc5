// The language-neutral conformance scenarios (tests/conformance/*.yaml, format in
// tests/conformance/README.md) run with the generated TypeScript client against the
// sandbox binary, one node:test test per scenario. The Rust runner (tests/conformance.rs)
// is the reference: the same defaults, the same matching rules, the same error kinds.
//
//   cargo build -p sandbox && cd tests/typescript && npm test
//
// `CONFORMANCE_ONLY=<part of a name>` runs the scenarios whose name holds it;
// `SANDBOX_BIN` names another sandbox binary (default: target/debug/sandbox, under
// `CARGO_TARGET_DIR` when set).

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";

import {
  ApiError,
  ConfigError,
  DecodeError,
  ForeignOriginError,
  InterruptedError,
  NotReadyError,
  PagingStalledError,
  TimeoutError,
  TooLargeError,
  TransportError,
  ValidationError,
  WebhookError,
  legacy,
  v3,
  verifyWebhook,
  withAdditional,
  type ClientOptions,
  type Registry,
} from "inspection-client";
import { parse } from "yaml";

// ---------------------------------------------------------------- JSON and the files

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCENARIO_DIR = join(ROOT, "tests", "conformance");

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function show(v: Json | undefined): string {
  return v === undefined ? "nothing" : JSON.stringify(v);
}

/** Fails (as the scenario's error) unless `value` is a mapping with only `allowed` keys. */
function mapping(value: Json | undefined, what: string, allowed: readonly string[]): JsonObject {
  if (!isObject(value)) throw new Error(`${what} is a mapping, not ${show(value)}`);
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new Error(`unknown key \`${unknown.join("`, `")}\` in ${what}`);
  return value;
}

function optString(m: JsonObject, key: string, what: string): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new Error(`${what}.${key} is a string, not ${show(v)}`);
  return v;
}

function optNumber(m: JsonObject, key: string, what: string): number | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw new Error(`${what}.${key} is a number, not ${show(v)}`);
  return v;
}

function optBool(m: JsonObject, key: string, what: string): boolean | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new Error(`${what}.${key} is a boolean, not ${show(v)}`);
  return v;
}

/** A file's or a scenario's `sandbox:`: the sandbox's flags, and whether a proxy is put in front. */
interface SandboxSpec {
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

type Mode = "send" | "pdf" | "pages" | "items" | "pages_backward" | "items_backward";
const MODES: readonly Mode[] = ["send", "pdf", "pages", "items", "pages_backward", "items_backward"];

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

interface Step {
  call?: string;
  sandbox?: Control;
  args?: Json;
  mode: Mode;
  save?: string;
  expect: Expect;
  expectRequests?: Json[];
  minMs?: number;
  maxMs?: number;
}

interface ClientSpec {
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

interface Scenario {
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

/** Every scenario of every file, in file order; a malformed file fails the whole run. */
function readScenarios(): Scenario[] {
  const files = readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  assert.ok(files.length > 0, `no scenario files in ${SCENARIO_DIR}`);
  const scenarios: Scenario[] = [];
  const names = new Set<string>();
  for (const file of files) {
    try {
      // YAML 1.2 core schema (the package's default): `yes`, `on` are strings.
      const doc = parse(readFileSync(join(SCENARIO_DIR, file), "utf8"), { schema: "core" }) as Json;
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
  }
  return scenarios;
}

// ---------------------------------------------------------------- the spec's operations

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

const OPERATIONS = { v3: readOperations("v3"), legacy: readOperations("legacy") };

// ---------------------------------------------------------------- the sandbox

interface Sandbox {
  /** Where the clients reach it, and `${origin}`: the sandbox, or the proxy in front of it. */
  origin: string;
  /** The sandbox itself, for the `/_sandbox/` controls. */
  direct: string;
}

function sandboxBinary(): string {
  const given = process.env["SANDBOX_BIN"];
  if (given !== undefined && given !== "") return given;
  const target = process.env["CARGO_TARGET_DIR"] ?? join(ROOT, "target");
  return join(target, "debug", process.platform === "win32" ? "sandbox.exe" : "sandbox");
}

/** Every sandbox and proxy process started, stopped when the tests end. */
const children: ChildProcess[] = [];
const sandboxes = new Map<string, Promise<Sandbox>>();

/** What the sandbox prints once it serves: its origin is the URL without `/v3`. */
const SERVING = /serving the v3 interface at (http:\/\/\S+?)\/v3\s/;
/** What `sandbox forward` prints once it listens: `sandbox forward: http://127.0.0.1:PORT -> http://...`. */
const FORWARDING = /^sandbox forward: (http:\/\/\S+) -> /m;

/**
 * Starts `bin <args>` (`what` names it in errors) and gives what `banner`'s first group
 * finds in its output on stdout, waiting up to 20 s.
 */
function startChild(bin: string, args: readonly string[], what: string, banner: RegExp): Promise<string> {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${what} printed no URL within 20 s: ${out}${stderr}`));
    }, 20_000);
    const onData = (chunk: string): void => {
      out += chunk;
      const found = banner.exec(out);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        // Keep draining its output, so it never blocks on a full pipe.
        child.stdout?.resume();
        child.off("exit", onExit);
        resolve(found[1]);
      }
    };
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before serving: ${out}${stderr}`));
    };
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", onData);
    child.on("exit", onExit);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * Starts `sandbox <args> --addr 127.0.0.1:0` and reads its origin from its first line; with
 * `proxy`, then `sandbox forward --to <its host:port>`, and reads the proxy's origin from its line.
 */
async function startSandbox(spec: SandboxSpec): Promise<Sandbox> {
  const bin = sandboxBinary();
  if (!existsSync(bin)) throw new Error(`no sandbox binary at ${bin}: run \`cargo build -p sandbox\` first`);
  const what = `the sandbox ${JSON.stringify(spec.args)}`;
  const direct = await startChild(bin, [...spec.args, "--addr", "127.0.0.1:0"], what, SERVING);
  if (!spec.proxy) return { origin: direct, direct };
  const to = new URL(direct).host;
  const origin = await startChild(bin, ["forward", "--to", to], `the proxy (sandbox forward --to ${to}) in front of ${what}`, FORWARDING);
  return { origin, direct };
}

/** `METHOD /_sandbox/...` with an optional JSON body: its JSON answer (null when empty); fails unless 2xx. */
async function control(sandbox: Sandbox, method: string, path: string, body?: Json): Promise<Json> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`${sandbox.direct}${path}`, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  if (text === "") return null;
  return JSON.parse(text) as Json;
}


/** One sandbox per set of flags and proxy or not, started on first use and reused. */
function sandboxFor(spec: SandboxSpec): Promise<Sandbox> {
  const key = JSON.stringify([spec.args, spec.proxy]);
  let running = sandboxes.get(key);
  if (running === undefined) {
    running = startSandbox(spec);
    sandboxes.set(key, running);
  }
  return running;
}

/** Stops the sandboxes and proxies this file started (only those, by their process handles). */
function stopSandboxes(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
}

after(stopSandboxes);
// Also when the run is cut short (an `exit` handler runs synchronously only).
process.on("exit", stopSandboxes);

// ---------------------------------------------------------------- ${...} references and patterns

type Vars = Map<string, Json>;

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
function fill(value: Json, vars: Vars): Json {
  if (typeof value === "string") return fillString(value, vars);
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}

/** Equality, numbers by value, objects with the same keys. */
function same(a: Json, b: Json): boolean {
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
function check(pattern: Json, actual: Json | undefined, at: string): void {
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

// ---------------------------------------------------------------- expected requests

const REQUEST_KEYS = ["method", "path", "query", "headers", "body", "body_text", "status", "min_gap_ms", "max_gap_ms", "ignore"];

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
  const unknown = Object.keys(want).find((k) => !REQUEST_KEYS.includes(k));
  if (unknown !== undefined) throw new Error(`unknown key \`${unknown}\` in an expected request`);
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

function checkRequests(expected: Json[], recorded: JsonObject[]): void {
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

// ---------------------------------------------------------------- calls and results

/** What a call gave: a result, an error, or for a paging walk both. */
interface Outcome {
  result?: Json;
  error?: unknown;
}

/** The error as the JSON the `error` expectation is matched against (as the Rust runner's call.rs). */
function describeError(e: unknown): Json {
  // A walk interrupted past its start: the page's own error, and where to resume.
  if (e instanceof InterruptedError) {
    const inner = describeError(e.cause);
    return isObject(inner) ? { ...inner, resume: e.resume.toString() } : inner;
  }
  if (e instanceof ApiError) {
    return {
      kind: "api",
      status: e.status,
      message: e.serviceMessage ?? null,
      retry_after_s: e.retryAfterMs === undefined ? null : Math.floor(e.retryAfterMs / 1000),
    };
  }
  if (e instanceof ValidationError) return { kind: "validation", paths: e.violations.map((v) => v.path).sort() };
  if (e instanceof TimeoutError) return { kind: "timeout" };
  if (e instanceof TransportError) return { kind: "transport" };
  if (e instanceof DecodeError) return { kind: "decode", status: e.status ?? null, path: e.path };
  if (e instanceof NotReadyError) {
    const asked = e.retryAfterMs;
    return {
      kind: "not_ready",
      attempts: e.attempts,
      retry_after_s: asked === undefined ? null : Number.isFinite(asked) ? Math.floor(asked / 1000) : Number.MAX_VALUE,
    };
  }
  if (e instanceof TooLargeError) return { kind: "too_large", limit: e.limit };
  if (e instanceof ForeignOriginError) {
    return { kind: "foreign_origin", origin: e.origin, via: e.what === "a redirect" ? "redirect" : "link" };
  }
  if (e instanceof PagingStalledError) return { kind: "paging_stalled" };
  if (e instanceof ConfigError) return { kind: "config" };
  if (e instanceof WebhookError) return { kind: "webhook" };
  return { kind: "unknown", debug: inspect(e) };
}

/** What a user sees of an error: its text, its inspection and its JSON. */
function errorText(e: unknown): string {
  let json = "";
  try {
    json = JSON.stringify(e) ?? "";
  } catch {
    json = "";
  }
  return `${String(e)} ${inspect(e, { depth: 6 })} ${json}`;
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** A call's answer as JSON: bytes as `{size, text}`, nothing as null, values written back. */
function toJson(value: unknown): Json {
  if (value === undefined) return null;
  if (value instanceof Uint8Array) return { size: value.length, text: utf8.decode(value) };
  return JSON.parse(JSON.stringify(value)) as Json;
}

async function settle(call: () => unknown): Promise<Outcome> {
  try {
    return { result: toJson(await call()) };
  } catch (error) {
    return { error };
  }
}

/** Every page or item of a walk, and the error that ended it early, if any. */
async function collect(walk: () => AsyncIterable<unknown>): Promise<Outcome> {
  const items: Json[] = [];
  try {
    for await (const item of walk()) items.push(toJson(item));
  } catch (error) {
    return { result: items, error };
  }
  return { result: items };
}

/** A step's `args`, taken key by key, so leftovers can be named. */
class Args {
  readonly path: JsonObject;
  readonly query: JsonObject;
  body: Json | undefined;
  readonly other: JsonObject;

  constructor(args: Json | undefined) {
    if (args !== undefined && args !== null && !isObject(args)) throw new Error(`\`args\` is a mapping, not ${show(args)}`);
    const map: JsonObject = { ...(args ?? {}) };
    const section = (name: string): JsonObject => {
      const v = map[name];
      delete map[name];
      if (v === undefined || v === null) return {};
      if (!isObject(v)) throw new Error(`\`args.${name}\` is a mapping, not ${show(v)}`);
      return { ...v };
    };
    this.path = section("path");
    this.query = section("query");
    this.body = map["body"];
    delete map["body"];
    this.other = map;
  }

  take(name: string): Json | undefined {
    const v = this.other[name];
    delete this.other[name];
    return v ?? undefined;
  }

  string(name: string, required: true): string;
  string(name: string, required: false): string | undefined;
  string(name: string, required: boolean): string | undefined {
    const v = this.take(name);
    if (v === undefined) {
      if (required) throw new Error(`\`args.${name}\` is required`);
      return undefined;
    }
    if (typeof v !== "string") throw new Error(`\`args.${name}\` is a string, not ${show(v)}`);
    return v;
  }

  strings(name: string): string[] {
    const v = this.take(name);
    if (!Array.isArray(v) || !v.every((s): s is string => typeof s === "string")) {
      throw new Error(`\`args.${name}\` is a list of strings, not ${show(v)}`);
    }
    return v;
  }

  /** Fails when an argument was given that the call does not take. */
  finish(): void {
    const left = [
      ...Object.keys(this.path).map((k) => `path.${k}`),
      ...Object.keys(this.query).map((k) => `query.${k}`),
      ...(this.body === undefined ? [] : ["body"]),
      ...Object.keys(this.other),
    ];
    if (left.length > 0) throw new Error(`this call takes no \`args.${left.join("`, `args.")}\``);
  }
}

type AnyClient = v3.Client | legacy.Client;

const encoder = new TextEncoder();

/** The client actions both interfaces have; undefined for other names. */
async function presignedAction(client: AnyClient, name: string, a: Args): Promise<Outcome | undefined> {
  switch (name) {
    case "fetch_presigned": {
      const url = a.string("url", true);
      return settle(() => client.fetchPresigned(url));
    }
    case "put_presigned": {
      const url = a.string("url", true);
      const body = a.string("body_text", true);
      const contentType = a.string("content_type", false);
      return settle(async () => {
        const { etag } = await client.putPresigned(url, encoder.encode(body), contentType);
        return { etag: etag ?? null };
      });
    }
    case "put_parts": {
      const urls = a.strings("urls");
      const parts = a.strings("parts").map((p) => encoder.encode(p));
      const contentType = a.string("content_type", false);
      const concurrency = a.take("concurrency") ?? 1;
      if (typeof concurrency !== "number") throw new Error(`\`args.concurrency\` is a number, not ${show(concurrency)}`);
      return settle(async () => {
        const etags = await client.putParts(urls, parts, contentType, concurrency);
        return etags.map((etag, i) => ({ part_number: i + 1, etag }));
      });
    }
    default:
      return undefined;
  }
}

/** A path value: ids as text; for a record reference also `{external: X}` or `{self: true}`. */
function pathValue(value: Json | undefined, name: string, ref: boolean): unknown {
  if (value === undefined) throw new Error(`\`args.path.${name}\` is required`);
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (ref && isObject(value) && Object.keys(value).length === 1) {
    if (value["self"] === true) return { self: true };
    if (typeof value["external"] === "string") return { external: value["external"] };
  }
  throw new Error(`\`args.path.${name}\`: ${ref ? "an id, {external: ...} or {self: true}" : "a string or number"}, not ${show(value)}`);
}

const SCHEMAS = { v3: v3.SCHEMA, legacy: legacy.SCHEMA };

/**
 * A JSON body as the client takes it: the properties its record type does not list go
 * through `withAdditional`, as serde puts them in `additional_properties` in Rust.
 */
function withUnlisted(schema: Registry, type: string | undefined, body: Json): unknown {
  const d = type === undefined ? undefined : schema[type];
  if (d?.k !== "object" || !isObject(body)) return body;
  const listed = new Set(d.fields.map((f) => f.name));
  const own: JsonObject = {};
  const unlisted: JsonObject = {};
  for (const [key, value] of Object.entries(body)) (listed.has(key) ? own : unlisted)[key] = value;
  return Object.keys(unlisted).length === 0 ? body : withAdditional(own, unlisted);
}

/** A step's call of an operation (or a client action) on the generated client. */
async function callOperation(client: AnyClient, iface: "v3" | "legacy", name: string, a: Args, mode: Mode): Promise<Outcome> {
  const op = OPERATIONS[iface].get(name);
  if (op === undefined) {
    const outcome = await presignedAction(client, name, a);
    if (outcome === undefined) throw new Error(`\`${name}\` is no ${iface} operation or client action`);
    a.finish();
    return outcome;
  }
  const methods = client as unknown as Record<string, unknown>;
  const method = methods[op.method];
  if (typeof method !== "function") throw new Error(`the ${iface} client has no method \`${op.method}\` for \`${name}\``);
  const positional: unknown[] = op.pathParams.map((p) => {
    const value = pathValue(a.path[p.name], p.name, p.ref);
    delete a.path[p.name];
    return value;
  });
  let contentType: string | undefined;
  if (op.body?.binary === true) {
    positional.push(encoder.encode(a.string("body_text", true)));
    contentType = a.string("content_type", false);
  } else if (op.body !== undefined) {
    if (a.body === undefined) throw new Error("`args.body` is required");
    positional.push(withUnlisted(SCHEMAS[iface], op.body.type, a.body));
    a.body = undefined;
  }
  if (op.query.length > 0) {
    const query: JsonObject = {};
    for (const q of op.query) {
      const value = a.query[q.name];
      if (value !== undefined) query[q.name] = value;
      else if (q.required) throw new Error(`\`args.query.${q.name}\` is required`);
      delete a.query[q.name];
    }
    positional.push(Object.keys(query).length === 0 && !op.query.some((q) => q.required) ? undefined : query);
  }
  // The content type of a binary body comes last before the options.
  if (op.body?.binary === true) positional.push(contentType);
  // A paged operation starts at `args.resume` (an interrupted walk's `resume`) when given.
  const resume = op.paginated ? a.string("resume", false) : undefined;
  if (resume !== undefined) positional.push({ resume });
  a.finish();
  const invoke = (fn: unknown): unknown => (fn as (...args: unknown[]) => unknown).apply(client, positional);
  const unsupported = (): Error => new Error(`\`${name}\` cannot be called in mode ${mode}`);
  if (op.paginated) {
    type Walk = {
      first(): Promise<unknown>;
      pages(): AsyncIterable<unknown>;
      backward(): AsyncIterable<unknown>;
      pagesBackward(): AsyncIterable<unknown>;
    } & AsyncIterable<unknown>;
    // Validation happens when the method is called; a walk then has collected nothing.
    let list: Walk;
    try {
      list = invoke(method) as Walk;
    } catch (error) {
      return mode === "send" ? { error } : { result: [], error };
    }
    switch (mode) {
      case "send":
        return settle(() => list.first());
      case "pages":
        return collect(() => list.pages());
      case "items":
        return collect(() => list);
      case "pages_backward":
        return collect(() => list.pagesBackward());
      case "items_backward":
        return collect(() => list.backward());
      case "pdf":
        throw unsupported();
    }
  }
  switch (mode) {
    case "send":
      return settle(() => invoke(method));
    case "pdf": {
      const pdf = methods[`${op.method}Pdf`];
      if (typeof pdf === "function") return settle(() => invoke(pdf));
      if (op.binaryOnly) return settle(() => invoke(method));
      throw unsupported();
    }
    default:
      throw unsupported();
  }
}

// ---------------------------------------------------------------- webhook deliveries

/** One POST the listener received: its headers (lowercase names, as node gives them) and raw body. */
interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/** An HTTP listener on 127.0.0.1 (a free port) that answers every POST 200 and records it. */
class Listener {
  readonly deliveries: Delivery[] = [];
  private readonly server: Server = createServer((request, response) => this.receive(request, response));
  private port = 0;

  private constructor() {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  static async start(): Promise<Listener> {
    const listener = new Listener();
    const server = listener.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    listener.port = (server.address() as AddressInfo).port;
    return listener;
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST") {
        response.writeHead(405, { allow: "POST", "content-length": "0" }).end();
        return;
      }
      this.deliveries.push({ headers: { ...request.headers }, body: new Uint8Array(Buffer.concat(chunks)) });
      response.writeHead(200, { "content-length": "0" }).end();
    });
  }

  /** Waits until `count` deliveries came (or `timeoutMs` passed); what came by then. */
  async waitFor(count: number, timeoutMs: number): Promise<Delivery[]> {
    const deadline = performance.now() + timeoutMs;
    while (this.deliveries.length < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return [...this.deliveries];
  }

  /** Stops listening and drops its connections (the sandbox's kept-alive ones too). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** `{name, value}` of `args.<key>` (a header), or undefined when not given. */
function headerArg(a: Args, key: string): { name: string; value: string } | undefined {
  const v = a.take(key);
  if (v === undefined) return undefined;
  const m = mapping(v, `\`args.${key}\``, ["name", "value"]);
  const name = optString(m, "name", `args.${key}`);
  const value = optString(m, "value", `args.${key}`);
  if (name === undefined || value === undefined) throw new Error(`\`args.${key}\` needs \`name\` and \`value\``);
  return { name, value };
}

/** `listen {header}`: a listener, registered with the sandbox for the scenario's interface. */
async function listen(sandbox: Sandbox, scenario: Scenario, state: State, a: Args): Promise<Outcome> {
  const header = headerArg(a, "header");
  a.finish();
  if (state.listener !== undefined) throw new Error("a scenario has one listener: `listen` came twice");
  const listener = await Listener.start();
  state.listener = listener;
  const registration: JsonObject = { interface: scenario.interface, url: listener.url };
  if (header !== undefined) registration["header"] = header;
  await control(sandbox, "POST", "/_sandbox/webhooks", registration);
  return { result: { url: listener.url } };
}

/** `deliveries {count, timeout_ms, verify}`: waits for the deliveries, verifies and parses each. */
async function deliveries(scenario: Scenario, state: State, a: Args): Promise<Outcome> {
  const count = a.take("count");
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
    throw new Error(`\`args.count\` is a whole number, not ${show(count)}`);
  }
  const timeoutMs = a.take("timeout_ms") ?? 5_000;
  if (typeof timeoutMs !== "number") throw new Error(`\`args.timeout_ms\` is a number, not ${show(timeoutMs)}`);
  const verify = headerArg(a, "verify");
  a.finish();
  const listener = state.listener;
  if (listener === undefined) throw new Error("`deliveries` needs a `listen` step before it");
  const came = await listener.waitFor(count, timeoutMs);
  if (came.length !== count) {
    throw new Error(`expected ${count} deliveries, the listener received ${came.length} within ${timeoutMs} ms`);
  }
  const parse = scenario.interface === "v3" ? v3.parseEvent : legacy.parseEvent;
  return settle(() =>
    came.map((d) => {
      if (verify !== undefined) verifyWebhook(d.headers, verify.name, verify.value);
      return parse(d.body);
    }),
  );
}

// ---------------------------------------------------------------- running a scenario

const V3_KEY = { id: "demo-key", secret: "demo-secret" };
const LEGACY_LOGIN = { username: "user@example.com", password: "user-pass" };

/** The scenario's client settings over the defaults every runner uses. */
function options(spec: ClientSpec): ClientOptions {
  return {
    rateLimit: spec.rateLimit === undefined ? null : { requests: spec.rateLimit.requests, windowSeconds: spec.rateLimit.windowMs / 1000 },
    retry: {
      maxAttempts: spec.maxAttempts ?? 4,
      initialBackoffMs: spec.initialBackoffMs ?? 10,
      maxBackoffMs: spec.maxBackoffMs ?? 5_000,
    },
    timeoutMs: spec.timeoutMs ?? 10_000,
    validateRequests: spec.validate ?? true,
    maxPolls: spec.maxPolls ?? 10,
    pollIntervalMs: spec.pollIntervalMs ?? 20,
    maxResponseBytes: spec.maxResponseBytes ?? 64 * 2 ** 20,
    maxErrorBytes: spec.maxErrorBytes ?? 64 * 2 ** 10,
    maxEmptyPages: spec.maxEmptyPages ?? 10,
  };
}

function login(sandbox: Sandbox, spec: ClientSpec, username: string, password: string): Promise<legacy.Client> {
  return legacy.Client.login(sandbox.origin, { user: { username, password } }, options(spec));
}

async function makeClient(sandbox: Sandbox, scenario: Scenario): Promise<AnyClient> {
  const c = scenario.client.credentials;
  if (scenario.interface === "v3") {
    try {
      const key = new v3.ApiKey(c.key_id ?? V3_KEY.id, c.key_secret ?? V3_KEY.secret);
      return new v3.Client(`${sandbox.origin}/v3`, key, options(scenario.client));
    } catch (e) {
      throw new Error(`cannot make the v3 client: ${String(e)}`);
    }
  }
  try {
    return await login(sandbox, scenario.client, c.username ?? LEGACY_LOGIN.username, c.password ?? LEGACY_LOGIN.password);
  } catch (e) {
    throw new Error(`cannot log in before the first step: ${String(e)}`);
  }
}

function checkOutcome(step: Step, outcome: Outcome, vars: Vars): void {
  const expect = step.expect;
  const failed = Object.hasOwn(outcome, "error");
  if (failed && expect.error === undefined) {
    throw new Error(`failed: ${String(outcome.error)} (${show(describeError(outcome.error))})`);
  }
  if (!failed && expect.error !== undefined) {
    throw new Error(`expected an error matching ${show(expect.error)}, got ${show(outcome.result ?? null)}`);
  }
  if (failed && expect.error !== undefined) {
    const pattern = fill(expect.error, vars);
    let excluded: Json | undefined;
    if (isObject(pattern)) {
      excluded = pattern["text_excludes"];
      delete pattern["text_excludes"];
    }
    try {
      check(pattern, describeError(outcome.error), "the error");
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)} (the error: ${String(outcome.error)})`);
    }
    const shown = errorText(outcome.error);
    const words = excluded ?? [];
    // A misspelt list must fail, not turn the secrecy check off.
    if (!Array.isArray(words) || !words.every((w) => typeof w === "string")) {
      throw new Error(`\`text_excludes\` must be a list of strings, got ${show(excluded ?? null)}`);
    }
    for (const word of words) {
      if (shown.includes(word as string)) throw new Error(`the error's text shows \`${String(word)}\`: ${shown}`);
    }
  }
  const result = outcome.result;
  if (expect.ok !== undefined) check(fill(expect.ok, vars), result, "");
  if (expect.equals !== undefined) {
    const want = fill(expect.equals, vars);
    if (result === undefined || !same(want, result)) throw new Error(`expected exactly ${show(want)}, got ${show(result ?? null)}`);
  }
  if (expect.count !== undefined) {
    if (!Array.isArray(result) || result.length !== expect.count) {
      throw new Error(`expected ${expect.count} entries, got ${show(result ?? null)}`);
    }
  }
}

interface State {
  client: AnyClient;
  vars: Vars;
  /** The scenario's webhook listener, once a `listen` step made it. */
  listener?: Listener;
}

async function runStep(sandbox: Sandbox, scenario: Scenario, step: Step, state: State): Promise<void> {
  if (step.sandbox !== undefined) {
    const { request, body } = step.sandbox;
    const space = request.indexOf(" ");
    if (space < 0) throw new Error("`sandbox` is `METHOD /_sandbox/...`");
    await control(sandbox, request.slice(0, space), request.slice(space + 1), body === undefined ? undefined : fill(body, state.vars));
    return;
  }
  const call = step.call ?? "";
  await control(sandbox, "DELETE", "/_sandbox/requests");
  const args = new Args(step.args === undefined ? undefined : fill(step.args, state.vars));
  const started = performance.now();
  let outcome: Outcome;
  if (call === "login" && scenario.interface === "legacy") {
    const username = args.string("username", true);
    const password = args.string("password", true);
    args.finish();
    try {
      state.client = await login(sandbox, scenario.client, username, password);
      outcome = { result: null };
    } catch (error) {
      outcome = { error };
    }
  } else if (call === "listen") {
    outcome = await listen(sandbox, scenario, state, args);
  } else if (call === "deliveries") {
    outcome = await deliveries(scenario, state, args);
  } else {
    outcome = await callOperation(state.client, scenario.interface, call, args, step.mode);
  }
  const took = performance.now() - started;
  checkOutcome(step, outcome, state.vars);
  if (step.minMs !== undefined && took < step.minMs) throw new Error(`took ${took.toFixed(0)} ms, expected at least ${step.minMs} ms`);
  if (step.maxMs !== undefined && took > step.maxMs) throw new Error(`took ${took.toFixed(0)} ms, expected at most ${step.maxMs} ms`);
  if (step.expectRequests !== undefined) {
    const expected = fill(step.expectRequests, state.vars) as Json[];
    const recorded = await control(sandbox, "GET", "/_sandbox/requests");
    if (!Array.isArray(recorded)) throw new Error(`GET /_sandbox/requests gave ${show(recorded)}`);
    checkRequests(expected, recorded.filter(isObject));
  }
  // A call that failed as expected saves its error's description (a walk's `resume`); else its result.
  const saved = Object.hasOwn(outcome, "error") ? describeError(outcome.error) : outcome.result;
  if (step.save !== undefined && saved !== undefined) state.vars.set(step.save, saved);
}

/** Runs `scenario`; a failure names the file, the scenario and the step (1-based). */
async function runScenario(scenario: Scenario): Promise<void> {
  const sandbox = await sandboxFor(scenario.sandbox);
  await control(sandbox, "POST", "/_sandbox/reset");
  if (scenario.script.length > 0) await control(sandbox, "POST", "/_sandbox/script", scenario.script);
  const state: State = { client: await makeClient(sandbox, scenario), vars: new Map([["origin", sandbox.origin]]) };
  try {
    for (const [i, step] of scenario.steps.entries()) {
      const label = step.call !== undefined ? `call ${step.call}` : `sandbox ${step.sandbox?.request ?? ""}`;
      try {
        await runStep(sandbox, scenario, step, state);
      } catch (e) {
        assert.fail(`${scenario.file}: ${scenario.name}: step ${i + 1} (${label}): ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    await state.listener?.close();
  }
  const pending = await control(sandbox, "GET", "/_sandbox/script");
  if (!isObject(pending) || pending["pending"] !== 0) {
    assert.fail(`${scenario.file}: ${scenario.name}: canned answers were left unused at the end: ${show(pending)}`);
  }
}

// ---------------------------------------------------------------- the tests

/** Scenarios the TypeScript client cannot pass yet, by name, with what is missing. */
const SKIPPED: ReadonlyMap<string, string> = new Map<string, string>([]);

const only = process.env["CONFORMANCE_ONLY"];

for (const scenario of readScenarios()) {
  if (only !== undefined && only !== "" && !scenario.name.includes(only)) continue;
  const skip = SKIPPED.get(scenario.name);
  if (skip !== undefined) test(scenario.name, { skip }, () => undefined);
  else test(scenario.name, () => runScenario(scenario));
}
