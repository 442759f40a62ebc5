// The sandbox binary: one per distinct sandbox spec, started on demand, stopped at exit.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after } from "node:test";

import { type Sandbox } from "./control.js";
import { ROOT } from "./files.js";
import { SandboxSpec } from "./scenarios.js";

export { type Sandbox, control } from "./control.js";


function sandboxBinary(): string {
  const given = process.env["SANDBOX_BIN"];
  if (given !== undefined && given !== "") return given;
  const target = process.env["CARGO_TARGET_DIR"] ?? join(ROOT, "target");
  return join(target, "debug", process.platform === "win32" ? "sandbox.exe" : "sandbox");
}

/** Every sandbox and proxy process started, stopped when the tests end. */
const children: ChildProcess[] = [];
const sandboxes = new Map<string, Promise<Sandbox>>();

/** What the sandbox prints once it serves: its origin is the URL without `/v3`. */
const SERVING = /serving the v3 interface at (http:\/\/\S+?)\/v3\s/;
/** What `sandbox forward` prints once it listens: `sandbox forward: http://127.0.0.1:PORT -> http://...`. */
const FORWARDING = /^sandbox forward: (http:\/\/\S+) -> /m;

/**
 * Starts `bin <args>` (`what` names it in errors) and gives what `banner`'s first group
 * finds in its output on stdout, waiting up to 20 s.
 */
function startChild(bin: string, args: readonly string[], what: string, banner: RegExp): Promise<string> {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${what} printed no URL within 20 s: ${out}${stderr}`));
    }, 20_000);
    const onData = (chunk: string): void => {
      out += chunk;
      const found = banner.exec(out);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        // Keep draining its output, so it never blocks on a full pipe.
        child.stdout?.resume();
        child.off("exit", onExit);
        resolve(found[1]);
      }
    };
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before serving: ${out}${stderr}`));
    };
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", onData);
    child.on("exit", onExit);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * Starts `sandbox <args> --addr 127.0.0.1:0` and reads its origin from its first line; with
 * `proxy`, then `sandbox forward --to <its host:port>`, and reads the proxy's origin from its line.
 */
async function startSandbox(spec: SandboxSpec): Promise<Sandbox> {
  const bin = sandboxBinary();
  if (!existsSync(bin)) throw new Error(`no sandbox binary at ${bin}: run \`cargo build -p sandbox\` first`);
  const what = `the sandbox ${JSON.stringify(spec.args)}`;
  const direct = await startChild(bin, [...spec.args, "--addr", "127.0.0.1:0"], what, SERVING);
  if (!spec.proxy) return { origin: direct, direct };
  const to = new URL(direct).host;
  const origin = await startChild(bin, ["forward", "--to", to], `the proxy (sandbox forward --to ${to}) in front of ${what}`, FORWARDING);
  return { origin, direct };
}

/** One sandbox per set of flags and proxy or not, started on first use and reused. */
export function sandboxFor(spec: SandboxSpec): Promise<Sandbox> {
  const key = JSON.stringify([spec.args, spec.proxy]);
  let running = sandboxes.get(key);
  if (running === undefined) {
    running = startSandbox(spec);
    sandboxes.set(key, running);
  }
  return running;
}

/** Stops the sandboxes and proxies this file started (only those, by their process handles). */
function stopSandboxes(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
}

after(stopSandboxes);
// Also when the run is cut short (an `exit` handler runs synchronously only).
process.on("exit", stopSandboxes);
