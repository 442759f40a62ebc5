// A running sandbox as a runner sees it, and its `/_sandbox/` controls over plain HTTP.
// No Node API: the browser runner loads it too (the sandbox then runs with --cors-origin).

import { Json } from "./json.js";

export interface Sandbox {
  /** Where the clients reach it, and `${origin}`: the sandbox, or the proxy in front of it. */
  origin: string;
  /** The sandbox itself, for the `/_sandbox/` controls. */
  direct: string;
}

/** `METHOD /_sandbox/...` with an optional JSON body: its JSON answer (null when empty); fails unless 2xx. */
export async function control(sandbox: Sandbox, method: string, path: string, body?: Json): Promise<Json> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`${sandbox.direct}${path}`, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  if (text === "") return null;
  return JSON.parse(text) as Json;
}
