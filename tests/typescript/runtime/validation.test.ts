// Behaviour tests of the hand-written TypeScript runtime (templates/typescript/runtime/)
// against local node:http servers: validation before sending, request bodies beyond the
// spec, and error bodies. The runtime is imported from the generated package's build
// output, where the generator copies it verbatim.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspect } from "node:util";

import {
  ApiError,
  ConfigError,
  Core,
  DecodeError,
  Secret,
  ValidationError,
  queryEntries,
  secretsAt,
  validate,
  withAdditional,
  type Desc,
  type Registry,
  type RequestSpec,
  type Violation,
} from "../../../generated/typescript/dist/runtime/index.js";
import type { NewUnit } from "../../../generated/typescript/dist/v3/models.js";

import { serve, json, V3, LEGACY, FAST, get, ANY, NONE } from "./service.js";

// ---------------------------------------------------------------- validation

const REQUESTS: Registry = {
  NewUnit: {
    k: "object",
    fields: [
      { name: "reference_number", d: { k: "string", c: { maxLength: 255 } }, req: true, nul: false },
      { name: "vin", d: { k: "string", c: { length: 17, chars: { allow: "ascii_alphanumeric", forbid: "IOQioq" } } }, req: false, nul: false },
      { name: "year", d: { k: "int", bits: 32, c: { min: 1800, max: 9999 } }, req: false, nul: false },
      { name: "hours", d: { k: "int", bits: 32, c: { min: 0 } }, req: false, nul: false },
      { name: "odometer", d: { k: "int", bits: 32, c: { min: 0 } }, req: false, nul: false },
      { name: "weight", d: { k: "number", c: { min: 0 } }, req: false, nul: false },
      { name: "active", d: { k: "bool" }, req: false, nul: false },
      { name: "external_id", d: { k: "string" }, req: false, nul: true },
      { name: "pin", d: { k: "string", c: { chars: { allow: "ascii_digits", forbid: "" } } }, req: false, nul: false },
      { name: "status", d: { k: "enum", values: ["active", "retired"], open: false }, req: false, nul: false },
      { name: "kind", d: { k: "enum", values: ["a"], open: true }, req: false, nul: false },
      { name: "tags", d: { k: "array", of: { k: "string", c: { maxLength: 3 } }, c: { minItems: 1, maxItems: 2 } }, req: false, nul: false },
      { name: "value", d: { k: "scalar", of: ["string", "integer", "boolean"] }, req: false, nul: false },
      { name: "due_by", d: { k: "date_or_datetime" }, req: false, nul: false },
      { name: "since", d: { k: "date" }, req: false, nul: false },
      { name: "at", d: { k: "datetime" }, req: false, nul: false },
      { name: "extended_data", d: { k: "map", of: { k: "json" } }, req: false, nul: false },
      { name: "owner", d: { k: "ref", name: "Owner" }, req: false, nul: false },
    ],
  },
  Owner: { k: "object", fields: [{ name: "name", d: { k: "string", c: { maxLength: 4 } }, req: true, nul: false }] },
  TaskRequest: {
    k: "object",
    fields: [
      { name: "name", d: { k: "string", c: { maxLength: 255 } }, req: true, nul: false },
      // As codegen emits them: a group's fields are not required alone.
      { name: "assignee_username", d: { k: "string", c: { maxLength: 255 } }, req: false, nul: false },
      { name: "location_id", d: { k: "int", bits: 64 }, req: false, nul: false },
      { name: "user_group_id", d: { k: "int", bits: 64 }, req: false, nul: false },
    ],
    oneOf: {
      name: "assignee",
      variants: [
        { name: "user", fields: ["assignee_username"] },
        { name: "location", fields: ["location_id"] },
        { name: "user_group", fields: ["user_group_id"] },
      ],
    },
  },
};

function violations(d: Desc, value: unknown, path = ""): Violation[] {
  const out: Violation[] = [];
  validate(REQUESTS, d, value, path, out);
  return out;
}

describe("validation", () => {
  test("every constraint kind, all violations at once, with nested paths", () => {
    const found = violations({ k: "ref", name: "NewUnit" }, {
      vin: "1HGCM82633A00I",
      year: 1799,
      hours: -1,
      odometer: 3_000_000_000,
      weight: "heavy",
      active: "yes",
      external_id: null,
      pin: "12a4",
      status: "lost",
      kind: "b",
      tags: ["abcd", "ok", "x"],
      value: 1.5,
      due_by: "2026-02-30",
      since: "2026-03-01",
      at: "2026-03-01 17:00",
      extended_data: { any: [1, { x: null }] },
      owner: { name: "Ådølf" },
    });
    assert.deepEqual(found, [
      { path: "reference_number", message: "is required" },
      { path: "vin", message: "must be exactly 17 characters, got 14" },
      { path: "vin", message: "must hold only ASCII letters and digits, never I, O, Q, i, o, q; found 'I' at position 14" },
      { path: "year", message: "must be at least 1800, got 1799" },
      { path: "hours", message: "must be at least 0, got -1" },
      { path: "odometer", message: "must be a 32-bit integer (-2147483648 to 2147483647), got 3000000000" },
      { path: "weight", message: 'expected a finite number, got string "heavy"' },
      { path: "active", message: 'expected a boolean, got string "yes"' },
      { path: "pin", message: "must hold only ASCII digits; found 'a' at position 3" },
      { path: "status", message: 'must be one of `active`, `retired`, got string "lost"' },
      { path: "tags", message: "must have at most 2 items, got 3" },
      { path: "tags[0]", message: "must be at most 3 characters, got 4" },
      { path: "value", message: "expected a string, an integer or a boolean, got number 1.5" },
      { path: "due_by", message: 'expected an ISO 8601 date or date-time, got string "2026-02-30"' },
      { path: "at", message: 'expected an ISO 8601 date-time (2026-03-01T17:00:00Z), got string "2026-03-01 17:00"' },
      { path: "owner.name", message: "must be at most 4 characters, got 5" },
    ]);
    assert.deepEqual(violations({ k: "ref", name: "NewUnit" }, { reference_number: "x".repeat(256), year: 10000, tags: [], vin: "1HGCM82633A004352" }), [
      { path: "reference_number", message: "must be at most 255 characters, got 256" },
      { path: "year", message: "must be at most 9999, got 10000" },
      { path: "tags", message: "must have at least 1 items, got 0" },
    ]);
    // Lengths count code points, not UTF-16 units.
    assert.deepEqual(violations({ k: "ref", name: "NewUnit" }, { reference_number: "😀".repeat(255), year: 1800, hours: 0 }), []);
    assert.deepEqual(violations({ k: "ref", name: "Owner" }, { name: null }, "body.owner"), [{ path: "body.owner.name", message: "must not be null" }]);
    assert.deepEqual(violations({ k: "array", of: { k: "ref", name: "Owner" } }, [{ name: "ok" }, {}, 3], "items"), [
      { path: "items[1].name", message: "is required" },
      { path: "items[2]", message: "expected an object, got number 3" },
    ]);
    assert.deepEqual(violations({ k: "string", c: { maxLength: 3 } }, new Secret("toolong")), [{ path: "", message: "must be at most 3 characters, got 7" }]);
    assert.deepEqual(
      violations({ k: "string", c: { chars: { allow: "ascii_digits", forbid: "" } } }, new Secret("12x"), "pin"),
      [{ path: "pin", message: "must hold only ASCII digits; found a character not allowed at position 3" }],
    );
    // A field the spec marks sensitive, given as a plain string, hides its characters too.
    assert.deepEqual(
      violations({ k: "string", sec: true, c: { chars: { allow: "ascii_digits", forbid: "" } } }, "12x", "pin"),
      [{ path: "pin", message: "must hold only ASCII digits; found a character not allowed at position 3" }],
    );
  });

  test("exactly one of the assignee variants", () => {
    const task: Desc = { k: "ref", name: "TaskRequest" };
    assert.deepEqual(violations(task, { name: "t", location_id: 4 }), []);
    assert.deepEqual(violations(task, { name: "t" }), [
      { path: "assignee", message: "expected exactly one of `assignee_username`, `location_id`, `user_group_id`, found none" },
    ]);
    assert.deepEqual(violations(task, { name: "t", assignee_username: "u", user_group_id: 1.5 }), [
      { path: "user_group_id", message: "expected an integer, got number 1.5" },
      { path: "assignee", message: "expected exactly one of `assignee_username`, `location_id`, `user_group_id`, found `assignee_username` and `user_group_id`" },
    ]);
  });

  test("Core.check throws every violation; validation off sends as is; unsendable path values are always refused", async () => {
    const svc = await serve((req, res) => json(res, 200, { url: req.url }));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      assert.throws(
        () =>
          core.check(
            [
              ["body", { k: "ref", name: "Owner" }, { name: "toolong" }],
              ["per_page", { k: "int", bits: 32, c: { min: 1, max: 100 } }, 101],
              ["page", { k: "string" }, undefined],
            ],
            REQUESTS,
          ),
        (e: unknown) => {
          assert.ok(e instanceof ValidationError);
          assert.equal(e.message, "invalid request: body.name: must be at most 4 characters, got 7; per_page: must be at most 100, got 101");
          assert.equal(e.violations.length, 2);
          return true;
        },
      );
      const lax = new Core(svc.base, V3, { kind: "none" }, { ...FAST, validateRequests: false });
      assert.equal(lax.validateRequests, false);
      lax.check([["per_page", { k: "int", bits: 32, c: { max: 100 } }, 101]], REQUESTS);

      const byRef = (value: string): RequestSpec => ({
        op: "get_unit_by_reference_number",
        method: "GET",
        path: "/units/by_reference_number/{reference_number}",
        segments: ["units", "by_reference_number", { value }],
        query: [["per_page", "5"], ["page", undefined]],
      });
      assert.deepEqual(await lax.json(NONE, ANY, byRef("A/1 ü?#")), { url: "/units/by_reference_number/A%2F1%20%C3%BC%3F%23?per_page=5" });
      for (const bad of ["", ".", "..", "a\tb", "a\nb", "\ud800"]) {
        await assert.rejects(lax.json(NONE, ANY, byRef(bad)), (e: unknown) => {
          assert.ok(e instanceof ValidationError, String(e));
          assert.equal(e.violations[0]?.path, "/units/by_reference_number/{reference_number}");
          return true;
        });
      }
      assert.equal(svc.seen.length, 1);

      // A body JSON cannot carry is refused before anything is sent.
      const cyclic: Record<string, unknown> = {};
      cyclic["self"] = cyclic;
      for (const body of [{ big: 1n }, cyclic]) {
        await assert.rejects(lax.json(NONE, ANY, { ...get("/units"), method: "POST", body }), ConfigError);
      }
      assert.equal(svc.seen.length, 1);
    } finally {
      await svc.close();
    }
  });
});

// ---------------------------------------------------------------- request bodies beyond the spec

describe("request bodies beyond the spec", () => {
  test("withAdditional sends properties the spec does not list, nested too, and keeps the type", async () => {
    const svc = await serve((req, res) => json(res, 201, JSON.parse(req.body)));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const plain: NewUnit = { reference_number: "A-1" };
      const unit: NewUnit = withAdditional(withAdditional(plain, { color: "teal" }), { fleet: { north: [1, null] } });
      // @ts-expect-error: an object literal keeps its excess-property check
      const literal: NewUnit = { reference_number: "A-1", color: "teal" };
      assert.deepEqual(literal, { reference_number: "A-1", color: "teal" });
      assert.deepEqual(plain, { reference_number: "A-1" }, "the record given is not changed");
      assert.deepEqual(Object.keys(unit), ["reference_number"], "the additional properties are not own enumerable ones");
      core.check([["", { k: "ref", name: "NewUnit" }, unit]], REQUESTS);
      const body = { unit, owners: [withAdditional({ name: "Ann" }, { since: "2020" })], secret: new Secret("s") };
      await core.json(NONE, ANY, { ...get("/units"), method: "POST", body });
      assert.equal(svc.seen[0]?.body, '{"unit":{"reference_number":"A-1","color":"teal","fleet":{"north":[1,null]}},"owners":[{"name":"Ann","since":"2020"}],"secret":"s"}');
      // A filter sent as JSON text carries them too.
      assert.deepEqual(queryEntries({ filter: withAdditional({ a: 1 }, { b: 2 }) }, [["filter", "json"]]), [["filter", '{"a":1,"b":2}']]);
      assert.throws(() => withAdditional([] as object, { a: 1 }), ConfigError);
    } finally {
      await svc.close();
    }
  });

  test("validation refuses an additional property the spec lists, in records and union members", () => {
    const twice = withAdditional({ reference_number: "A-1", owner: withAdditional({ name: "Ann" }, { name: "Bob", age: 3 }) }, { reference_number: "B", color: "teal" });
    assert.deepEqual(violations({ k: "ref", name: "NewUnit" }, twice), [
      { path: "owner.name", message: "is a property the spec lists: give it as a property of the record, not as an additional one" },
      { path: "reference_number", message: "is a property the spec lists: give it as a property of the record, not as an additional one" },
    ]);
    const reg: Registry = { ...REQUESTS, Shape: { k: "object", fields: [{ name: "size", d: { k: "int", bits: 32 }, req: false, nul: false }] } };
    const union: Desc = { k: "union", tag: "object", common: [{ name: "label", d: { k: "string" }, req: false, nul: false }], variants: { box: "Shape" } };
    const out: Violation[] = [];
    validate(reg, union, withAdditional({ object: "box" }, { object: "ball", label: "l", size: 1, depth: 2 }), "item", out);
    assert.deepEqual(out.map((v) => v.path), ["item.object", "item.label", "item.size"]);
  });

  test("bytes are sent as they are, with their content type; a content type that cannot be a header is refused", async () => {
    const svc = await serve((_req, res) => json(res, 200, {}));
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const log = (bytes: Uint8Array | string, contentType?: string): RequestSpec => ({
        ...get("/api/devices/d1/log"),
        method: "POST",
        bytes,
        ...(contentType === undefined ? {} : { contentType }),
      });
      await core.empty(log("boot ok\nready\n", "text/plain"));
      await core.empty(log(new TextEncoder().encode("<log/>"), "application/xml"));
      await core.empty(log(new Uint8Array([0, 255])));
      assert.deepEqual(
        svc.seen.map((s) => [s.headers["content-type"], s.body.length]),
        [["text/plain", 14], ["application/xml", 6], ["application/octet-stream", 2]],
      );
      assert.equal(svc.seen[0]?.body, "boot ok\nready\n");
      for (const bad of ["", "text/plain\r\nx-evil: 1", "text/ü\u0100"]) await assert.rejects(core.empty(log("x", bad)), ConfigError);
      await assert.rejects(core.empty(log(42 as unknown as string, "text/plain")), ConfigError);
      assert.equal(svc.seen.length, 3);
    } finally {
      await svc.close();
    }
  });

  test("a request's sensitive values are scrubbed from its errors", async () => {
    const token = "guest-token-1234";
    const svc = await serve((req, res) => json(res, 422, { errors: `unknown guest token ${String((JSON.parse(req.body) as { guest_token: string }).guest_token)}` }));
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const body = { guest_token: token };
      const req: RequestSpec = { ...get("/api/guest_auth/exchange_token"), method: "POST", body, hidden: secretsAt(body, [["guest_token"]]) };
      const error = await core.json(NONE, ANY, req).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.serviceMessage, "unknown guest token <redacted>");
      assert.ok(!inspect(error).includes(token));
      assert.ok(svc.seen[0]?.body.includes(token), "sent as it is");
    } finally {
      await svc.close();
    }
  });
});

// ---------------------------------------------------------------- error bodies

describe("error bodies", () => {
  test("the message is read from a string, array, object, JSON string, HTML or empty body", async () => {
    const bodies: Record<string, string> = {
      "/string": '{"errors":"The Unit A-001 could not be found"}',
      "/array": '{"errors":["a","b"]}',
      "/object": '{"errors":{"vin":"bad"}}',
      "/bare": '"just text"',
      "/html": "<html>oops</html>",
      "/empty": "",
      "/other": '{"other":1}',
    };
    const svc = await serve((req, res) => {
      res.writeHead(404);
      res.end(bodies[req.url] ?? "");
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const expected: Record<string, string | undefined> = {
        "/string": "The Unit A-001 could not be found",
        "/array": "a; b",
        "/object": '{"vin":"bad"}',
        "/bare": "just text",
        "/html": "<html>oops</html>",
        "/empty": undefined,
        "/other": undefined,
      };
      for (const [path, message] of Object.entries(expected)) {
        const error = await core.empty(get(path)).catch((e: unknown) => e);
        assert.ok(error instanceof ApiError);
        assert.equal(error.serviceMessage, message, path);
        assert.equal(error.name, "ApiError");
      }
      const bad = await core.json(NONE, ANY, get("/html")).catch((e: unknown) => e);
      assert.ok(bad instanceof ApiError);
    } finally {
      await svc.close();
    }
  });

  test("a body that is not JSON is a DecodeError; upsert tells created from replaced", async () => {
    const svc = await serve((req, res) => {
      if (req.url === "/html") {
        res.writeHead(200, { "content-type": "text/html" });
        return void res.end("<html>secret-ish</html>");
      }
      return json(res, req.url === "/new" ? 201 : 200, { id: "u1" });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const error = await core.json(NONE, ANY, get("/html")).catch((e: unknown) => e);
      assert.ok(error instanceof DecodeError);
      assert.equal(error.message, "cannot decode the 200 response: the body is not JSON (Content-Type text/html)");
      assert.deepEqual(await core.upsert(NONE, ANY, { ...get("/new"), method: "PUT", body: {} }), { created: true, value: { id: "u1" } });
      assert.deepEqual(await core.upsert(NONE, ANY, { ...get("/old"), method: "PUT", body: {} }), { created: false, value: { id: "u1" } });
    } finally {
      await svc.close();
    }
  });
});
