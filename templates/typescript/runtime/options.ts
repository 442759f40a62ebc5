/**
 * Per-call settings, shared by the core and the walks and transfers it drives.
 *
 * @module
 */

import type { Resume } from "./errors.js";

/** Per-call settings. */
export interface CallOptions {
  /** Aborts the call (waits included); it then rejects with the signal's reason, not retried. */
  signal?: AbortSignal;
  /**
   * Time for one attempt of this call, replacing the client's `timeoutMs`. A download
   * written to a stream may take longer: there it is the longest wait for the next bytes.
   */
  timeoutMs?: number;
}

/** Per-call settings of a list operation. */
export interface PageOptions extends CallOptions {
  /**
   * Start at the page a failed walk stopped at (`InterruptedError.resume`, or its text
   * `cursor:...` / `link:...`) instead of the first: the walk, or `first()`, fetches that
   * page first, so a resumed walk fetches nothing twice. A cursor is sent as the page
   * parameter (with the call's query); a link, on the base URL's origin only, is called
   * as it is.
   */
  resume?: Resume | string;
}
