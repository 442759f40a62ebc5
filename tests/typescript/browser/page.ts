// The conformance runner in a browser page: browser.test.ts serves this module, the runner's
// browser-safe modules and the built package (`inspection-client` through an import map)
// from a loopback origin, and drives headless Chromium through `runScenario(name)`. The page
// reads nothing from disk and starts no process: the scenarios and specs come as data from
// the host page's `/setup.json`, and sandboxes (run with `--cors-origin` this page's origin)
// from its `POST /sandbox`.

import type { Json } from "../conformance/json.js";
import type { Sandbox } from "../conformance/control.js";
import { operationsOf } from "../conformance/operations.js";
import { type Platform, runScenario } from "../conformance/runner.js";
import type { SandboxSpec, Scenario } from "../conformance/scenarios.js";

/** What the host gives the page: the scenarios to run (already read and checked) and the specs. */
export interface Setup {
  scenarios: Scenario[];
  specs: Record<"v3" | "legacy", Json>;
}

/** What the page offers the host, on `globalThis`. */
export interface PageApi {
  /** Runs the scenario of this name: null when it passed, else the failure's message. */
  runScenario(name: string): Promise<string | null>;
}

async function host<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`the host page answered ${path} with ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

const setup = await host<Setup>("/setup.json");
const sandboxes = new Map<string, Promise<Sandbox>>();
const platform: Platform = {
  operations: { v3: operationsOf("v3", setup.specs.v3), legacy: operationsOf("legacy", setup.specs.legacy) },
  sandboxFor(spec: SandboxSpec): Promise<Sandbox> {
    const key = JSON.stringify(spec);
    let running = sandboxes.get(key);
    if (running === undefined) {
      running = host<Sandbox>("/sandbox", spec);
      sandboxes.set(key, running);
    }
    return running;
  },
  // No `webhooks`: a page cannot accept the sandbox's deliveries.
};
const byName = new Map(setup.scenarios.map((s) => [s.name, s]));

const api: PageApi = {
  async runScenario(name) {
    const scenario = byName.get(name);
    if (scenario === undefined) return `the page has no scenario \`${name}\``;
    try {
      await runScenario(scenario, platform);
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  },
};
Object.assign(globalThis, { conformance: api });
