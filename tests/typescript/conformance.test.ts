// The language-neutral conformance scenarios (tests/conformance/*.yaml, format in
// tests/conformance/README.md) run with the generated TypeScript client against the
// sandbox binary, one node:test test per scenario (conformance/runner.ts runs one).
//
//   cargo build -p sandbox && cd tests/typescript && npm test
//
// `CONFORMANCE_ONLY=<part of a name>` runs the scenarios whose name holds it;
// `SANDBOX_BIN` names another sandbox binary (default: target/debug/sandbox, under
// `CARGO_TARGET_DIR` when set). browser.test.ts runs the same scenarios in Chromium.

import { test } from "node:test";
import { inspect } from "node:util";

import { useInspect } from "./conformance/calls.js";
import { readOperations, readScenarios } from "./conformance/files.js";
import { type Platform, runScenario } from "./conformance/runner.js";
import { sandboxFor } from "./conformance/sandbox.js";
import { NodeWebhooks } from "./conformance/webhooks.js";

useInspect((value) => inspect(value, { depth: 6 }));

const platform: Platform = { operations: readOperations(), sandboxFor, webhooks: () => new NodeWebhooks() };

/** Scenarios the TypeScript client cannot pass yet, by name, with what is missing. */
const SKIPPED: ReadonlyMap<string, string> = new Map<string, string>([]);

const only = process.env["CONFORMANCE_ONLY"];

for (const scenario of readScenarios()) {
  if (only !== undefined && only !== "" && !scenario.name.includes(only)) continue;
  const skip = SKIPPED.get(scenario.name);
  if (skip !== undefined) test(scenario.name, { skip }, () => undefined);
  else test(scenario.name, () => runScenario(scenario, platform));
}
