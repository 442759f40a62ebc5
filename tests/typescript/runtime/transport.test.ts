// Behaviour tests of the hand-written TypeScript runtime (templates/typescript/runtime/)
// against local node:http servers: credentials and redaction, rate limits and retries,
// redirects, polling and pre-signed URLs. The runtime is imported from the generated
// package's build output, where the generator copies it verbatim.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspect } from "node:util";

import {
  ApiError,
  ConfigError,
  Core,
  ForeignOriginError,
  NotReadyError,
  Secret,
  TimeoutError,
  TransportError,
  type Auth,
  type ClientOptions,
  type RequestSpec,
} from "../../../generated/typescript/dist/runtime/index.js";

import { serve, json, V3, LEGACY, FAST, KEY_SECRET, keyAuth, get, ANY, NONE, assertNoSecret } from "./service.js";

// ---------------------------------------------------------------- auth and redaction

describe("credentials", () => {
  test("header credentials are sent, and never shown by String, JSON.stringify or util.inspect", async () => {
    const svc = await serve((req, res) => {
      if (req.headers["api-key-secret"] !== KEY_SECRET) return json(res, 401, { errors: "bad key" });
      if (req.url.startsWith("/v3/units")) return json(res, 200, { id: "u1" });
      return json(res, 403, { errors: "Forbidden" });
    }, "/v3");
    try {
      const auth = keyAuth();
      const options: ClientOptions = { ...FAST, userAgent: "tests" };
      const core = new Core(svc.base, V3, auth, options);
      assert.deepEqual(await core.json(NONE, ANY, get("/units")), { id: "u1" });
      const sent = svc.seen[0];
      assert.ok(sent);
      assert.equal(sent.headers["api-key-id"], "demo-key");
      assert.equal(sent.headers["api-key-secret"], KEY_SECRET);
      assert.equal(sent.headers["accept"], "application/json");
      assert.equal(sent.headers["user-agent"], "tests");

      const error = await core
        .json(NONE, ANY, get("/forms", { hint: "only users with the manager role may call it" }))
        .catch((e: unknown) => e);
      assert.ok(error instanceof ApiError);
      assert.equal(error.message, "GET /forms answered 403: Forbidden (only users with the manager role may call it)");

      const secret = new Secret(KEY_SECRET);
      assert.equal(secret.expose(), KEY_SECRET);
      for (const [what, value] of Object.entries({ core, auth, options, error, secret })) {
        assertNoSecret(String(value), `String(${what})`);
        assertNoSecret(JSON.stringify(value) ?? "", `JSON.stringify(${what})`);
        assertNoSecret(inspect(value, { depth: 10, showHidden: true }), `inspect(${what})`);
      }
      assert.equal(String(secret), "Secret(<redacted>)");
      assert.equal(JSON.stringify({ s: secret }), '{"s":"Secret(<redacted>)"}');
      assert.equal(inspect(secret), "Secret(<redacted>)");
    } finally {
      await svc.close();
    }
  });

  test("a Secret in a request body is sent as its value, and only there", async () => {
    const svc = await serve((req, res) => json(res, 200, JSON.parse(req.body) as unknown));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const spec: RequestSpec = { ...get("/login"), method: "POST", body: { username: "u", password: new Secret("hunter2") } };
      await core.json(NONE, ANY, spec);
      assert.equal(svc.seen[0]?.body, '{"username":"u","password":"hunter2"}');
      assertNoSecret(inspect(spec, { depth: 10 }), "inspect(request)");
      assertNoSecret(JSON.stringify(spec), "JSON.stringify(request)");
    } finally {
      await svc.close();
    }
  });

  test("the base URL must be https, except on loopback; no credentials in it", () => {
    assert.throws(() => new Core("http://example.com/v3", V3, { kind: "none" }), ConfigError);
    assert.throws(() => new Core("ftp://127.0.0.1/v3", V3, { kind: "none" }), ConfigError);
    assert.throws(() => new Core("not a url", V3, { kind: "none" }), ConfigError);
    assert.throws(() => new Core("https://user:pw@example.com/v3", V3, { kind: "none" }), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.ok(!e.message.includes("pw"), e.message);
      return true;
    });
    for (const ok of ["https://example.com/v3", "http://127.0.0.1:8080/v3", "http://localhost/v3", "http://[::1]:9/v3"]) {
      assert.equal(new Core(ok, V3, { kind: "none" }).validateRequests, true);
    }
  });

  test("token login: lazy, anonymous, renewed once on a 401 (one login for concurrent 401s)", async () => {
    let issued = 0;
    let valid = new Set<string>();
    const svc = await serve((req, res) => {
      if (req.url === "/api/users/authenticate") {
        assert.equal(req.headers["authorization"], undefined, "the login is sent anonymous");
        assert.equal(req.headers["accept"], "application/json; version=1");
        const body = JSON.parse(req.body) as { password: string };
        if (body.password !== "hunter2") return json(res, 401, { errors: "wrong password" });
        issued += 1;
        const token = `tok-${issued}`;
        valid.add(token);
        return json(res, 200, { auth_token: token });
      }
      const token = (req.headers["authorization"] ?? "").replace(/^Token /, "");
      if (!valid.has(token)) return json(res, 401, { errors: "token expired" });
      setTimeout(() => json(res, 200, { ok: token }), 20);
    });
    try {
      const password = new Secret("hunter2");
      const tokenAuth: Auth = {
        kind: "token",
        header: "Authorization",
        scheme: "Token",
        login: async (core) => {
          const answer = await core.json<{ auth_token: string }>(
            { Login: { k: "object", fields: [{ name: "auth_token", d: { k: "string" }, req: true, nul: false }] } },
            { k: "ref", name: "Login" },
            { ...get("/api/users/authenticate"), method: "POST", anonymous: true, body: { username: "u", password } },
          );
          return new Secret(answer.auth_token);
        },
      };
      const core = new Core(svc.base, LEGACY, tokenAuth, FAST);
      assert.equal(svc.seen.length, 0, "no login before the first request");
      assert.deepEqual(await core.json(NONE, ANY, get("/api/assets")), { ok: "tok-1" });
      assert.equal(issued, 1);

      // The token expires; two concurrent calls both meet a 401, one login serves both.
      valid = new Set();
      const both = await Promise.all([core.json(NONE, ANY, get("/api/assets")), core.json(NONE, ANY, get("/api/users"))]);
      assert.deepEqual(both, [{ ok: "tok-2" }, { ok: "tok-2" }]);
      assert.equal(issued, 2);

      // A 401 that survives the new login is reported, not looped on.
      const always401 = await serve((req, res) =>
        req.url.endsWith("authenticate") ? json(res, 200, { auth_token: "tok-x" }) : json(res, 401, { errors: "no" }),
      );
      try {
        const other = new Core(always401.base, LEGACY, tokenAuth, FAST);
        const error = await other.json(NONE, ANY, get("/api/assets")).catch((e: unknown) => e);
        assert.ok(error instanceof ApiError && error.status === 401, String(error));
        assert.equal(always401.seen.filter((s) => s.url === "/api/assets").length, 2);
        for (const text of [String(error), inspect(error), JSON.stringify(error), inspect(other), inspect(tokenAuth)]) {
          assertNoSecret(text, "token client");
        }
      } finally {
        await always401.close();
      }
    } finally {
      await svc.close();
    }
  });
});

// ---------------------------------------------------------------- rate limits and retries

describe("rate limits and retries", () => {
  test("a 429 waits out Retry-After (1 s), pauses every request of the core, then succeeds", async () => {
    let refused = false;
    const svc = await serve((req, res) => {
      if (req.url === "/a" && !refused) {
        refused = true;
        return json(res, 429, { errors: "Too many requests" }, { "retry-after": "1" });
      }
      return json(res, 200, { url: req.url });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const started = Date.now();
      const first = core.json(NONE, ANY, get("/a"));
      await new Promise((r) => setTimeout(r, 150));
      const second = core.json(NONE, ANY, get("/b"));
      assert.deepEqual(await Promise.all([first, second]), [{ url: "/a" }, { url: "/b" }]);
      const [refusal, ...rest] = svc.seen;
      assert.ok(refusal);
      assert.equal(rest.length, 2);
      for (const later of rest) {
        assert.ok(later.at - refusal.at >= 950, `${later.url} went ${later.at - refusal.at} ms after the 429`);
      }
      assert.ok(Date.now() - started < 3000);
    } finally {
      await svc.close();
    }
  });

  test("a Retry-After longer than the longest backoff fails at once, carrying it", async () => {
    const svc = await serve((_req, res) => json(res, 429, { errors: "slow down" }, { "retry-after": "60" }));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const error = await core.json(NONE, ANY, get("/a")).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 60_000);
      assert.equal(error.message, "GET /a answered 429: slow down (retry after 60 s)");
      assert.equal(svc.seen.length, 1);
    } finally {
      await svc.close();
    }
  });

  test("a POST is not retried after a 500, a GET is", async () => {
    let failures = 0;
    const svc = await serve((req, res) => {
      if (req.method === "POST") return json(res, 500, { errors: "boom" });
      failures += 1;
      return failures <= 2 ? json(res, 503, "") : json(res, 200, { ok: true });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const error = await core.json(NONE, ANY, { ...get("/units"), method: "POST", body: {} }).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError && error.status === 500);
      assert.equal(error.serviceMessage, "boom");
      assert.equal(svc.seen.length, 1);
      assert.deepEqual(await core.json(NONE, ANY, get("/units")), { ok: true });
      assert.equal(svc.seen.length, 4);
    } finally {
      await svc.close();
    }
  });

  test("timeouts: a GET is retried and then fails with TimeoutError; a POST is tried once", async () => {
    const svc = await serve((_req, res) => void setTimeout(() => json(res, 200, {}), 400));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, retry: { maxAttempts: 2, initialBackoffMs: 1 }, timeoutMs: 100 });
      const error = await core.json(NONE, ANY, get("/slow")).catch((e: unknown) => e);
      assert.ok(error instanceof TimeoutError && error instanceof TransportError, String(error));
      assert.equal(error.message, "GET /slow timed out after 100 ms");
      assert.equal(svc.seen.length, 2);
      const post = await core.json(NONE, ANY, { ...get("/slow"), method: "POST", body: {} }).catch((e: unknown) => e);
      assert.ok(post instanceof TimeoutError);
      assert.equal(svc.seen.length, 3);
      // A per-call timeout wins over the client's.
      assert.deepEqual(await core.json(NONE, ANY, get("/slow"), { timeoutMs: 2000 }), {});
    } finally {
      await svc.close();
    }
  });

  test("the caller's abort rejects with its reason and is not retried", async () => {
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    // Aborted once the service has the request (a timer from the start raced a loaded
    // machine's first connection, and the request was never seen).
    const svc = await serve((_req, res) => {
      setTimeout(() => controller.abort(reason), 20);
      setTimeout(() => json(res, 200, {}), 500);
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      await assert.rejects(core.json(NONE, ANY, get("/slow"), { signal: controller.signal }), (e: unknown) => e === reason);
      assert.equal(svc.seen.length, 1);
    } finally {
      await svc.close();
    }
  });

  test("a refused connection is retried for any method, then reported", async () => {
    const svc = await serve((_req, res) => json(res, 200, {}));
    const base = svc.base;
    await svc.close();
    const core = new Core(base, V3, { kind: "none" }, FAST);
    const started = Date.now();
    const error = await core.json(NONE, ANY, { ...get("/units"), method: "POST", body: {} }).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError && !(error instanceof TimeoutError), String(error));
    assert.match(error.message, /^transport error on POST \/units: cannot connect/);
    assert.ok(Date.now() - started >= 5, "retried with backoff");
  });

  test("pacing keeps every window under the limit", async () => {
    const svc = await serve((_req, res) => json(res, 200, {}));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { rateLimit: { requests: 3, windowSeconds: 0.3 } });
      await Promise.all(Array.from({ length: 7 }, () => core.json(NONE, ANY, get("/x"))));
      const times = svc.seen.map((s) => s.at).sort((a, b) => a - b);
      // Stamped as the server in this same process gets to each request: on a busy
      // machine an early one is stamped late, so a window can look up to ~50 ms short.
      // A pacer that did not pace would put the 4th request within a few ms of the 1st.
      for (let i = 3; i < times.length; i++) {
        assert.ok((times[i] ?? 0) - (times[i - 3] ?? 0) >= 250, `4 requests within ${(times[i] ?? 0) - (times[i - 3] ?? 0)} ms`);
      }
    } finally {
      await svc.close();
    }
  });
});

// ---------------------------------------------------------------- redirects, polling, pre-signed URLs

describe("redirects, polling and pre-signed URLs", () => {
  test("same-origin redirects are followed with credentials; another origin is refused", async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, { stolen: true }));
    const svc = await serve((req, res) => {
      if (req.url === "/v3/old") return void res.writeHead(301, { location: "/v3/new" }).end();
      if (req.url === "/v3/away") return void res.writeHead(302, { location: `${elsewhere.origin}/grab` }).end();
      return json(res, 200, { at: req.url, key: req.headers["api-key-secret"] === KEY_SECRET });
    }, "/v3");
    try {
      const core = new Core(svc.base, V3, keyAuth(), FAST);
      assert.deepEqual(await core.json(NONE, ANY, get("/old")), { at: "/v3/new", key: true });
      const error = await core.json(NONE, ANY, get("/away")).catch((e: unknown) => e);
      assert.ok(error instanceof ForeignOriginError, String(error));
      assert.equal(error.origin, elsewhere.origin);
      assert.equal(elsewhere.seen.length, 0);
    } finally {
      await svc.close();
      await elsewhere.close();
    }
  });

  test("a 202 is polled until ready; past maxPolls it is NotReadyError", async () => {
    let renders = 0;
    const svc = await serve((req, res) => {
      if (req.url === "/never") return json(res, 202, {});
      renders += 1;
      if (renders <= 2) return json(res, 202, {});
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end("%PDF-1.7");
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, maxPolls: 3, pollIntervalMs: 10 });
      const pdf = await core.bytes(get("/pdf", { accept: "application/pdf", poll: true }));
      assert.equal(new TextDecoder().decode(pdf), "%PDF-1.7");
      assert.equal(svc.seen.length, 3);
      assert.equal(svc.seen[0]?.headers["accept"], "application/pdf");
      const error = await core.bytes(get("/never", { poll: true })).catch((e: unknown) => e);
      assert.ok(error instanceof NotReadyError, String(error));
      assert.equal(error.attempts, 4);
      assert.equal(svc.seen.filter((s) => s.url === "/never").length, 4);
    } finally {
      await svc.close();
    }
  });

  test("pre-signed URLs get no credentials and no default headers; errors hide the signature", async () => {
    let flaky = 0;
    const storage = await serve((req, res) => {
      if (req.url.startsWith("/denied")) return json(res, 403, { errors: "expired" });
      if (req.method === "PUT") {
        if (req.url.startsWith("/part2") && flaky++ === 0) return json(res, 500, {});
        res.writeHead(200, { etag: `"etag-${req.url.slice(1, 6)}-${req.body.length}"` });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end("shared");
    });
    try {
      const core = new Core("http://127.0.0.1:9/v3", LEGACY, keyAuth(), FAST);
      const bytes = await core.fetchPresigned(`${storage.origin}/share/abc?X-Signature=sig123`);
      assert.equal(new TextDecoder().decode(bytes), "shared");
      const got = storage.seen[0];
      assert.ok(got);
      assert.equal(got.headers["api-key-secret"], undefined);
      assert.equal(got.headers["api-key-id"], undefined);
      assert.notEqual(got.headers["accept"], "application/json; version=1");

      const error = await core.fetchPresigned(`${storage.origin}/denied/x?X-Signature=sig123`).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError && error.status === 403);
      assert.ok(!error.message.includes("sig123"), error.message);
      assert.equal(error.message, `GET ${storage.origin}/denied/x answered 403: expired`);

      assert.deepEqual(await core.putPresigned(`${storage.origin}/put1?sig=1`, new Uint8Array([1, 2, 3]), "image/png"), {
        etag: '"etag-put1?-3"',
      });
      const put = storage.seen.at(-1);
      assert.equal(put?.headers["content-type"], "image/png");
      assert.equal(put?.headers["api-key-secret"], undefined);

      const parts = [new Uint8Array(1), new Uint8Array(2), new Uint8Array(3)];
      const urls = ["part1", "part2", "part3"].map((p) => `${storage.origin}/${p}?sig=x`);
      assert.deepEqual(await core.putParts(urls, parts, undefined, 2), ['"etag-part1-1"', '"etag-part2-2"', '"etag-part3-3"']);
      assert.equal(flaky, 2, "the failed part was retried");

      await assert.rejects(core.fetchPresigned("http://example.com/x?sig=1"), ConfigError);
    } finally {
      await storage.close();
    }
  });
});
