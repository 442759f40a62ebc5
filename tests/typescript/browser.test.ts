// The conformance scenarios in headless Chromium (issue 34): the built ESM package and the
// runner's browser-safe modules (conformance/runner.ts and what it imports: no Node API)
// are served, unbundled, from a loopback origin with an import map; browser/page.ts runs
// each scenario there against sandboxes started with `--cors-origin` that origin. One
// node:test test per scenario; those a page cannot run are skipped, with the reason.
//
//   cargo build -p sandbox && npm run test:browser --prefix tests/typescript
//
// Chromium: `CHROMIUM_BIN`, else /usr/bin/chromium (Debian's `chromium`; `.ci/run`
// installs it), driven by playwright-core (no browser download). `CONFORMANCE_ONLY` and
// `SANDBOX_BIN` work as for conformance.test.ts.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve, sep } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

import type { PageApi, Setup } from "./browser/page.js";
import { readScenarios, readSpecs } from "./conformance/files.js";
import { needsListener } from "./conformance/runner.js";
import { sandboxFor } from "./conformance/sandbox.js";
import type { SandboxSpec, Scenario } from "./conformance/scenarios.js";

/** tests/typescript, where the runner's compiled modules are. */
const HERE = dirname(fileURLToPath(import.meta.url));
/** The built package as Node resolves it (generated/typescript/dist). */
const PACKAGE = dirname(fileURLToPath(import.meta.resolve("inspection-client")));

/**
 * Scenarios a page cannot run besides those with webhook listeners (`needsListener`), by
 * name, with the reason. Every other scenario runs in the browser.
 */
const OPAQUE_REDIRECT =
  "a browser hides where a redirect leads (an opaque redirect, so that a page cannot read it): the client refuses every redirect " +
  "of a service call there, with ForeignOriginError, as it cannot check the target's origin (docs/typescript.md, Browsers)";
const BROWSER_SKIPPED: ReadonlyMap<string, string> = new Map<string, string>([
  // The client refuses it in the browser too, but cannot name the origin the scenario expects.
  ["a redirect to another origin is not followed", OPAQUE_REDIRECT],
  ["a redirect within the origin is followed with the keys", OPAQUE_REDIRECT],
]);

/** `CHROMIUM_BIN` when set (it must exist), else Debian's; fails saying how to get one. */
function chromiumPath(): string {
  const given = process.env["CHROMIUM_BIN"];
  if (given !== undefined && given !== "") {
    if (!existsSync(given)) throw new Error(`CHROMIUM_BIN names ${given}, which does not exist`);
    return given;
  }
  const found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error("no Chromium at /usr/bin/chromium: install Debian's (apt-get install -y chromium; .ci/run does) or set CHROMIUM_BIN");
  }
  return found;
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>inspection-client conformance</title>
<script type="importmap">{"imports": {"inspection-client": "/pkg/index.js"}}</script>
<script type="module" src="/runner/browser/page.js"></script>
`;

/** A file under `dir`, or undefined when `rest` leaves it. */
function under(dir: string, rest: string): string | undefined {
  const path = resolve(dir, `.${decodeURIComponent(rest)}`);
  return path.startsWith(dir + sep) ? path : undefined;
}

/** The host page's origin, once listening (the sandboxes allow it). */
let origin = "";

async function serve(req: IncomingMessage, res: ServerResponse, setup: string): Promise<void> {
  const path = new URL(req.url ?? "/", "http://host").pathname;
  const send = (status: number, type: string, body: string | Buffer): void => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body);
  };
  if (req.method === "GET" && path === "/") return send(200, "text/html; charset=utf-8", PAGE);
  if (req.method === "GET" && path === "/setup.json") return send(200, "application/json", setup);
  if (req.method === "POST" && path === "/sandbox") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const spec = JSON.parse(Buffer.concat(chunks).toString("utf8")) as SandboxSpec;
    const sandbox = await sandboxFor({ args: [...spec.args, "--cors-origin", origin], proxy: spec.proxy });
    return send(200, "application/json", JSON.stringify(sandbox));
  }
  // The package's modules, and the runner's (only the browser-safe folders).
  let file: string | undefined;
  if (path.startsWith("/pkg/")) file = under(PACKAGE, path.slice("/pkg".length));
  else if (path.startsWith("/runner/conformance/") || path.startsWith("/runner/browser/")) file = under(HERE, path.slice("/runner".length));
  if (req.method === "GET" && file !== undefined && file.endsWith(".js") && existsSync(file)) {
    return send(200, "text/javascript; charset=utf-8", await readFile(file));
  }
  send(404, "text/plain", `not found: ${path}`);
}

let server: Server | undefined;
let browser: Browser | undefined;
let page: Page | undefined;
/** What the page reported outside a scenario's result (uncaught errors, console errors). */
const pageErrors: string[] = [];

const only = process.env["CONFORMANCE_ONLY"];
const scenarios = readScenarios().filter((s) => only === undefined || only === "" || s.name.includes(only));
const reasons = new Map<string, string>();
for (const s of scenarios) {
  const reason = BROWSER_SKIPPED.get(s.name) ?? needsListener(s);
  if (reason !== undefined) reasons.set(s.name, reason);
}
const runnable: Scenario[] = scenarios.filter((s) => !reasons.has(s.name));

before(async () => {
  const setup: Setup = { scenarios: runnable, specs: readSpecs() };
  const text = JSON.stringify(setup);
  const listening = createServer((req, res) => {
    serve(req, res, text).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(e instanceof Error ? e.message : String(e));
    });
  });
  server = listening;
  await new Promise<void>((done, fail) => {
    listening.once("error", fail);
    listening.listen(0, "127.0.0.1", () => done());
  });
  origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    // This machine's network is closed: no background connections, no QUIC.
    args: ["--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const opened = await browser.newPage();
  page = opened;
  opened.on("pageerror", (e) => pageErrors.push(`uncaught: ${e.message}`));
  opened.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`console: ${m.text()}`);
  });
  await opened.goto(`${origin}/`);
  await opened.waitForFunction(() => "conformance" in globalThis, undefined, { timeout: 20_000 }).catch((e: unknown) => {
    throw new Error(`the page did not start: ${String(e)}; ${pageErrors.join("; ")}`);
  });
  const agent = await opened.evaluate(() => navigator.userAgent);
  console.log(`# browser: ${agent.replace(/.*(Headless)?Chrome\//, "Chromium ")}, page at ${origin}`);
});

after(async () => {
  await browser?.close();
  await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
});

for (const scenario of scenarios) {
  const skip = reasons.get(scenario.name);
  if (skip !== undefined) {
    test(scenario.name, { skip }, () => undefined);
    continue;
  }
  test(scenario.name, async () => {
    assert.ok(page !== undefined, "no page");
    const before = pageErrors.length;
    const failure = await page.evaluate((name) => (globalThis as unknown as { conformance: PageApi }).conformance.runScenario(name), scenario.name);
    const noise = pageErrors.slice(before);
    if (failure !== null) assert.fail(noise.length === 0 ? failure : `${failure}\n(the page also reported: ${noise.join("; ")})`);
  });
}
