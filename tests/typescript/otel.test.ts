// The OpenTelemetry recipe of docs/typescript.md ("Observability"; examples/otel.ts, which the
// document quotes word for word) through the real OpenTelemetry SDK, against the sandbox
// with injected faults: one client span per attempt, with the HTTP semantic conventions'
// attributes, and no secret in any of them.

import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Context, type ContextManager } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ApiError, legacy, v3 } from "inspection-client";

import { tracingHooks } from "./examples/otel.js";
import { isObject } from "./conformance/json.js";
import { ROOT } from "./conformance/files.js";
import { control, sandboxFor } from "./conformance/sandbox.js";

const KEY_SECRET = "demo-secret";
const PASSWORD = "user-pass";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("inspection-client-tests");
after(() => provider.shutdown());

/** A span as the test compares it: name, kind, status, attributes. */
function shown(span: ReadableSpan): { name: string; kind: SpanKind; error: boolean; attributes: Record<string, unknown> } {
  return { name: span.name, kind: span.kind, error: span.status.code === SpanStatusCode.ERROR, attributes: { ...span.attributes } };
}

/** Fails when any attribute of any span holds one of `secrets`. */
function assertNoSecret(spans: readonly ReadableSpan[], secrets: readonly string[]): void {
  for (const span of spans) {
    for (const [name, value] of Object.entries(span.attributes)) {
      for (const secret of secrets) assert.ok(!String(value).includes(secret), `${span.name}: ${name} holds ${secret}`);
    }
    for (const secret of secrets) assert.ok(!span.name.includes(secret), `a span's name holds ${secret}`);
  }
}

test("docs/typescript.md quotes the recipe word for word", () => {
  const doc = readFileSync(join(ROOT, "docs", "typescript.md"), "utf8");
  const recipe = readFileSync(join(ROOT, "tests", "typescript", "examples", "otel.ts"), "utf8");
  assert.ok(doc.includes(`\`\`\`ts\n${recipe}\`\`\``), "docs/typescript.md must quote tests/typescript/examples/otel.ts exactly");
});

test("the recipe makes one client span per attempt: retried 503, timed-out attempt, 404", async () => {
  const sandbox = await sandboxFor({ args: ["--rate-limit", "off"], proxy: false });
  await control(sandbox, "POST", "/_sandbox/reset");
  await control(sandbox, "POST", "/_sandbox/script", [
    { method: "GET", path: "/v3/units/unt_001", status: 503, body: { errors: "Service unavailable" } },
    { method: "GET", path: "/v3/units/unt_002", body: {}, delay_ms: 1000 },
  ]);
  exporter.reset();
  const client = new v3.Client(`${sandbox.origin}/v3`, new v3.ApiKey("demo-key", KEY_SECRET), {
    rateLimit: null,
    retry: { initialBackoffMs: 10 },
    timeoutMs: 300,
    hooks: tracingHooks(tracer),
  });
  assert.equal((await client.getUnit(v3.UnitId("unt_001"))).id, "unt_001");
  assert.equal((await client.getUnit(v3.UnitId("unt_002"))).id, "unt_002");
  const missing = await client.getUnit(v3.UnitId("unt_404")).catch((e: unknown) => e);
  assert.ok(missing instanceof ApiError && missing.status === 404, String(missing));

  const port = Number(new URL(sandbox.origin).port);
  const base = {
    "http.request.method": "GET",
    "url.template": "/units/{unit_id}",
    "server.address": "127.0.0.1",
    "server.port": port,
  };
  const name = "GET /units/{unit_id}";
  const spans = exporter.getFinishedSpans();
  assert.deepEqual(spans.map(shown), [
    { name, kind: SpanKind.CLIENT, error: true, attributes: { ...base, "http.response.status_code": 503, "error.type": "503" } },
    { name, kind: SpanKind.CLIENT, error: false, attributes: { ...base, "http.request.resend_count": 1, "http.response.status_code": 200 } },
    { name, kind: SpanKind.CLIENT, error: true, attributes: { ...base, "error.type": "timeout" } },
    { name, kind: SpanKind.CLIENT, error: false, attributes: { ...base, "http.request.resend_count": 1, "http.response.status_code": 200 } },
    { name, kind: SpanKind.CLIENT, error: true, attributes: { ...base, "http.response.status_code": 404, "error.type": "404" } },
  ]);
  // The timed-out attempt lasted about its timeout; none holds the key or an id.
  const timedOut = spans[2];
  assert.ok(timedOut !== undefined && timedOut.duration[0] * 1000 + timedOut.duration[1] / 1e6 >= 250);
  assertNoSecret(spans, [KEY_SECRET, "unt_001", "unt_002", "unt_404"]);
  assert.deepEqual(await control(sandbox, "GET", "/_sandbox/script"), { pending: 0 });
});

test("the recipe around a token login and a re-login: no password or token in any span", async () => {
  const sandbox = await sandboxFor({ args: ["--rate-limit", "off"], proxy: false });
  await control(sandbox, "POST", "/_sandbox/reset");
  exporter.reset();
  const options = { rateLimit: null, retry: { initialBackoffMs: 10 }, hooks: tracingHooks(tracer) };
  const client = await legacy.Client.login(sandbox.origin, { user: { username: "user@example.com", password: PASSWORD } }, options);
  await control(sandbox, "POST", "/_sandbox/legacy/revoke_tokens");
  await control(sandbox, "DELETE", "/_sandbox/requests");
  await client.listLocations().first();
  // The tokens the client sent, as the sandbox recorded them.
  const recorded = await control(sandbox, "GET", "/_sandbox/requests");
  assert.ok(Array.isArray(recorded));
  const tokens = recorded
    .filter(isObject)
    .map((r) => (isObject(r["headers"] ?? null) ? String((r["headers"] as Record<string, unknown>)["authorization"] ?? "") : ""))
    .map((h) => h.replace(/^Token /, ""))
    .filter((t) => t.length >= 4);
  assert.equal(tokens.length, 2, "the revoked token and the new one");

  const spans = exporter.getFinishedSpans();
  assert.deepEqual(
    spans.map((s) => [s.name, s.attributes["http.response.status_code"], s.attributes["http.request.resend_count"]]),
    [
      ["POST /api/users/authenticate", 200, undefined],
      ["GET /api/locations", 401, undefined],
      ["POST /api/users/authenticate", 200, undefined],
      ["GET /api/locations", 200, 1],
    ],
  );
  assertNoSecret(spans, [PASSWORD, ...tokens]);
});

/** The smallest context manager on Node's AsyncLocalStorage (what the Node SDK registers). */
class LocalContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

test("with a context manager, the attempt spans nest under the span active where the call was made", async () => {
  const sandbox = await sandboxFor({ args: ["--rate-limit", "off"], proxy: false });
  await control(sandbox, "POST", "/_sandbox/reset");
  await control(sandbox, "POST", "/_sandbox/script", [{ method: "GET", path: "/v3/units/unt_003", status: 503 }]);
  exporter.reset();
  assert.ok(context.setGlobalContextManager(new LocalContextManager()), "no other context manager is registered");
  try {
    const client = new v3.Client(`${sandbox.origin}/v3`, new v3.ApiKey("demo-key", KEY_SECRET), {
      rateLimit: null,
      retry: { initialBackoffMs: 10 },
      hooks: tracingHooks(tracer),
    });
    const parent = tracer.startSpan("nightly sync");
    await context.with(trace.setSpan(context.active(), parent), () => client.getUnit(v3.UnitId("unt_003")));
    parent.end();
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(spans.map((s) => s.name), ["GET /units/{unit_id}", "GET /units/{unit_id}", "nightly sync"]);
    const id = parent.spanContext();
    for (const span of spans.slice(0, 2)) {
      assert.equal(span.parentSpanContext?.spanId, id.spanId);
      assert.equal(span.spanContext().traceId, id.traceId);
    }
  } finally {
    context.disable();
  }
});
