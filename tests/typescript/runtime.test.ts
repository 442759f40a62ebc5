// Behaviour tests of the hand-written TypeScript runtime (templates/typescript/runtime/),
// run against local node:http servers. The runtime is imported from the generated
// package's build output, where the generator copies it verbatim.
//
//   cd tests/typescript && npm ci && npm test
//
// (`npm test` compiles this file next to itself and runs it with node:test; the generated
// package must have been built to generated/typescript/dist first.)

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { inspect } from "node:util";

import {
  ApiError,
  ConfigError,
  Core,
  DecodeError,
  ForeignOriginError,
  InspectionError,
  InterruptedError,
  NotReadyError,
  PagingStalledError,
  Resume,
  Secret,
  TimeoutError,
  TooLargeError,
  TransportError,
  ValidationError,
  WebhookError,
  decode,
  isUnknownMember,
  queryEntries,
  secretsAt,
  validate,
  verifyWebhook,
  withAdditional,
  type Auth,
  type ClientOptions,
  type Desc,
  type InterfaceInfo,
  type PagingPlan,
  type Registry,
  type RequestSpec,
  type Violation,
} from "../../generated/typescript/dist/runtime/index.js";
import type { NewUnit } from "../../generated/typescript/dist/v3/models.js";

// ---------------------------------------------------------------- a local service

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>;

interface Service {
  base: string;
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function serve(handler: Handler, prefix = ""): Promise<Service> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      seen.push(entry);
      Promise.resolve(handler(entry, res)).catch((e: unknown) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    base: `${origin}${prefix}`,
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const V3: InterfaceInfo = {
  name: "v3",
  rateLimit: { requests: 100, windowSeconds: 10, status: 429, retryAfterHeader: "Retry-After" },
  errorMessageField: "errors",
  defaultHeaders: {},
};

const LEGACY: InterfaceInfo = {
  name: "legacy",
  errorMessageField: "errors",
  defaultHeaders: { accept: "application/json; version=1" },
};

const FAST: ClientOptions = { rateLimit: null, retry: { maxAttempts: 3, initialBackoffMs: 5, maxBackoffMs: 2000 } };

const KEY_SECRET = "s3cr3t-key-value";

function keyAuth(): Auth {
  return {
    kind: "headers",
    headers: [
      { name: "api-key-id", value: "demo-key" },
      { name: "api-key-secret", value: new Secret(KEY_SECRET) },
    ],
  };
}

function get(path: string, extra: Partial<RequestSpec> = {}): RequestSpec {
  return {
    op: `get ${path}`,
    method: "GET",
    path,
    segments: path.split("/").filter((s) => s !== ""),
    ...extra,
  };
}

const ANY: Desc = { k: "json" };
const NONE: Registry = {};

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Every item, then the error the iteration ended with (if any). */
async function collectUntilError<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

function assertNoSecret(text: string, what: string): void {
  assert.ok(!text.includes(KEY_SECRET), `${what} shows the secret: ${text}`);
  assert.ok(!text.includes("tok-"), `${what} shows a token: ${text}`);
  assert.ok(!text.includes("hunter2"), `${what} shows a password: ${text}`);
}

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
    const svc = await serve((_req, res) => void setTimeout(() => json(res, 200, {}), 500));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const controller = new AbortController();
      const reason = new Error("user cancelled");
      setTimeout(() => controller.abort(reason), 50);
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
      for (let i = 3; i < times.length; i++) {
        assert.ok((times[i] ?? 0) - (times[i - 3] ?? 0) >= 295, `4 requests within ${(times[i] ?? 0) - (times[i - 3] ?? 0)} ms`);
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

// ---------------------------------------------------------------- paging

const UNITS: Registry = {
  Unit: {
    k: "object",
    fields: [
      { name: "id", d: { k: "id" }, req: true, nul: false },
      { name: "status", d: { k: "enum", values: ["active", "retired"], open: true }, req: false, nul: false },
    ],
  },
  UnitPage: {
    k: "object",
    fields: [
      { name: "data", d: { k: "array", of: { k: "ref", name: "Unit" } }, req: false, nul: false, fill: "array" },
      {
        name: "paging",
        d: {
          k: "object",
          fields: [
            { name: "next", d: { k: "string" }, req: false, nul: true },
            { name: "cursor", d: { k: "string" }, req: false, nul: true },
          ],
        },
        req: false,
        nul: true,
      },
    ],
  },
};

const CURSOR: PagingPlan = {
  style: "cursor",
  itemsField: "data",
  pagingField: "paging",
  nextUrlField: "next",
  cursorField: "cursor",
  pageParam: "page",
  page: { k: "ref", name: "UnitPage" },
};

const LINKS: PagingPlan = {
  style: "links",
  itemsField: "assets",
  linksField: "links",
  page: { k: "json" },
};

describe("paging", () => {
  test("cursor style follows next URLs over 3 pages", async () => {
    const svc = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const page = url.searchParams.get("page") ?? "1";
      const next = page === "3" ? null : `http://127.0.0.1:${(res.socket?.localPort ?? 0).toString()}/v3/units?page=${Number(page) + 1}&per_page=2`;
      // Ids as numbers: decoded to strings through the envelope.
      return json(res, 200, { data: [{ id: Number(page) * 10 }, { id: `${page}b`, status: "new_status" }], paging: { next } });
    }, "/v3");
    try {
      const core = new Core(svc.base, V3, keyAuth(), FAST);
      const list = core.paged<{ id: string; status?: string }, unknown>(UNITS, CURSOR, get("/units", { query: [["per_page", "2"]] }));
      const items = await collect(list);
      assert.deepEqual(items.map((u) => u.id), ["10", "1b", "20", "2b", "30", "3b"]);
      assert.equal(items[1]?.status, "new_status", "unknown enum values are kept");
      assert.deepEqual(svc.seen.map((s) => s.url), ["/v3/units?per_page=2", "/v3/units?page=2&per_page=2", "/v3/units?page=3&per_page=2"]);
      assert.ok(svc.seen.every((s) => s.headers["api-key-secret"] === KEY_SECRET));
      assert.equal((await collect(list.pages())).length, 3);
      assert.deepEqual(await list.first(), { data: [{ id: "10" }, { id: "1b", status: "new_status" }], paging: { next: `${svc.origin}/v3/units?page=2&per_page=2` } });
      assert.throws(() => list.backward(), ConfigError);
    } finally {
      await svc.close();
    }
  });

  test("cursor style sends a raw cursor back as the page parameter, replacing the old one", async () => {
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.getAll("page");
      const at = page.at(-1) ?? "start";
      const cursor = { start: "c2", c2: "c3", c3: null }[at] ?? null;
      return json(res, 200, { data: [{ id: at }], paging: { cursor } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const req = get("/units", { query: [["page", "start"], ["referenceNumber", "A 1"], ["skip", undefined]] });
      const items = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req));
      assert.deepEqual(items.map((u) => u.id), ["start", "c2", "c3"]);
      assert.deepEqual(svc.seen.map((s) => s.url), [
        "/units?page=start&referenceNumber=A+1",
        "/units?referenceNumber=A+1&page=c2",
        "/units?referenceNumber=A+1&page=c3",
      ]);
    } finally {
      await svc.close();
    }
  });

  test("links style goes forward through next and back through prev (relative and absolute links)", async () => {
    const all = [1, 2, 3, 4, 5, 6];
    let origin = "";
    const svc = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const after = url.searchParams.get("after_id");
      const before = url.searchParams.get("before_id");
      let page: number[];
      if (after !== null) page = all.filter((i) => i > Number(after)).slice(0, 2);
      else if (before !== null) page = all.filter((i) => i < Number(before)).slice(-2);
      else page = all.slice(0, 2);
      const first = page[0];
      const last = page.at(-1);
      const links = {
        next: last === undefined || last === 6 ? null : `/api/assets?after_id=${last}`,
        prev: first === undefined || first === 1 ? null : `${origin}/api/assets?before_id=${first}`,
      };
      return json(res, 200, { assets: page.map((id) => ({ id })), links });
    });
    origin = svc.origin;
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const forward = await collect(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(forward.map((a) => a.id), [1, 2, 3, 4, 5, 6]);
      const back = core.paged<{ id: number }, { assets: unknown[] }>(NONE, LINKS, get("/api/assets", { query: [["before_id", "7"]] }));
      assert.deepEqual((await collect(back.backward())).map((a) => a.id), [5, 6, 3, 4, 1, 2]);
      assert.equal((await collect(back.pagesBackward())).length, 3);
      assert.ok(svc.seen.every((s) => s.headers["accept"] === "application/json; version=1"));
    } finally {
      await svc.close();
    }
  });

  test("a next link to another origin is refused after the page's items", async () => {
    const elsewhere = await serve((_req, res) => json(res, 200, { assets: [{ id: 99 }], links: {} }));
    const svc = await serve((_req, res) => json(res, 200, { assets: [{ id: 1 }, { id: 2 }], links: { next: `${elsewhere.origin}/api/assets?after_id=2` } }));
    try {
      const core = new Core(svc.base, LEGACY, keyAuth(), FAST);
      const { items, error } = await collectUntilError(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1, 2]);
      assert.ok(error instanceof ForeignOriginError, String(error));
      assert.equal(error.what, "a next-page link");
      assert.equal(elsewhere.seen.length, 0);
    } finally {
      await svc.close();
      await elsewhere.close();
    }
  });

  test("a link seen before stops with PagingStalledError after that page's items", async () => {
    const svc = await serve((req, res) => {
      const second = req.url.includes("after_id");
      return json(res, 200, { assets: second ? [{ id: 3 }] : [{ id: 1 }, { id: 2 }], links: { next: "/api/assets?after_id=2" } });
    });
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const { items, error } = await collectUntilError(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1, 2, 3]);
      assert.ok(error instanceof PagingStalledError, String(error));
      assert.equal(svc.seen.length, 2);
    } finally {
      await svc.close();
    }
  });

  test("an empty page of links ends the walk even with a next link", async () => {
    const svc = await serve((req, res) =>
      json(res, 200, { assets: req.url.includes("after_id") ? [] : [{ id: 1 }], links: { next: "/api/assets?after_id=1" } }),
    );
    try {
      const core = new Core(svc.base, LEGACY, { kind: "none" }, FAST);
      const items = await collect(core.paged<{ id: number }, unknown>(NONE, LINKS, get("/api/assets")));
      assert.deepEqual(items.map((a) => a.id), [1]);
      assert.equal(svc.seen.length, 2);
    } finally {
      await svc.close();
    }
  });

  test("cursor paging goes on through empty pages, up to maxEmptyPages in a row, then stalls", async () => {
    let cursors = 0;
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.get("page");
      // Two empty pages, a full one, then empty pages that always point on.
      if (page === null) return json(res, 200, { data: [], paging: { cursor: "e1" } });
      if (page === "e1") return json(res, 200, { data: [], paging: { cursor: "e2" } });
      if (page === "e2") return json(res, 200, { data: [{ id: "a" }], paging: { cursor: "c0" } });
      cursors += 1;
      return json(res, 200, { data: [], paging: { cursor: `c${cursors}` } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, maxEmptyPages: 3 });
      const { items, error } = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, CURSOR, get("/units")));
      assert.deepEqual(items.map((u) => u.id), ["a"]);
      assert.ok(error instanceof PagingStalledError, String(error));
      assert.match(error.message, /4 empty pages in a row/);
      // 3 pages up to the record, then 4 empty ones: the 4th is one too many.
      assert.equal(svc.seen.length, 7);
    } finally {
      await svc.close();
    }
  });

  test("a page past the start that fails names its resume point; the walk resumes there", async () => {
    let failing = true;
    const svc = await serve((req, res) => {
      const page = new URL(req.url, "http://x").searchParams.get("page");
      if (page === null) return json(res, 200, { data: [{ id: "a" }], paging: { cursor: "c2" } });
      if (page === "c2" && failing) return json(res, 503, { errors: "try later" });
      if (page === "c2") return json(res, 200, { data: [{ id: "b" }], paging: { next: `${svc.origin}/units?page=c3` } });
      if (page === "c3" && failing) return json(res, 503, { errors: "try later" });
      return json(res, 200, { data: [{ id: "c" }], paging: { next: null } });
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, retry: { maxAttempts: 1 } });
      const req = get("/units", { query: [["per_page", "1"]] });
      const first = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req));
      assert.deepEqual(first.items.map((u) => u.id), ["a"]);
      assert.ok(first.error instanceof InterruptedError, String(first.error));
      assert.ok(first.error.cause instanceof ApiError && first.error.cause.status === 503);
      assert.equal(String(first.error.resume), "cursor:c2");
      assert.match(first.error.message, /answered 503: try later \(the walk can resume at this page: cursor:c2\)$/);
      // Its first request fails alike, with the same resume point; a fresh walk's would not.
      const again = await core.paged(UNITS, CURSOR, req, { resume: first.error.resume }).first().catch((e: unknown) => e);
      assert.ok(again instanceof InterruptedError && String(again.resume) === "cursor:c2", String(again));
      failing = false;
      const seen = svc.seen.length;
      const rest = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req, { resume: "cursor:c2" }));
      assert.deepEqual(rest.map((u) => u.id), ["b", "c"]);
      assert.deepEqual(svc.seen.slice(seen).map((s) => s.url), ["/units?per_page=1&page=c2", "/units?page=c3"]);
      // A link resumes as it is, on the base URL's origin only.
      const byLink = await collect(core.paged<{ id: string }, unknown>(UNITS, CURSOR, req, { resume: Resume.link(`${svc.origin}/units?page=c3`) }));
      assert.deepEqual(byLink.map((u) => u.id), ["c"]);
      assert.throws(() => core.paged(UNITS, CURSOR, req, { resume: "link:http://127.0.0.2:9/units?page=c3" }), ForeignOriginError);
      assert.throws(() => core.paged(UNITS, CURSOR, req, { resume: "page 3" }), ConfigError);
      assert.throws(() => core.paged(NONE, LINKS, get("/api/assets"), { resume: "cursor:c2" }), ConfigError);
    } finally {
      await svc.close();
    }
  });

  // The paging rule of a cursor page with records but neither a next link nor a cursor.
  const SIZED: PagingPlan = { ...CURSOR, pageSizeField: "per_page", perPageParam: "per_page" };

  /** A walk over `pages` (answered in turn) with `SIZED`, asking for `perPage` records a page. */
  async function walkOver(pages: unknown[], perPage?: string): Promise<{ items: string[]; error: unknown; requests: number }> {
    const svc = await serve((_req, res) => json(res, 200, pages.shift()));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const req = get("/units", perPage === undefined ? {} : { query: [["per_page", perPage]] });
      const { items, error } = await collectUntilError(core.paged<{ id: string }, unknown>(UNITS, SIZED, req));
      return { items: items.map((u) => u.id), error, requests: svc.seen.length };
    } finally {
      await svc.close();
    }
  }

  test("a full cursor page with no way on fails after yielding its records, saying what it held", async () => {
    const full = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging: { per_page: 2, total: 9 } }], "2");
    assert.deepEqual(full.items, ["a", "b"]);
    assert.ok(full.error instanceof PagingStalledError, String(full.error));
    assert.equal(full.error.operation, "GET /units");
    assert.match(full.error.reason, /^the page held 2 records and `paging` \{per_page, total\}, but no next link, no cursor/);
    // No size anywhere: the page may be full, so the walk cannot end quietly either.
    const unsized = await walkOver([{ data: [{ id: "a" }] }]);
    assert.deepEqual(unsized.items, ["a"]);
    assert.ok(unsized.error instanceof PagingStalledError, String(unsized.error));
    assert.match(unsized.error.reason, /held 1 record and no `paging` object/);
    // As many as asked for, and an empty paging object.
    const asked = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging: {} }], "2");
    assert.match(String(asked.error), /held 2 records and an empty `paging` object/);
  });

  test("a cursor page with fewer records than the page size, or a null next link or cursor, is the last", async () => {
    // The echoed size wins over the one asked for.
    assert.deepEqual(await walkOver([{ data: [{ id: "a" }], paging: { per_page: 2 } }], "1"), { items: ["a"], error: undefined, requests: 1 });
    assert.deepEqual(await walkOver([{ data: [{ id: "a" }], paging: {} }], "5"), { items: ["a"], error: undefined, requests: 1 });
    const marked = [{ next: null }, { cursor: null }, { next: null, cursor: "", per_page: 1 }];
    for (const paging of marked) {
      const walk = await walkOver([{ data: [{ id: "a" }, { id: "b" }], paging }], "2");
      assert.deepEqual(walk, { items: ["a", "b"], error: undefined, requests: 1 }, JSON.stringify(paging));
    }
    // An empty page with no way on ends the walk as before.
    assert.deepEqual(await walkOver([{ data: [], paging: { per_page: 2 } }], "2"), { items: [], error: undefined, requests: 1 });
  });
});

// ---------------------------------------------------------------- decoding

const INSPECTIONS: Registry = {
  Inspection: {
    k: "object",
    fields: [
      { name: "id", d: { k: "id" }, req: true, nul: false },
      { name: "completed_at", d: { k: "datetime" }, req: false, nul: true },
      { name: "external_id", d: { k: "string" }, req: false, nul: false },
      { name: "results", d: { k: "array", of: { k: "ref", name: "InspectionResult" } }, req: false, nul: false, fill: "array" },
      { name: "extended", d: { k: "map", of: { k: "int", bits: 64 } }, req: false, nul: false, fill: "map" },
    ],
  },
  InspectionResult: { k: "union", tag: "object", common: [], variants: { checklist: "Checklist", pdf_form: "PdfForm" } },
  Checklist: {
    k: "object",
    fields: [{ name: "data", d: { k: "array", of: { k: "ref", name: "ResultField" } }, req: false, nul: false, fill: "array" }],
  },
  PdfForm: { k: "object", fields: [{ name: "url", d: { k: "string" }, req: true, nul: false }] },
  ResultField: {
    k: "union",
    tag: "type",
    common: [{ name: "label", d: { k: "string" }, req: false, nul: false }],
    variants: { textbox: "ValueField", radio: "ValueField", checkbox: "ItemsField" },
  },
  ValueField: {
    k: "object",
    fields: [{ name: "value", d: { k: "scalar", of: ["string", "integer"] }, req: false, nul: true }],
  },
  ItemsField: {
    k: "object",
    fields: [{ name: "items", d: { k: "array", of: { k: "ref", name: "Item" } }, req: true, nul: false }],
  },
  Item: { k: "object", fields: [{ name: "label", d: { k: "string" }, req: true, nul: false }] },
  InspectionPage: {
    k: "object",
    fields: [{ name: "data", d: { k: "array", of: { k: "ref", name: "Inspection" } }, req: true, nul: false }],
  },
};

describe("decoding", () => {
  test("a bad member names the JSON path and the union members passed through", async () => {
    const body = {
      data: [
        {
          id: "i1",
          results: [
            { object: "pdf_form", url: "https://x/y.pdf" },
            {
              object: "checklist",
              data: [
                { type: "textbox", value: "a" },
                { type: "radio", value: 3 },
                { type: "checkbox", items: [{ label: "ok" }, { label: 5 }] },
              ],
            },
          ],
        },
      ],
    };
    const page: Desc = { k: "ref", name: "InspectionPage" };
    assert.throws(
      () => decode(INSPECTIONS, page, structuredClone(body)),
      (e: unknown) => {
        assert.ok(e instanceof DecodeError && e instanceof InspectionError);
        assert.equal(e.path, "data[0].results[1].data[2].items[1].label");
        assert.equal(e.detail, "object `checklist`: type `checkbox`: expected a string, got number 5");
        assert.equal(
          e.message,
          "cannot decode the value at `data[0].results[1].data[2].items[1].label`: object `checklist`: type `checkbox`: expected a string, got number 5",
        );
        return true;
      },
    );
    const svc = await serve((_req, res) => json(res, 200, body));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, FAST);
      const error = await core.json(INSPECTIONS, page, get("/inspections")).catch((e: unknown) => e);
      assert.ok(error instanceof DecodeError);
      assert.equal(error.status, 200);
      assert.equal(error.path, "data[0].results[1].data[2].items[1].label");
    } finally {
      await svc.close();
    }
  });

  test("missing, null and wrongly typed properties", () => {
    const d: Desc = { k: "ref", name: "Inspection" };
    assert.throws(() => decode(INSPECTIONS, d, {}), (e: unknown) => e instanceof DecodeError && e.path === "id" && e.detail === "is required, but absent");
    assert.throws(() => decode(INSPECTIONS, d, { id: true }), (e: unknown) => e instanceof DecodeError && e.detail === "expected an id (a string), got boolean true");
    assert.throws(() => decode(INSPECTIONS, d, []), (e: unknown) => e instanceof DecodeError && e.path === "" && e.detail === "expected an object, got an array");
    assert.throws(
      () => decode(INSPECTIONS, d, { id: "x", extended: { "a b": 1.5 } }),
      (e: unknown) => e instanceof DecodeError && e.path === 'extended["a b"]' && e.detail === "expected an integer, got number 1.5",
    );
    assert.throws(
      () => decode(INSPECTIONS, d, { id: "x", results: [{ object: "pdf_form" }] }, "data[4]"),
      (e: unknown) => e instanceof DecodeError && e.path === "data[4].results[0].url" && e.detail === "object `pdf_form`: is required, but absent",
    );
    // Absent collections become empty; null where none is documented reads as absent;
    // documented nulls and unknown properties are kept; numeric ids become strings.
    assert.deepEqual(decode(INSPECTIONS, d, { id: 7, completed_at: null, external_id: null, later: { x: 1 } }), {
      id: "7",
      completed_at: null,
      results: [],
      extended: {},
      later: { x: 1 },
    });
    assert.throws(() => decode(INSPECTIONS, d, { id: "x", results: null, extended: null, external_id: 3 }), (e: unknown) => e instanceof DecodeError && e.path === "external_id");
  });

  test("an unknown union member is kept whole and re-serialised byte for byte", () => {
    const text =
      '{"id":"i9","results":[{"object":"video_walkaround","frames":[{"t":0.5,"tags":["a",null]}],"label":"new","nested":{"type":"x"}},' +
      '{"object":"checklist","data":[{"type":"signature_v2","value":{"png":"..."},"required":true},{"type":"textbox","value":"v","extra":[1,2]}]},{"no_tag":1}],"extended":{}}';
    const value = decode(INSPECTIONS, { k: "ref", name: "Inspection" }, JSON.parse(text)) as {
      results: [Record<string, unknown>, { data: Record<string, unknown>[] }, Record<string, unknown>];
    };
    assert.equal(JSON.stringify(value), text);
    assert.equal(isUnknownMember(value.results[0]), true);
    assert.equal(value.results[0]["object"], "video_walkaround");
    assert.equal(isUnknownMember(value.results[1]), false);
    assert.equal(isUnknownMember(value.results[1].data[0]), true);
    assert.equal(isUnknownMember(value.results[1].data[1]), false);
    assert.equal(isUnknownMember(value.results[2]), true, "a member without a tag is kept too");
    assert.deepEqual(Object.keys(value.results[0]), ["object", "frames", "label", "nested"]);
  });

  test("a record envelope reads wrapped or bare, keeping unknown properties either way", () => {
    const reg: Registry = {
      Asset: { k: "object", fields: [{ name: "id", d: { k: "id" }, req: true, nul: false }] },
      AssetResponse: { k: "object", fields: [{ name: "asset", d: { k: "ref", name: "Asset" }, req: true, nul: false }], envelope: "asset" },
    };
    const d: Desc = { k: "ref", name: "AssetResponse" };
    assert.deepEqual(decode(reg, d, { asset: { id: 43, fleet: "north" }, served_by: "b" }), { asset: { id: "43", fleet: "north" }, served_by: "b" });
    assert.deepEqual(decode(reg, d, { id: 43, fleet: "north" }), { asset: { id: "43", fleet: "north" } });
    // Bare, the record's own rules apply; wrapped, a null record is still refused.
    assert.throws(() => decode(reg, d, { name: "x" }), (e: unknown) => e instanceof DecodeError && e.path === "asset.id");
    assert.throws(() => decode(reg, d, { asset: null }), (e: unknown) => e instanceof DecodeError && e.detail === "is required, but null");
    // Without `envelope`, the property is simply required.
    const strict: Registry = { ...reg, AssetResponse: { k: "object", fields: [{ name: "asset", d: { k: "ref", name: "Asset" }, req: true, nul: false }] } };
    assert.throws(() => decode(strict, d, { id: 43 }), (e: unknown) => e instanceof DecodeError && e.path === "asset");
  });

  test("date-times are kept as sent: without an offset, with fractions, or a bare date", () => {
    const d: Desc = {
      k: "object",
      fields: ["a", "b", "c", "d"].map((name) => ({ name, d: { k: "datetime" } as Desc, req: false, nul: false })),
    };
    const sent = { a: "2016-05-23T22:16:43", b: "2016-05-23T22:16:43.123456+02:00", c: "2020-12-21", d: "2016-05-23 22:16:43" };
    assert.deepEqual(decode(NONE, d, { ...sent }), sent);
  });
});

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

// ---------------------------------------------------------------- limits: body sizes, waits, secrets

/** Writes `chunk` to `res` for as long as the client reads; `closed` resolves when it stops. */
function endless(res: ServerResponse, status: number, head: string): { closed: Promise<void>; sent: () => number } {
  res.writeHead(status, { "content-type": "application/json" });
  res.write(head);
  const chunk = Buffer.alloc(16 * 1024, "a");
  let open = true;
  let sent = 0;
  const closed = new Promise<void>((resolve) =>
    res.on("close", () => {
      open = false;
      resolve();
    }),
  );
  const pump = (): void => {
    while (open) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
  };
  pump();
  return { closed, sent: () => sent };
}

/** Resolves with `promise`, or fails the test after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A node `Writable` with a small buffer (so `write` answers `false` and `drain` matters) that keeps the bytes. */
function collector(): { sink: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

describe("limits", () => {
  test("an endless success body is cut at maxResponseBytes: TooLargeError, the connection closed", async () => {
    let stream: ReturnType<typeof endless> | undefined;
    const svc = await serve((req, res) => {
      if (req.url === "/announced") {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 2 ** 20) });
        return void res.write("[");
      }
      stream = endless(res, 200, "[");
    });
    try {
      const limit = 256 * 1024;
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, timeoutMs: 10_000, maxResponseBytes: limit });
      const started = Date.now();
      const error = await core.json(NONE, ANY, get("/units")).catch((e: unknown) => e);
      assert.ok(error instanceof TooLargeError, String(error));
      assert.equal(error.limit, limit);
      assert.equal(error.message, `the answer to GET /units is larger than the client's limit of ${limit} bytes (maxResponseBytes; downloads can be written to a stream instead)`);
      assert.ok(stream !== undefined);
      await within(stream.closed, 2000, "the client closing the endless body");
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
      assert.equal(svc.seen.length, 1, "not retried");
      // A Content-Length over the limit is refused before the body is read.
      const announced = await within(core.bytes(get("/announced")).catch((e: unknown) => e), 2000, "the announced length");
      assert.ok(announced instanceof TooLargeError, String(announced));
    } finally {
      await svc.close();
    }
  });

  test("an endless error body: only its first maxErrorBytes are read for the message", async () => {
    let stream: ReturnType<typeof endless> | undefined;
    const svc = await serve((_req, res) => {
      stream = endless(res, 500, '{"errors":"');
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, retry: { maxAttempts: 1 }, timeoutMs: 10_000, maxErrorBytes: 1000 });
      const started = Date.now();
      const error = await core.empty(get("/units")).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.status, 500);
      // Cut mid-string, the prefix is not JSON: its text, up to 500 characters, is the message.
      assert.equal(error.serviceMessage, `{"errors":"${"a".repeat(489)}`);
      assert.ok(stream !== undefined);
      await within(stream.closed, 2000, "the client closing the endless error body");
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    } finally {
      await svc.close();
    }
  });

  test("a download over the limit is written to a stream, whole; read into memory it is refused", async () => {
    const size = 3 * 2 ** 20 + 17;
    const pdf = Buffer.alloc(size);
    for (let i = 0; i < size; i++) pdf[i] = i % 251;
    let polls = 0;
    const svc = await serve((req, res) => {
      if (req.url.startsWith("/pdf") && polls++ % 2 === 0) return json(res, 202, {});
      res.writeHead(200, { "content-type": "application/pdf" });
      // In pieces, as a large file comes.
      let at = 0;
      const next = (): void => {
        while (at < size) {
          const piece = pdf.subarray(at, at + 64 * 1024);
          at += piece.length;
          if (!res.write(piece)) return void res.once("drain", next);
        }
        res.end();
      };
      next();
    });
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, maxResponseBytes: 2 ** 20, pollIntervalMs: 5 });
      const req = get("/pdf", { accept: "application/pdf", poll: true });
      const refused = await core.bytes(req).catch((e: unknown) => e);
      assert.ok(refused instanceof TooLargeError, String(refused));

      const node = collector();
      assert.equal(await core.download(req, node.sink), size);
      assert.ok(node.bytes().equals(pdf), "a node Writable got every byte, in order");

      const chunks: Uint8Array[] = [];
      const web = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) }, { highWaterMark: 2 });
      assert.equal(await core.fetchPresignedTo(`${svc.origin}/share/x?sig=1`, web), size);
      assert.ok(Buffer.concat(chunks).equals(pdf), "a web WritableStream got every byte, in order");
      await web.close();
      const viaMemory = await core.fetchPresigned(`${svc.origin}/share/x?sig=1`).catch((e: unknown) => e);
      assert.ok(viaMemory instanceof TooLargeError, String(viaMemory));
      assert.equal(viaMemory.operation, `GET ${svc.origin}/share/x`);

      // A sink that fails ends the download with a TransportError saying so.
      const broken = new Writable({ write: (_chunk, _encoding, done) => done(new Error("disk full")) });
      broken.on("error", () => undefined);
      const error = await core.download(req, broken).catch((e: unknown) => e);
      assert.ok(error instanceof TransportError, String(error));
      assert.match(error.message, /cannot write the download: disk full/);
    } finally {
      await svc.close();
    }
  });

  test("a Retry-After of 1e30 seconds is not waited: NotReadyError (202) or ApiError (429) at once", async () => {
    const huge = `1${"0".repeat(30)}`;
    const svc = await serve((req, res) => json(res, req.url === "/busy" ? 429 : 202, {}, { "retry-after": huge }));
    try {
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, retry: { maxBackoffMs: 2000 }, maxPolls: 3 });
      const started = Date.now();
      const error = await core.bytes(get("/pdf", { poll: true })).catch((e: unknown) => e);
      assert.ok(error instanceof NotReadyError, String(error));
      assert.equal(error.attempts, 1);
      assert.ok((error.retryAfterMs ?? 0) >= 1e33, String(error.retryAfterMs));
      assert.match(error.message, /the service asked to wait \d.* s more, longer than the client waits/);
      const busy = await core.json(NONE, ANY, get("/busy")).catch((e: unknown) => e);
      assert.ok(busy instanceof ApiError && busy.status === 429, String(busy));
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.equal(svc.seen.length, 2);
    } finally {
      await svc.close();
    }
  });

  test("waits over 2^31 ms are waited, not cut short: timeouts, polling intervals and pacing windows", async () => {
    const svc = await serve((req, res) => {
      if (req.url === "/slow") return void setTimeout(() => json(res, 200, { ok: true }), 100);
      if (req.url === "/pdf") return json(res, 202, {}, { "retry-after": "2200000" });
      return json(res, 200, {});
    });
    try {
      const long = 2 ** 31 + 1000;
      // Node fires a timer of more than 2^31 - 1 ms at once: this would time out at once.
      const core = new Core(svc.base, V3, { kind: "none" }, { ...FAST, timeoutMs: long, retry: { maxBackoffMs: 3e9 } });
      assert.deepEqual(await core.json(NONE, ANY, get("/slow")), { ok: true });
      // Retry-After 2,200,000 s is within the longest wait: waited (here, until aborted), not re-polled at once.
      const controller = new AbortController();
      const reason = new Error("stop waiting");
      setTimeout(() => controller.abort(reason), 300);
      await assert.rejects(core.bytes(get("/pdf", { poll: true }), { signal: controller.signal }), (e: unknown) => e === reason);
      assert.equal(svc.seen.filter((s) => s.url === "/pdf").length, 1);
      // A pacing window of 25 days holds the second request.
      const paced = new Core(svc.base, V3, { kind: "none" }, { rateLimit: { requests: 1, windowSeconds: long / 1000 } });
      await paced.empty(get("/a"));
      const stop = new AbortController();
      setTimeout(() => stop.abort(reason), 200);
      await assert.rejects(paced.empty(get("/b"), { signal: stop.signal }), (e: unknown) => e === reason);
      assert.equal(svc.seen.filter((s) => s.url === "/b").length, 0);
    } finally {
      await svc.close();
    }
  });

  test("the legacy token and password, and a key secret, are scrubbed from errors that echo them", async () => {
    const TOKEN = "tok-9f8e7d6c5b4a";
    const PASSWORD = "hunter2-correct-horse";
    const svc = await serve((req, res) => {
      if (req.url === "/api/users/authenticate") {
        const body = JSON.parse(req.body) as { user: { password: string } };
        if (body.user.password !== PASSWORD) return json(res, 401, { errors: `wrong password ${body.user.password}` });
        return json(res, 200, { auth_token: TOKEN });
      }
      const sent = req.headers["authorization"] ?? "";
      if (req.url === "/api/echo") return json(res, 400, { errors: `cannot use ${sent} here` });
      if (req.url === "/api/decode") return json(res, 200, { id: sent });
      return json(res, 403, { errors: `key ${String(req.headers["api-key-secret"])} may not` });
    });
    const REG: Registry = {
      Login: { k: "object", fields: [{ name: "auth_token", d: { k: "string" }, req: true, nul: false }] },
      Thing: { k: "object", fields: [{ name: "id", d: { k: "int", bits: 64 }, req: true, nul: false }] },
    };
    const tokenAuth = (password: string): Auth => {
      const credentials = { user: { username: "u", password } };
      return {
        kind: "token",
        header: "Authorization",
        scheme: "Token",
        hidden: [new Secret(password)],
        login: async (core) => {
          const answer = await core.json<{ auth_token: string }>(REG, { k: "ref", name: "Login" }, {
            ...get("/api/users/authenticate"),
            method: "POST",
            anonymous: true,
            body: credentials,
          });
          return new Secret(answer.auth_token);
        },
      };
    };
    const shown = (e: unknown): string => `${String(e)} ${inspect(e, { depth: 8 })} ${JSON.stringify(e)}`;
    try {
      const core = new Core(svc.base, LEGACY, tokenAuth(PASSWORD), FAST);
      const echoed = await core.empty(get("/api/echo")).catch((e: unknown) => e);
      assert.ok(echoed instanceof ApiError, String(echoed));
      assert.equal(echoed.serviceMessage, "cannot use Token <redacted> here");
      assert.equal(echoed.message, "GET /api/echo answered 400: cannot use Token <redacted> here");
      const decoded = await core.json(REG, { k: "ref", name: "Thing" }, get("/api/decode")).catch((e: unknown) => e);
      assert.ok(decoded instanceof DecodeError, String(decoded));
      for (const e of [echoed, decoded]) assert.ok(!shown(e).includes(TOKEN), shown(e));

      // A password echoed by a failed login (four characters or more are scrubbed).
      const wrong = "hunter3-wrong-horse";
      const refused = await new Core(svc.base, LEGACY, tokenAuth(wrong), FAST).login().catch((e: unknown) => e);
      assert.ok(refused instanceof ApiError && refused.status === 401, String(refused));
      assert.equal(refused.serviceMessage, "wrong password <redacted>");
      assert.ok(!shown(refused).includes(wrong), shown(refused));

      const keyed = await new Core(svc.base, V3, keyAuth(), FAST).empty(get("/other")).catch((e: unknown) => e);
      assert.ok(keyed instanceof ApiError);
      assert.equal(keyed.serviceMessage, "key <redacted> may not");
      assertNoSecret(shown(keyed), "a key echoed");
    } finally {
      await svc.close();
    }
  });
});

describe("webhook deliveries", () => {
  test("the verifier wants exactly the configured header, and never shows it", () => {
    verifyWebhook({ "X-Hook-Key": "s3cret" }, "x-hook-key", "s3cret");
    verifyWebhook(new Headers({ "x-hook-key": "s3cret" }), "X-Hook-Key", "s3cret");
    for (const headers of [{}, { "x-hook-key": "s3cres" }, { "x-hook-key": ["s3cret", "s3cret"] }]) {
      assert.throws(
        () => verifyWebhook(headers, "x-hook-key", "s3cret"),
        (e: unknown) => e instanceof WebhookError && !String(e).includes("s3cre"),
      );
    }
  });

  test("an unknown event is kept whole; a body that is not JSON is a decode error", async () => {
    const { v3 } = await import("../../generated/typescript/dist/index.js");
    const unknown = v3.parseEvent('{"type":"unit.archived","data":{"id":"u1"}}');
    assert.ok(isUnknownMember(unknown));
    assert.equal(JSON.stringify(unknown), '{"type":"unit.archived","data":{"id":"u1"}}');
    assert.throws(() => v3.parseEvent("<html>"), DecodeError);
    const { readFileSync } = await import("node:fs");
    const task: unknown = JSON.parse(readFileSync(new URL("../fixtures/v3/task.json", import.meta.url), "utf8"));
    const known = v3.parseEvent(new TextEncoder().encode(JSON.stringify({ type: "task.completed", data: task })));
    assert.equal(known.type, "task.completed");
  });
});

