// The MCP Inspector's command line (@modelcontextprotocol/inspector, pinned in
// package.json, run on the Node 22 of the pinned `node` package), in its strict schema mode, against `inspection mcp` of both interfaces over
// stdio and over streamable HTTP, every tool offered: no schema problem of error severity,
// and no secret in anything it prints. Needs the tool built with its `mcp` feature (the
// Rust tests build it: `cargo test`; INSPECTION_BIN names another).

import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";

import { ROOT } from "./conformance/files.js";
import { sandboxFor } from "./conformance/sandbox.js";

const SECRETS = ["demo-secret", "manager-pass"];

function inspectionBinary(): string {
  const given = process.env["INSPECTION_BIN"];
  if (given !== undefined && given !== "") return given;
  const target = process.env["CARGO_TARGET_DIR"] ?? join(ROOT, "target");
  const bin = join(target, "debug", process.platform === "win32" ? "inspection.exe" : "inspection");
  if (!existsSync(bin)) throw new Error(`no ${bin}: cargo build -p inspection-cli --features inspection-cli-runtime/mcp`);
  return bin;
}

const BIN = join(ROOT, "tests", "typescript", "node_modules", ".bin");
const INSPECTOR = join(BIN, "mcp-inspector");
/** The Inspector needs Node 22 or later: the pinned `node` package's, first on its PATH. */
const PATH = `${BIN}${process.platform === "win32" ? ";" : ":"}${process.env["PATH"] ?? ""}`;

function environment(origin: string): Record<string, string> {
  return {
    INSPECTION_V3_BASE_URL: `${origin}/v3`,
    INSPECTION_V3_API_KEY_ID: "demo-key",
    INSPECTION_V3_API_KEY_SECRET: "demo-secret",
    INSPECTION_LEGACY_BASE_URL: origin,
    INSPECTION_LEGACY_USERNAME: "manager@example.com",
    INSPECTION_LEGACY_PASSWORD: "manager-pass",
    INSPECTION_CONFIG_DIR: "/nonexistent/inspection-tests",
  };
}

interface Ran {
  code: number;
  out: string;
}

/** The Inspector's CLI with `args`: its exit code, and stdout and stderr together. */
function inspector(args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const options = { maxBuffer: 16 * 1024 * 1024, timeout: 60_000, env: { ...process.env, PATH } };
    execFile(INSPECTOR, ["--cli", ...args], options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, out: `${stdout}\n${stderr}` });
    });
  });
}

/**
 * `--strict` passed with nothing to report (exit 0, no schema problem of any severity: the
 * Inspector then prints no count), the tools listed, no secret printed.
 */
function assertStrict(ran: Ran, what: string): void {
  assert.equal(ran.code, 0, `${what}: the Inspector refused the tools:\n${ran.out}`);
  assert.match(ran.out, /"name": "list_/, `${what}: no tool listed`);
  assert.doesNotMatch(ran.out, /^(Warning|Error): tool/m, `${what}: schema problems:\n${ran.out}`);
  for (const secret of SECRETS) assert.ok(!ran.out.includes(secret), `${what}: a secret printed`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

for (const iface of ["v3", "legacy"]) {
  test(`the ${iface} tools pass the Inspector's strict schema check over stdio`, async () => {
    const sandbox = await sandboxFor({ args: [], proxy: false });
    const env = Object.entries(environment(sandbox.origin)).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const ran = await inspector(["--strict", "--method", "tools/list", ...env, inspectionBinary(), "mcp", iface, "--allow-writes"]);
    assertStrict(ran, `${iface} over stdio`);
  });
}

test("the v3 tools pass the Inspector's strict schema check over streamable HTTP", async () => {
  const sandbox = await sandboxFor({ args: [], proxy: false });
  const port = await freePort();
  const server = spawn(inspectionBinary(), ["mcp", "v3", "--allow-writes", "--listen", `127.0.0.1:${port}`], {
    env: { PATH: process.env["PATH"] ?? "", ...environment(sandbox.origin) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    let ran: Ran = { code: -1, out: "" };
    for (let tries = 0; tries < 50; tries++) {
      ran = await inspector(["--strict", "--method", "tools/list", `http://127.0.0.1:${port}/mcp`]);
      if (ran.code === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assertStrict(ran, "v3 over HTTP");
    // The URL first: `--tool-arg` takes every argument after it.
    const called = await inspector([`http://127.0.0.1:${port}/mcp`, "--method", "tools/call", "--tool-name", "get_unit", "--tool-arg", "unit_id=unt_001"]);
    assert.equal(called.code, 0, called.out);
    assert.match(called.out, /unt_001/);
  } finally {
    server.kill();
  }
});
