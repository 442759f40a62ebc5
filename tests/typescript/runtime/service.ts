// A local node:http service the runtime tests talk to, and the helpers they share.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import {
  Secret,
  type Auth,
  type ClientOptions,
  type Desc,
  type InterfaceInfo,
  type Registry,
  type RequestSpec,
} from "../../../generated/typescript/dist/runtime/index.js";

// ---------------------------------------------------------------- a local service

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>;

export interface Service {
  base: string;
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function serve(handler: Handler, prefix = ""): Promise<Service> {
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

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export const V3: InterfaceInfo = {
  name: "v3",
  rateLimit: { requests: 100, windowSeconds: 10, status: 429, retryAfterHeader: "Retry-After" },
  errorMessageField: "errors",
  defaultHeaders: {},
};

export const LEGACY: InterfaceInfo = {
  name: "legacy",
  errorMessageField: "errors",
  defaultHeaders: { accept: "application/json; version=1" },
};

export const FAST: ClientOptions = { rateLimit: null, retry: { maxAttempts: 3, initialBackoffMs: 5, maxBackoffMs: 2000 } };

export const KEY_SECRET = "s3cr3t-key-value";

export function keyAuth(): Auth {
  return {
    kind: "headers",
    headers: [
      { name: "api-key-id", value: "demo-key" },
      { name: "api-key-secret", value: new Secret(KEY_SECRET) },
    ],
  };
}

export function get(path: string, extra: Partial<RequestSpec> = {}): RequestSpec {
  return {
    op: `get ${path}`,
    method: "GET",
    path,
    segments: path.split("/").filter((s) => s !== ""),
    ...extra,
  };
}

export const ANY: Desc = { k: "json" };
export const NONE: Registry = {};

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Every item, then the error the iteration ended with (if any). */
export async function collectUntilError<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

export function assertNoSecret(text: string, what: string): void {
  assert.ok(!text.includes(KEY_SECRET), `${what} shows the secret: ${text}`);
  assert.ok(!text.includes("tok-"), `${what} shows a token: ${text}`);
  assert.ok(!text.includes("hunter2"), `${what} shows a password: ${text}`);
}
