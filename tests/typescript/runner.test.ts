// The conformance runner's own parts that differ by platform: how an error is shown in full
// where Node's `util.inspect` is missing (the browser), which the secrecy checks read.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError } from "inspection-client";

import { showAll } from "./conformance/calls.js";

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
