// Behaviour tests of the hand-written TypeScript runtime (templates/typescript/runtime/)
// against local node:http servers: limits (body sizes, waits, secrets) and webhook
// deliveries. The runtime is imported from the generated package's build output, where the
// generator copies it verbatim.

import assert from "node:assert/strict";
import { type ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { inspect } from "node:util";

import {
  ApiError,
  Core,
  DecodeError,
  NotReadyError,
  Secret,
  TooLargeError,
  TransportError,
  WebhookError,
  isUnknownMember,
  verifyWebhook,
  type Auth,
  type Registry,
} from "../../../generated/typescript/dist/runtime/index.js";

import { serve, json, V3, LEGACY, FAST, keyAuth, get, ANY, NONE, assertNoSecret } from "./service.js";

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
    const { v3 } = await import("../../../generated/typescript/dist/index.js");
    const unknown = v3.parseEvent('{"type":"unit.archived","data":{"id":"u1"}}');
    assert.ok(isUnknownMember(unknown));
    assert.equal(JSON.stringify(unknown), '{"type":"unit.archived","data":{"id":"u1"}}');
    assert.throws(() => v3.parseEvent("<html>"), DecodeError);
    const { readFileSync } = await import("node:fs");
    const task: unknown = JSON.parse(readFileSync(new URL("../../fixtures/v3/task.json", import.meta.url), "utf8"));
    const known = v3.parseEvent(new TextEncoder().encode(JSON.stringify({ type: "task.completed", data: task })));
    assert.equal(known.type, "task.completed");
  });
});
