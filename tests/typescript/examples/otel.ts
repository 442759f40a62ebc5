import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import type { ClientHooks } from "inspection-client";

/** Hooks that trace every attempt of every call as an OpenTelemetry client span. */
export function tracingHooks(tracer: Tracer): ClientHooks {
  // A call's attempts never overlap: at most one open span per call.
  const open = new Map<number, Span>();
  const end = (callId: number, errorType?: string, attributes: Attributes = {}): void => {
    const span = open.get(callId);
    if (span === undefined) return;
    open.delete(callId);
    span.setAttributes(attributes);
    if (errorType !== undefined) {
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  return {
    onRequest(e) {
      const attributes: Attributes = {
        "http.request.method": e.method,
        "url.template": e.urlTemplate,
        "server.address": e.serverAddress,
        "server.port": e.serverPort,
      };
      if (e.attempt > 1) attributes["http.request.resend_count"] = e.attempt - 1;
      open.set(e.callId, tracer.startSpan(`${e.method} ${e.urlTemplate}`, { kind: SpanKind.CLIENT, attributes }));
    },
    onResponse(e) {
      end(e.callId, e.status >= 400 ? String(e.status) : undefined, { "http.response.status_code": e.status });
    },
    // An attempt with no answer (a timeout, a failed connection) ends here...
    onRetry(e) {
      end(e.callId, e.reason);
    },
    // ...or, when it was the last, here (an answered attempt has ended already).
    onError(e) {
      end(e.callId, e.errorType);
    },
  };
}
