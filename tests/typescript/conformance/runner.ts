// Runs a conformance scenario (tests/conformance/*.yaml, format in
// tests/conformance/README.md) with the generated TypeScript client against the sandbox.
// The Rust runner (tests/conformance.rs) is the reference: the same defaults, the same
// matching rules, the same error kinds. No Node API: what differs between Node
// (conformance.test.ts) and the browser (browser/page.ts) is the `Platform`.

import { legacy, v3, type ClientOptions } from "inspection-client";

import { Json, JsonObject, isObject, show } from "./json.js";
import type { Step, ClientSpec, Scenario, SandboxSpec } from "./scenarios.js";
import { type Sandbox, control } from "./control.js";
import { Vars, fill, same, check } from "./patterns.js";
import { checkRequests } from "./requests.js";
import { Outcome, describeError, errorText, Args, AnyClient, callOperation } from "./calls.js";
import { EventLog, checkEvents } from "./events.js";
import type { Operations } from "./operations.js";

/** What a runner brings: the spec's operations, sandboxes, and webhook listeners if it can. */
export interface Platform {
  operations: Operations;
  /** The sandbox (and proxy) for these flags, started once and reused. */
  sandboxFor(spec: SandboxSpec): Promise<Sandbox>;
  /** A scenario's `listen` and `deliveries` steps; absent where nothing can listen (a browser). */
  webhooks?: () => WebhookSteps;
}

/** A scenario's webhook listener: made by `listen`, read by `deliveries`, closed at the end. */
export interface WebhookSteps {
  listen(sandbox: Sandbox, scenario: Scenario, args: Args): Promise<Outcome>;
  deliveries(scenario: Scenario, args: Args): Promise<Outcome>;
  close(): Promise<void>;
}

/** Why a scenario cannot run where nothing can listen for webhooks, or undefined. */
export function needsListener(scenario: Scenario): string | undefined {
  const step = scenario.steps.find((s) => s.call === "listen" || s.call === "deliveries");
  return step === undefined ? undefined : `a \`${step.call ?? ""}\` step: webhook deliveries need an HTTP listener`;
}

/** The scenario's client settings (format.json's defaults filled in), reporting to `log`. */
function options(spec: ClientSpec, log: EventLog): ClientOptions {
  const rate = spec.rate_limit;
  return {
    hooks: log.hooks,
    rateLimit: rate === null ? null : { requests: rate.requests, windowSeconds: rate.window_ms / 1000 },
    retry: {
      maxAttempts: spec.max_attempts,
      initialBackoffMs: spec.initial_backoff_ms,
      maxBackoffMs: spec.max_backoff_ms,
    },
    timeoutMs: spec.timeout_ms,
    validateRequests: spec.validate,
    maxPolls: spec.max_polls,
    pollIntervalMs: spec.poll_interval_ms,
    maxResponseBytes: spec.max_response_bytes,
    maxErrorBytes: spec.max_error_bytes,
    maxEmptyPages: spec.max_empty_pages,
  };
}

function login(sandbox: Sandbox, spec: ClientSpec, log: EventLog, username: string, password: string): Promise<legacy.Client> {
  return legacy.Client.login(sandbox.origin, { user: { username, password } }, options(spec, log));
}

/** A client of the scenario's interface with its settings and `credentials`; a legacy one logs in. */
async function newClient(sandbox: Sandbox, scenario: Scenario, log: EventLog, credentials: Record<string, string>): Promise<AnyClient> {
  const c = credentials;
  if (scenario.interface === "v3") {
    return new v3.Client(`${sandbox.origin}/v3`, new v3.ApiKey(c["key_id"] ?? "", c["key_secret"] ?? ""), options(scenario.client, log));
  }
  return await login(sandbox, scenario.client, log, c["username"] ?? "", c["password"] ?? "");
}

async function makeClient(sandbox: Sandbox, scenario: Scenario, log: EventLog): Promise<AnyClient> {
  try {
    return await newClient(sandbox, scenario, log, scenario.client.credentials);
  } catch (e) {
    throw new Error(`cannot make the client before the first step: ${String(e)}`);
  }
}

/**
 * The credentials of a `login` (legacy; `username` and `password` required) or
 * `make_client` step: each the step's `args` give, else the scenario's.
 */
function stepCredentials(scenario: Scenario, call: string, args: Args): Record<string, string> {
  const credentials = { ...scenario.client.credentials };
  for (const key of Object.keys(credentials)) {
    const given = call === "login" ? args.string(key, true) : args.string(key, false);
    if (given !== undefined) credentials[key] = given;
  }
  args.finish();
  return credentials;
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
    const words = (key: string): string[] => {
      const list = isObject(pattern) ? (pattern[key] ?? []) : [];
      if (isObject(pattern)) delete pattern[key];
      // A misspelt list must fail, not turn the check off.
      if (!Array.isArray(list) || !list.every((w): w is string => typeof w === "string")) {
        throw new Error(`\`${key}\` must be a list of strings, got ${show(list)}`);
      }
      return list;
    };
    const [excluded, included] = [words("text_excludes"), words("text_includes")];
    try {
      check(pattern, describeError(outcome.error), "the error");
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)} (the error: ${String(outcome.error)})`);
    }
    const shown = errorText(outcome.error);
    for (const word of excluded) {
      if (shown.includes(word)) throw new Error(`the error's text shows \`${word}\`: ${shown}`);
    }
    for (const word of included) {
      if (!shown.includes(word)) throw new Error(`the error's text does not show \`${word}\`: ${shown}`);
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
  /** What the hooks of the scenario's clients report. */
  log: EventLog;
  /** What no event may hold: the scenario's v3 key secret and legacy passwords. */
  secrets: readonly string[];
  /** The scenario's `listen` and `deliveries` steps, where the runner can listen. */
  webhooks: WebhookSteps | undefined;
}

async function runStep(platform: Platform, sandbox: Sandbox, scenario: Scenario, step: Step, state: State): Promise<void> {
  if (step.sandbox !== undefined) {
    const { request, body } = step.sandbox;
    const space = request.indexOf(" ");
    if (space < 0) throw new Error("`sandbox` is `METHOD /_sandbox/...`");
    await control(sandbox, request.slice(0, space), request.slice(space + 1), body === undefined ? undefined : fill(body, state.vars));
    checkEvents(state.log.take(), state.secrets, step.expectEvents === undefined ? undefined : (fill(step.expectEvents, state.vars) as Json[]));
    return;
  }
  const call = step.call ?? "";
  await control(sandbox, "DELETE", "/_sandbox/requests");
  const args = new Args(step.args === undefined ? undefined : fill(step.args, state.vars));
  // Only what this step's call reports.
  state.log.take();
  const started = performance.now();
  let outcome: Outcome;
  if (call === "make_client" || (call === "login" && scenario.interface === "legacy")) {
    const credentials = stepCredentials(scenario, call, args);
    try {
      state.client = await newClient(sandbox, scenario, state.log, credentials);
      outcome = { result: null };
    } catch (error) {
      outcome = { error };
    }
  } else if (call === "listen" || call === "deliveries") {
    if (state.webhooks === undefined) throw new Error(`this runner cannot listen for webhooks (\`${call}\`)`);
    outcome = call === "listen" ? await state.webhooks.listen(sandbox, scenario, args) : await state.webhooks.deliveries(scenario, args);
  } else {
    outcome = await callOperation(platform.operations, state.client, scenario.interface, call, args, step.mode);
  }
  const took = performance.now() - started;
  const events = state.log.take();
  checkOutcome(step, outcome, state.vars);
  if (step.minMs !== undefined && took < step.minMs) throw new Error(`took ${took.toFixed(0)} ms, expected at least ${step.minMs} ms`);
  if (step.maxMs !== undefined && took > step.maxMs) throw new Error(`took ${took.toFixed(0)} ms, expected at most ${step.maxMs} ms`);
  if (step.expectRequests !== undefined) {
    const expected = fill(step.expectRequests, state.vars) as Json[];
    const recorded = await control(sandbox, "GET", "/_sandbox/requests");
    if (!Array.isArray(recorded)) throw new Error(`GET /_sandbox/requests gave ${show(recorded)}`);
    checkRequests(expected, recorded.filter(isObject));
  }
  checkEvents(events, state.secrets, step.expectEvents === undefined ? undefined : (fill(step.expectEvents, state.vars) as Json[]));
  // A call that failed as expected saves its error's description (a walk's `resume`); else its result.
  const saved = Object.hasOwn(outcome, "error") ? describeError(outcome.error) : outcome.result;
  if (step.save !== undefined && saved !== undefined) state.vars.set(step.save, saved);
}

/**
 * What no event of the scenario may hold: its v3 key secret or legacy password, and those
 * of each `login` or `make_client` step.
 */
function scenarioSecrets(scenario: Scenario): string[] {
  const secrets = new Set<string>();
  const steps = scenario.steps.filter((s) => s.call === "login" || s.call === "make_client");
  for (const given of [scenario.client.credentials, ...steps.map((s) => (isObject(s.args ?? null) ? (s.args as JsonObject) : {}))]) {
    for (const key of ["key_secret", "password"]) {
      const secret = given[key];
      if (typeof secret === "string" && secret !== "") secrets.add(secret);
    }
  }
  return [...secrets];
}

/** Runs `scenario`; a failure names the file, the scenario and the step (1-based). */
export async function runScenario(scenario: Scenario, platform: Platform): Promise<void> {
  const sandbox = await platform.sandboxFor(scenario.sandbox);
  await control(sandbox, "POST", "/_sandbox/reset");
  if (scenario.script.length > 0) await control(sandbox, "POST", "/_sandbox/script", scenario.script);
  const log = new EventLog();
  const secrets = scenarioSecrets(scenario);
  const client = await makeClient(sandbox, scenario, log);
  // The login before step 1 is checked for secrets too.
  checkEvents(log.take(), secrets, undefined);
  const state: State = { client, vars: new Map([["origin", sandbox.origin]]), log, secrets, webhooks: platform.webhooks?.() };
  try {
    for (const [i, step] of scenario.steps.entries()) {
      const label = step.call !== undefined ? `call ${step.call}` : `sandbox ${step.sandbox?.request ?? ""}`;
      try {
        await runStep(platform, sandbox, scenario, step, state);
      } catch (e) {
        throw new Error(`${scenario.file}: ${scenario.name}: step ${i + 1} (${label}): ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    await state.webhooks?.close();
  }
  const pending = await control(sandbox, "GET", "/_sandbox/script");
  if (!isObject(pending) || pending["pending"] !== 0) {
    throw new Error(`${scenario.file}: ${scenario.name}: canned answers were left unused at the end: ${show(pending)}`);
  }
}
