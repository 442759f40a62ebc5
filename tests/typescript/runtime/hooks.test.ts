// Behaviour tests of the runtime's hooks (ClientOptions.hooks, templates/typescript/runtime/hooks.ts)
// against local node:http servers: what the conformance scenarios cannot script (a hook that
// throws, concurrent calls, a 429 that holds another request, a re-login's token, redirects,
// refused connections, stalled walks, aborts, server address and port).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  ApiError,
  Core,
  ForeignOriginError,
  NotReadyError,
  PagingStalledError,
  Secret,
  TooLargeError,
  TransportError,
  type Auth,
  type ClientHooks,
  type PagingPlan,
} from "../../../generated/typescript/dist/runtime/index.js";

import { serve, json, V3, LEGACY, FAST, KEY_SECRET, keyAuth, get, ANY, NONE, collectUntilError } from "./service.js";

type Recorded = { event: string } & Record<string, unknown>;

/** Hooks recording every event as `{event: <hook without "on", lowercase>, ...fields}`. */
function recorder(): { hooks: ClientHooks; events: Recorded[] } {
  const events: Recorded[] = [];
  const record = (event: string) => (e: object) => void events.push({ event, ...e });
  return {
    events,
    hooks: {
      onRequest: record("request"),
      onResponse: record("response"),
      onRetry: record("retry"),
      onPause: record("pause"),
      onPage: record("page"),
      onError: record("error"),
    },
  };
}

/** The events as `event:operation:attempt` lines, for comparing sequences. */
function lines(events: readonly Recorded[]): string[] {
  return events.map((e) => [e.event, e["operation"], e["attempt"] ?? e["page"] ?? e["reason"]].join(":"));
}

describe("hooks", () => {
  test("a hook that throws, or returns a promise that rejects, never breaks the call or the events after it", async () => {
    let calls = 0;
    const svc = await serve((_req, res) => (calls++ === 0 ? json(res, 503, {}) : json(res, 200, { ok: true })));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const seen: string[] = [];
      const hooks: ClientHooks = {
        onRequest: (e) => {
          seen.push(`request ${e.attempt}`);
          throw new Error("a broken hook");
        },
        onResponse: async (e) => {
          seen.push(`response ${e.status}`);
          await Promise.resolve();
          throw new Error("a broken async hook");
        },
        onRetry: (e) => {
          seen.push(`retry ${e.attempt}`);
          throw "not even an Error";
        },
      };
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks });
      assert.deepEqual(await core.json(NONE, ANY, get("/a")), { ok: true });
      assert.deepEqual(seen, ["request 1", "response 503", "retry 1", "request 2", "response 200"]);
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(unhandled, [], "a rejecting hook leaves no unhandled rejection");
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await svc.close();
    }
  });

  test("only the hooks that are set are called, and a hooks object's methods keep their `this`", async () => {
    const svc = await serve((_req, res) => json(res, 500, {}));
    try {
      class Errors {
        readonly seen: string[] = [];
        onError(e: { errorType: string; status: number | null; attempt: number }): void {
          this.seen.push(`${e.errorType} ${String(e.status)} after ${e.attempt}`);
        }
      }
      const hooks = new Errors();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks });
      await assert.rejects(core.json(NONE, ANY, get("/a")), ApiError);
      assert.deepEqual(hooks.seen, ["api 500 after 3"]);
    } finally {
      await svc.close();
    }
  });

  test("concurrent calls: each event names its call, so a response is tied to its own request", async () => {
    const svc = await serve((req, res) => void setTimeout(() => json(res, 200, {}, { "x-request-id": `id${req.url}` }), req.url === "/slow" ? 300 : 10));
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, keyAuth(), { ...FAST, hooks });
      await Promise.all([core.json(NONE, ANY, get("/slow", { op: "get_unit" })), core.json(NONE, ANY, get("/fast", { op: "get_unit" }))]);
      assert.deepEqual(lines(events), ["request:get_unit:1", "request:get_unit:1", "response:get_unit:1", "response:get_unit:1"]);
      const [slow, fast] = events.filter((e) => e.event === "request");
      assert.ok(slow && fast);
      assert.notEqual(slow["callId"], fast["callId"]);
      const answerOf = (id: unknown): Recorded | undefined => events.find((e) => e.event === "response" && e["callId"] === id);
      assert.equal(answerOf(slow["callId"])?.["requestId"], "id/slow");
      assert.equal(answerOf(fast["callId"])?.["requestId"], "id/fast");
      assert.ok((answerOf(slow["callId"])?.["durationMs"] as number) >= 290);
      assert.ok((answerOf(fast["callId"])?.["durationMs"] as number) < (answerOf(slow["callId"])?.["durationMs"] as number));
      for (const e of events) assert.ok(!JSON.stringify(e).includes(KEY_SECRET), JSON.stringify(e));
    } finally {
      await svc.close();
    }
  });

  test("a 429 is the retry's wait for its request, and a rate-limit pause for another one it holds", async () => {
    let refused = false;
    const svc = await serve((req, res) => {
      if (req.url === "/a" && !refused) {
        refused = true;
        return json(res, 429, {}, { "retry-after": "1" });
      }
      return json(res, 200, {});
    });
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks });
      const first = core.json(NONE, ANY, get("/a", { op: "a" }));
      await new Promise((r) => setTimeout(r, 150));
      await Promise.all([first, core.json(NONE, ANY, get("/b", { op: "b" }))]);
      const ofA = events.filter((e) => e["operation"] === "a");
      const ofB = events.filter((e) => e["operation"] === "b");
      assert.deepEqual(lines(ofA), ["request:a:1", "response:a:1", "retry:a:1", "request:a:2", "response:a:2"]);
      assert.deepEqual(ofA[2], {
        event: "retry",
        operation: "a",
        callId: ofA[0]?.["callId"],
        attempt: 1,
        reason: "status",
        status: 429,
        waitMs: 1000,
        retryAfter: true,
      });
      assert.deepEqual(lines(ofB), ["pause:b:rate_limit", "request:b:1", "response:b:1"]);
      const wait = ofB[0]?.["waitMs"] as number;
      assert.ok(wait > 400 && wait <= 1000, `b waited ${wait} ms`);
    } finally {
      await svc.close();
    }
  });

  test("a re-login: the 401, the login as its own call, the resend as attempt 2; no token or password anywhere", async () => {
    let issued = 0;
    let valid = new Set<string>();
    const svc = await serve((req, res) => {
      // A careless service echoes the password, or the token, as the request id.
      if (req.url === "/api/users/authenticate") {
        issued += 1;
        valid.add(`tok-${issued}`);
        const echo = (JSON.parse(req.body) as { password: string }).password;
        return json(res, 200, { auth_token: `tok-${issued}` }, { "x-request-id": echo });
      }
      const token = (req.headers["authorization"] ?? "").replace(/^Token /, "");
      const echo = { "x-request-id": token };
      return valid.has(token) ? json(res, 200, {}, echo) : json(res, 401, { errors: "token expired" }, echo);
    });
    try {
      const password = new Secret("hunter2-pass");
      const auth: Auth = {
        kind: "token",
        header: "Authorization",
        scheme: "Token",
        hidden: [password],
        login: async (core) => {
          const req = { ...get("/api/users/authenticate"), op: "authenticate", method: "POST" as const, anonymous: true, body: { password } };
          const answer = await core.json<{ auth_token: string }>(NONE, ANY, req);
          return new Secret(answer.auth_token);
        },
      };
      const { hooks, events } = recorder();
      const core = new Core(svc.base, LEGACY, auth, { ...FAST, hooks });
      await core.login();
      valid = new Set();
      await core.json(NONE, ANY, get("/api/locations", { op: "list_locations" }));
      assert.deepEqual(lines(events), [
        "request:authenticate:1",
        "response:authenticate:1",
        "request:list_locations:1",
        "response:list_locations:1",
        "request:authenticate:1",
        "response:authenticate:1",
        "request:list_locations:2",
        "response:list_locations:2",
      ]);
      const ids = events.map((e) => e["callId"]);
      assert.equal(new Set(ids).size, 3, "two logins and one call");
      assert.equal(ids[2], ids[6], "the resend is the same call");
      for (const e of events) {
        const text = JSON.stringify(e);
        assert.ok(!text.includes("hunter2") && !text.includes("tok-"), `an event shows a secret: ${text}`);
      }
      // The request ids that echoed the password or the token in use: redacted, not passed on.
      assert.deepEqual(
        events.filter((e) => e.event === "response").map((e) => e["requestId"]),
        ["<redacted>", "<redacted>", "<redacted>", "<redacted>"],
      );
    } finally {
      await svc.close();
    }
  });

  test("a redirect to another origin: its 3xx answer, then an error event; too large: the 200, then too_large", async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, {}));
    const svc = await serve((req, res) => {
      if (req.url === "/away") return void res.writeHead(302, { location: `${elsewhere.origin}/x` }).end();
      return json(res, 200, { big: "x".repeat(100) });
    });
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks, maxResponseBytes: 50 });
      await assert.rejects(core.json(NONE, ANY, get("/away", { op: "away" })), ForeignOriginError);
      await assert.rejects(core.json(NONE, ANY, get("/big", { op: "big" })), TooLargeError);
      assert.deepEqual(
        events.map((e) => [e.event, e["operation"], e["status"], e["errorType"]]),
        [
          ["request", "away", undefined, undefined],
          ["response", "away", 302, undefined],
          ["error", "away", null, "foreign_origin"],
          ["request", "big", undefined, undefined],
          ["response", "big", 200, undefined],
          ["error", "big", null, "too_large"],
        ],
      );
    } finally {
      await svc.close();
      await elsewhere.close();
    }
  });

  test("a refused connection: retries for a connection, then an error of kind transport", async () => {
    const svc = await serve((_req, res) => json(res, 200, {}));
    const base = svc.base;
    await svc.close();
    const { hooks, events } = recorder();
    const core = new Core(base, V3, { kind: "none" }, { ...FAST, hooks });
    await assert.rejects(core.json(NONE, ANY, get("/a", { op: "a" })), TransportError);
    assert.deepEqual(lines(events), ["request:a:1", "retry:a:1", "request:a:2", "retry:a:2", "request:a:3", "error:a:3"]);
    assert.deepEqual(
      events.filter((e) => e.event === "retry").map((e) => [e["reason"], e["status"], e["retryAfter"]]),
      [
        ["connection", null, false],
        ["connection", null, false],
      ],
    );
    assert.equal(events.at(-1)?.["errorType"], "transport");
  });

  test("polling: a pause per poll, each poll a new request at attempt 1, then not_ready", async () => {
    const svc = await serve((_req, res) => json(res, 202, {}));
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks, maxPolls: 1, pollIntervalMs: 15 });
      await assert.rejects(core.bytes(get("/pdf", { op: "pdf", poll: true })), NotReadyError);
      assert.deepEqual(lines(events), ["request:pdf:1", "response:pdf:1", "pause:pdf:poll", "request:pdf:1", "response:pdf:1", "error:pdf:1"]);
      assert.equal(events[2]?.["waitMs"], 15);
      assert.equal(events.at(-1)?.["errorType"], "not_ready");
    } finally {
      await svc.close();
    }
  });

  test("a walk is one call: a page event per page, and the walk's own failure an error of its kind", async () => {
    const plan: PagingPlan = { style: "cursor", itemsField: "data", pagingField: "paging", cursorField: "cursor", pageParam: "page", page: { k: "json" } };
    const svc = await serve((req, res) => {
      // The second page points back to itself: the walk stalls.
      const page = new URL(req.url, "http://x").searchParams.get("page");
      return json(res, 200, { data: page === null ? [1, 2] : [3], paging: { cursor: "c2" } });
    });
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks });
      const { items, error } = await collectUntilError(core.paged(NONE, plan, get("/units", { op: "list_units" })));
      assert.deepEqual(items, [1, 2, 3]);
      assert.ok(error instanceof PagingStalledError, String(error));
      assert.deepEqual(lines(events), [
        "request:list_units:1",
        "response:list_units:1",
        "page:list_units:1",
        "request:list_units:1",
        "response:list_units:1",
        "page:list_units:2",
        "error:list_units:1",
      ]);
      assert.deepEqual(
        events.filter((e) => e.event === "page").map((e) => e["items"]),
        [2, 1],
      );
      assert.equal(new Set(events.map((e) => e["callId"])).size, 1, "one call");
      assert.equal(events.at(-1)?.["errorType"], "paging_stalled");
    } finally {
      await svc.close();
    }
  });

  test("an aborted call ends in an error event of type aborted; a call that never sent reports nothing", async () => {
    const svc = await serve((_req, res) => void setTimeout(() => json(res, 200, {}), 500));
    try {
      const { hooks, events } = recorder();
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, hooks });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("user cancelled")), 50);
      await assert.rejects(core.json(NONE, ANY, get("/slow", { op: "slow" }), { signal: controller.signal }));
      assert.deepEqual(lines(events), ["request:slow:1", "error:slow:1"]);
      assert.equal(events.at(-1)?.["errorType"], "aborted");
      events.length = 0;
      // A path value that cannot be one segment is refused before sending.
      await assert.rejects(core.json(NONE, ANY, { ...get("/units"), segments: ["units", { value: ".." }] }));
      assert.deepEqual(events, []);
    } finally {
      await svc.close();
    }
  });

  test("the request names the base URL's host and port (443 and 80 when it names none; IPv6 without brackets)", async () => {
    const answer = (): Promise<Response> => Promise.resolve(new Response("{}", { status: 200, headers: { "content-type": "application/json" } }));
    for (const [base, address, port] of [
      ["https://api.example.com/v3", "api.example.com", 443],
      ["https://api.example.com:8443/v3", "api.example.com", 8443],
      ["http://[::1]/v3", "::1", 80],
    ] as const) {
      const { hooks, events } = recorder();
      const core = new Core(base, V3, keyAuth(), { ...FAST, hooks, fetch: answer });
      await core.json(NONE, ANY, get("/units/{unit_id}", { op: "get_unit", segments: ["units", { value: "u 1" }] }));
      assert.deepEqual(events[0], {
        event: "request",
        operation: "get_unit",
        callId: 1,
        method: "GET",
        urlTemplate: "/units/{unit_id}",
        attempt: 1,
        serverAddress: address,
        serverPort: port,
      });
    }
  });
});
