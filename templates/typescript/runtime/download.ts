/**
 * Downloads written to a stream as they arrive, one chunk in memory at a time, whatever
 * their size: to a web `WritableStream`, or to anything with Node's `write(chunk)` (a
 * `fs.WriteStream`, a socket, a `Writable`).
 *
 * @module
 */

import { TimeoutError, TransportError } from "./errors.js";
import type { OpenBody } from "./http.js";
import { after } from "./pacing.js";

/**
 * Where a download goes: a web `WritableStream<Uint8Array>`, or an object with Node's
 * `write(chunk)` (a `false` answer waits for its `drain` event when it has `once`; a
 * promise answer is awaited). The sink is left open: close or end it yourself.
 */
export type ByteSink =
  | WritableStream<Uint8Array>
  | {
      write(chunk: Uint8Array): unknown;
      once?(event: "drain" | "error" | "close", listener: (arg?: unknown) => void): unknown;
      off?(event: "drain" | "error" | "close", listener: (arg?: unknown) => void): unknown;
    };

/** Writes one chunk to a Node-style sink, waiting out its backpressure. */
async function writeNode(sink: Exclude<ByteSink, WritableStream<Uint8Array>>, chunk: Uint8Array): Promise<void> {
  const answer = sink.write(chunk);
  if (typeof (answer as PromiseLike<unknown> | null)?.then === "function") {
    await answer;
    return;
  }
  const once = sink.once;
  if (answer !== false || once === undefined) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: unknown): void => {
      sink.off?.("drain", onDrain);
      sink.off?.("error", onError);
      sink.off?.("close", onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = (): void => done();
    const onError = (error: unknown): void => done(error ?? new Error("the stream failed"));
    const onClose = (): void => done(new Error("the stream was closed"));
    once.call(sink, "drain", onDrain);
    once.call(sink, "error", onError);
    once.call(sink, "close", onClose);
  });
}

/**
 * Copies an open body to `out` as it arrives; returns how many bytes were written. No
 * chunk within `idleMs` is a `TimeoutError` (a large download may take longer than one
 * attempt's timeout, a stalled one not); a body that breaks off or a sink that fails is a
 * `TransportError`; the caller's `signal` rejects with its reason. `out` keeps what came
 * before a failure; the download is not retried.
 */
export async function copyBody(
  open: OpenBody,
  out: ByteSink,
  idleMs: number,
  method: string,
  path: string,
  signal?: AbortSignal,
): Promise<number> {
  let written = 0;
  const writer = out instanceof WritableStream ? out.getWriter() : undefined;
  const reader = open.stream?.getReader();
  try {
    if (reader === undefined) return 0;
    for (;;) {
      let idle = false;
      const cancel = after(idleMs, () => {
        idle = true;
        open.abort();
      });
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (idle) throw new TimeoutError(method, path, idleMs);
        throw new TransportError(method, path, `the download broke off after ${written} bytes`, error);
      } finally {
        cancel();
      }
      if (next.done) return written;
      try {
        if (writer !== undefined) {
          await writer.ready;
          await writer.write(next.value);
        } else {
          await writeNode(out as Exclude<ByteSink, WritableStream<Uint8Array>>, next.value);
        }
      } catch (error) {
        open.abort();
        const why = error instanceof Error ? error.message : String(error);
        throw new TransportError(method, path, `cannot write the download: ${why}`, error);
      }
      written += next.value.byteLength;
    }
  } finally {
    writer?.releaseLock();
    reader?.releaseLock();
    open.release();
  }
}
