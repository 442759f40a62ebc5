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
import { test } from "node:test";
import { legacy, v3, type ClientOptions } from "inspection-client";

import { Json, JsonObject, isObject, show } from "./conformance/json.js";
import { Step, ClientSpec, Scenario, readScenarios } from "./conformance/scenarios.js";
import { Sandbox, control, sandboxFor } from "./conformance/sandbox.js";
import { Vars, fill, same, check } from "./conformance/patterns.js";
import { checkRequests } from "./conformance/requests.js";
import {
  Outcome,
  describeError,
  errorText,
  Args,
  AnyClient,
  callOperation,
} from "./conformance/calls.js";
import { Listener, listen, deliveries } from "./conformance/webhooks.js";
import { EventLog, checkEvents } from "./conformance/events.js";

// ---------------------------------------------------------------- running a scenario

const V3_KEY = { id: "demo-key", secret: "demo-secret" };
const LEGACY_LOGIN = { username: "user@example.com", password: "user-pass" };

/** The scenario's client settings over the defaults every runner uses, reporting to `log`. */
function options(spec: ClientSpec, log: EventLog): ClientOptions {
  return {
    hooks: log.hooks,
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

function login(sandbox: Sandbox, spec: ClientSpec, log: EventLog, username: string, password: string): Promise<legacy.Client> {
  return legacy.Client.login(sandbox.origin, { user: { username, password } }, options(spec, log));
}

async function makeClient(sandbox: Sandbox, scenario: Scenario, log: EventLog): Promise<AnyClient> {
  const c = scenario.client.credentials;
  if (scenario.interface === "v3") {
    try {
      const key = new v3.ApiKey(c.key_id ?? V3_KEY.id, c.key_secret ?? V3_KEY.secret);
      return new v3.Client(`${sandbox.origin}/v3`, key, options(scenario.client, log));
    } catch (e) {
      throw new Error(`cannot make the v3 client: ${String(e)}`);
    }
  }
  try {
    return await login(sandbox, scenario.client, log, c.username ?? LEGACY_LOGIN.username, c.password ?? LEGACY_LOGIN.password);
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
  /** What the hooks of the scenario's clients report. */
  log: EventLog;
  /** What no event may hold: the scenario's v3 key secret and legacy passwords. */
  secrets: readonly string[];
  /** The scenario's webhook listener, once a `listen` step made it. */
  listener?: Listener;
}

async function runStep(sandbox: Sandbox, scenario: Scenario, step: Step, state: State): Promise<void> {
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
  if (call === "login" && scenario.interface === "legacy") {
    const username = args.string("username", true);
    const password = args.string("password", true);
    args.finish();
    try {
      state.client = await login(sandbox, scenario.client, state.log, username, password);
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
 * What no event of the scenario may hold: its v3 key secret and legacy password (or the
 * defaults), and the password of each `login` step.
 */
function scenarioSecrets(scenario: Scenario): string[] {
  const c = scenario.client.credentials;
  const secrets = new Set([c.key_secret ?? V3_KEY.secret, c.password ?? LEGACY_LOGIN.password]);
  for (const step of scenario.steps) {
    const password = step.call === "login" && isObject(step.args ?? null) ? (step.args as JsonObject)["password"] : undefined;
    if (typeof password === "string") secrets.add(password);
  }
  return [...secrets].filter((s) => s !== "");
}

/** Runs `scenario`; a failure names the file, the scenario and the step (1-based). */
async function runScenario(scenario: Scenario): Promise<void> {
  const sandbox = await sandboxFor(scenario.sandbox);
  await control(sandbox, "POST", "/_sandbox/reset");
  if (scenario.script.length > 0) await control(sandbox, "POST", "/_sandbox/script", scenario.script);
  const log = new EventLog();
  const secrets = scenarioSecrets(scenario);
  const client = await makeClient(sandbox, scenario, log);
  // The login before step 1 is checked for secrets too.
  checkEvents(log.take(), secrets, undefined);
  const state: State = { client, vars: new Map([["origin", sandbox.origin]]), log, secrets };
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
