import contextvars

from opentelemetry import trace
from opentelemetry.util.types import AttributeValue

from inspection_client import ErrorEvent, Hooks, RequestEvent, ResponseEvent, RetryEvent

# The attempt in flight: each thread (Client) and each task (AsyncClient) has its own.
_span: contextvars.ContextVar[trace.Span | None] = contextvars.ContextVar("inspection_span", default=None)


def tracing_hooks(tracer: trace.Tracer) -> Hooks:
    """Hooks that make an OpenTelemetry client span of every attempt a client sends."""

    def on_request(e: RequestEvent) -> None:
        attributes: dict[str, AttributeValue] = {
            "http.request.method": e.method,
            "url.template": e.url_template,
            "server.address": e.server_address,
            "server.port": e.server_port,
        }
        if e.attempt > 1:
            attributes["http.request.resend_count"] = e.attempt - 1
        name = f"{e.method} {e.url_template}"
        _span.set(tracer.start_span(name, kind=trace.SpanKind.CLIENT, attributes=attributes))

    def end(error_type: str | None) -> None:
        span = _span.get()
        if span is None:
            return  # the attempt's span has ended already
        _span.set(None)
        if error_type is not None:
            span.set_attribute("error.type", error_type)
            span.set_status(trace.StatusCode.ERROR)
        span.end()

    def on_response(e: ResponseEvent) -> None:
        span = _span.get()
        if span is not None:
            span.set_attribute("http.response.status_code", e.status)
        end(str(e.status) if e.status >= 400 else None)

    def on_retry(e: RetryEvent) -> None:
        end(e.reason)  # an attempt with no answer: "timeout" or "connection"

    def on_error(e: ErrorEvent) -> None:
        end(e.error_type)

    return Hooks(on_request=on_request, on_response=on_response, on_retry=on_retry, on_error=on_error)
