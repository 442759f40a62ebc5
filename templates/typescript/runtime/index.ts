/**
 * The hand-written runtime of the generated client: transport, auth, pacing, retries,
 * paging, decoding, validation and errors. It knows no resource names: the generated
 * code describes the service, and this runtime does the rest. No dependencies: only
 * `fetch`, `AbortController`, `URL`, `TextDecoder` and timers (Node 18+ and browsers).
 *
 * @module
 */

export { Secret } from "./secret.js";
export { loginToken, secretsAt } from "./auth.js";
export {
  Core,
  type Auth,
  type CallOptions,
  type ClientOptions,
  type InterfaceInfo,
  type PageOptions,
  type RawResponse,
  type Upserted,
} from "./core.js";
export type { ByteSink } from "./download.js";
export type {
  CallEvent,
  ClientHooks,
  ErrorEvent,
  PageEvent,
  PauseEvent,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
} from "./hooks.js";
export { errorKind } from "./hooks.js";
export type { Method, RequestSpec } from "./request.js";
export type { Paged, PagingPlan } from "./paging.js";
export type { RetryPolicy } from "./retry.js";
export { queryEntries, refSegment, type QueryForm } from "./wire.js";
export { decode } from "./decode.js";
export { validate } from "./validate.js";
export {
  isUnknownMember,
  withAdditional,
  type CharClass,
  type Constraints,
  type Desc,
  type FieldDesc,
  type JsonValue,
  type OneOfDesc,
  type Registry,
} from "./schema.js";
export {
  ApiError,
  ConfigError,
  DecodeError,
  ForeignOriginError,
  InspectionError,
  InterruptedError,
  NotReadyError,
  PagingStalledError,
  Resume,
  TimeoutError,
  TooLargeError,
  TransportError,
  ValidationError,
  WebhookError,
  type Violation,
} from "./errors.js";
export { parseDelivery, verifyWebhook, type DeliveryHeaders } from "./webhook.js";
