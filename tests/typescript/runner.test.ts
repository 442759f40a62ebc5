// The conformance runner's own parts: how an error is shown in full where Node's
// `util.inspect` is missing (the browser), which the secrecy checks read; how a scenario
// file is checked against format.json and its client settings filled in.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError } from "inspection-client";

import { showAll } from "./conformance/calls.js";
import { readFormat } from "./conformance/files.js";
import type { Json } from "./conformance/json.js";
import { type Scenario, scenariosOf } from "./conformance/scenarios.js";

test("showAll shows what util.inspect would: hidden fields, the stack, causes, without looping", () => {
  const inner = new Error("inner");
  Object.defineProperty(inner, "hidden", { value: "SECRET-IN-A-HIDDEN-FIELD", enumerable: false });
  const outer = new Error("outer", { cause: inner });
  (outer as unknown as Record<string, unknown>)["self"] = outer;
  (outer as unknown as Record<string, unknown>)["nested"] = { list: [{ deep: "SECRET-DEEP" }] };
  const shown = showAll(outer);
  for (const part of ["outer", "inner", "SECRET-IN-A-HIDDEN-FIELD", "SECRET-DEEP", "at "]) {
    assert.ok(shown.includes(part), `${part} not in ${shown}`);
  }
  const api = new ApiError({ status: 503, serviceMessage: "busy", method: "GET", path: "/units" });
  assert.match(showAll(api), /ApiError \{.*503.*busy/s);
  assert.equal(showAll("text"), '"text"');
  assert.equal(showAll(null), "null");
});

test("a scenario file is refused for a key or a mode format.json does not have; settings left out are its defaults", () => {
  const format = readFormat();
  const file = (step: Record<string, unknown>, client: Record<string, unknown> = {}): Scenario[] =>
    scenariosOf("f.yaml", { scenarios: [{ name: "s", interface: "v3", client, steps: [{ call: "list_units", ...step }] }] } as Json, new Set(), format);
  assert.throws(() => file({ expect: { oks: 1 } }), { message: "f.yaml: unknown key `oks` in scenarios[0].steps[0].expect" });
  assert.throws(() => file({ expect_requests: [{ method: "GET", path: "/v3/units", header: {} }] }), {
    message: "f.yaml: unknown key `header` in scenarios[0].steps[0].expect_requests[0]",
  });
  assert.throws(() => file({ mode: "page" }), { message: /^f\.yaml: scenarios\[0\]\.steps\[0\]\.mode is one of send, pdf, .*, not "page"$/ });
  const [scenario] = file({}, { timeout_ms: 50, credentials: { key_secret: "s3cr3t" } });
  assert.equal(scenario?.client.timeout_ms, 50);
  assert.equal(scenario?.client.max_attempts, 4);
  assert.deepEqual(scenario?.client.credentials, { key_id: "demo-key", key_secret: "s3cr3t" });
});
