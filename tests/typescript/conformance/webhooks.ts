// Webhook deliveries: a local listener, and the `listen` and `deliveries` steps.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo } from "node:net";
import { legacy, v3, verifyWebhook } from "inspection-client";

import { JsonObject, show, mapping, optString } from "./json.js";
import type { Scenario } from "./scenarios.js";
import { type Sandbox, control } from "./control.js";
import { Outcome, settle, Args } from "./calls.js";
import type { WebhookSteps } from "./runner.js";

/** One POST the listener received: its headers (lowercase names, as node gives them) and raw body. */
interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/** An HTTP listener on 127.0.0.1 (a free port) that answers every POST 200 and records it. */
export class Listener {
  readonly deliveries: Delivery[] = [];
  private readonly server: Server = createServer((request, response) => this.receive(request, response));
  private port = 0;

  private constructor() {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  static async start(): Promise<Listener> {
    const listener = new Listener();
    const server = listener.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    listener.port = (server.address() as AddressInfo).port;
    return listener;
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST") {
        response.writeHead(405, { allow: "POST", "content-length": "0" }).end();
        return;
      }
      this.deliveries.push({ headers: { ...request.headers }, body: new Uint8Array(Buffer.concat(chunks)) });
      response.writeHead(200, { "content-length": "0" }).end();
    });
  }

  /** Waits until `count` deliveries came (or `timeoutMs` passed); what came by then. */
  async waitFor(count: number, timeoutMs: number): Promise<Delivery[]> {
    const deadline = performance.now() + timeoutMs;
    while (this.deliveries.length < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return [...this.deliveries];
  }

  /** Stops listening and drops its connections (the sandbox's kept-alive ones too). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** `{name, value}` of `args.<key>` (a header), or undefined when not given. */
function headerArg(a: Args, key: string): { name: string; value: string } | undefined {
  const v = a.take(key);
  if (v === undefined) return undefined;
  const m = mapping(v, `\`args.${key}\``, ["name", "value"]);
  const name = optString(m, "name", `args.${key}`);
  const value = optString(m, "value", `args.${key}`);
  if (name === undefined || value === undefined) throw new Error(`\`args.${key}\` needs \`name\` and \`value\``);
  return { name, value };
}

/** A scenario's webhook steps in Node: its listener, from `listen` until the scenario ends. */
export class NodeWebhooks implements WebhookSteps {
  private readonly slot: ListenerSlot = { listener: undefined };

  listen(sandbox: Sandbox, scenario: Scenario, a: Args): Promise<Outcome> {
    return listen(sandbox, scenario, this.slot, a);
  }

  deliveries(scenario: Scenario, a: Args): Promise<Outcome> {
    return deliveries(scenario, this.slot, a);
  }

  async close(): Promise<void> {
    await this.slot.listener?.close();
  }
}

/** Where a scenario keeps its listener between the `listen` and `deliveries` steps. */
interface ListenerSlot {
  listener: Listener | undefined;
}

/** `listen {header}`: a listener, registered with the sandbox for the scenario's interface. */
async function listen(sandbox: Sandbox, scenario: Scenario, state: ListenerSlot, a: Args): Promise<Outcome> {
  const header = headerArg(a, "header");
  a.finish();
  if (state.listener !== undefined) throw new Error("a scenario has one listener: `listen` came twice");
  const listener = await Listener.start();
  state.listener = listener;
  const registration: JsonObject = { interface: scenario.interface, url: listener.url };
  if (header !== undefined) registration["header"] = header;
  await control(sandbox, "POST", "/_sandbox/webhooks", registration);
  return { result: { url: listener.url } };
}

/** `deliveries {count, timeout_ms, verify}`: waits for the deliveries, verifies and parses each. */
async function deliveries(scenario: Scenario, state: ListenerSlot, a: Args): Promise<Outcome> {
  const count = a.take("count");
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
    throw new Error(`\`args.count\` is a whole number, not ${show(count)}`);
  }
  const timeoutMs = a.take("timeout_ms") ?? 5_000;
  if (typeof timeoutMs !== "number") throw new Error(`\`args.timeout_ms\` is a number, not ${show(timeoutMs)}`);
  const verify = headerArg(a, "verify");
  a.finish();
  const listener = state.listener;
  if (listener === undefined) throw new Error("`deliveries` needs a `listen` step before it");
  const came = await listener.waitFor(count, timeoutMs);
  if (came.length !== count) {
    throw new Error(`expected ${count} deliveries, the listener received ${came.length} within ${timeoutMs} ms`);
  }
  const parse = scenario.interface === "v3" ? v3.parseEvent : legacy.parseEvent;
  return settle(() =>
    came.map((d) => {
      if (verify !== undefined) verifyWebhook(d.headers, verify.name, verify.value);
      return parse(d.body);
    }),
  );
}
