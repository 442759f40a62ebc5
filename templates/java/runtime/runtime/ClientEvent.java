package {{ package }}.runtime;

import {{ package }}.runtime.internal.EventAttributes;

/**
 * One thing a client did, for {@link Hooks}. Every event names the operation (the spec's
 * {@code snake_case} name) and, except pages and errors of walks, the method and the path as
 * the spec writes it. {@link #attributes()} gives the OpenTelemetry names the other clients
 * use ({@code http.request.method}, {@code url.template}, {@code http.response.status_code},
 * {@code http.request.resend_count}, {@code server.address}, {@code server.port}).
 */
public sealed interface ClientEvent {
    /**
     * The operation, as the spec names it.
     *
     * @return the name
     */
    String operation();

    /**
     * The event's fields under the OpenTelemetry attribute names where there is one, and
     * {@code inspection.*} names otherwise.
     *
     * @return the attributes, in a stable order
     */
    java.util.Map<String, Object> attributes();

    /**
     * An attempt is about to be sent.
     *
     * @param operation the operation
     * @param method the HTTP method
     * @param urlTemplate the path as the spec writes it ({@code /units/{unit_id}})
     * @param attempt 1, 2, ...
     * @param serverAddress the host
     * @param serverPort the port
     */
    record Request(String operation, String method, String urlTemplate, int attempt, String serverAddress, int serverPort)
            implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return sent(operation, method, urlTemplate, attempt).with("server.address", serverAddress)
                    .with("server.port", serverPort).map();
        }
    }

    /**
     * An attempt was answered (any status).
     *
     * @param operation the operation
     * @param method the HTTP method
     * @param urlTemplate the path as the spec writes it
     * @param attempt 1, 2, ...
     * @param status the HTTP status
     * @param durationMs how long the attempt took
     * @param requestId the {@code x-request-id} answer header, or {@code null}
     */
    record Response(String operation, String method, String urlTemplate, int attempt, int status, double durationMs,
            String requestId) implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return sent(operation, method, urlTemplate, attempt).with("http.response.status_code", status)
                    .with("inspection.duration_ms", durationMs).with("inspection.request_id", requestId).map();
        }
    }

    /**
     * A failed attempt will be sent again.
     *
     * @param operation the operation
     * @param attempt the attempt that failed
     * @param reason {@code status}, {@code timeout} or {@code connection}
     * @param status the status, or {@code null} unless the reason is {@code status}
     * @param waitMs the wait before the next attempt
     * @param retryAfter whether the wait is the service's {@code Retry-After}
     */
    record Retry(String operation, int attempt, String reason, Integer status, double waitMs, boolean retryAfter)
            implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return EventAttributes.of(operation).with("http.request.resend_count", attempt - 1)
                    .with("inspection.retry.reason", reason).with("http.response.status_code", status)
                    .with("inspection.wait_ms", waitMs).with("inspection.retry_after", retryAfter).map();
        }
    }

    /**
     * The client waits before an attempt for a reason other than a retry.
     *
     * @param operation the operation
     * @param reason {@code rate_limit} (its own pacing) or {@code poll} (a 202, asked again)
     * @param waitMs the wait
     */
    record Pause(String operation, String reason, double waitMs) implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return EventAttributes.of(operation).with("inspection.pause.reason", reason)
                    .with("inspection.wait_ms", waitMs).map();
        }
    }

    /**
     * A page of a walk was read.
     *
     * @param operation the operation
     * @param page 1 for the walk's first
     * @param items the records on it
     */
    record Page(String operation, int page, int items) implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return EventAttributes.of(operation).with("inspection.page", page).with("inspection.items", items).map();
        }
    }

    /**
     * The call failed for good, after at least one attempt.
     *
     * @param operation the operation
     * @param errorType the error's {@link ClientException#kind()}
     * @param status the status of an {@link ApiException}, else {@code null}
     * @param attempts the attempts made
     */
    record Error(String operation, String errorType, Integer status, int attempts) implements ClientEvent {
        @Override
        public java.util.Map<String, Object> attributes() {
            return EventAttributes.of(operation).with("error.type", errorType).with("http.response.status_code", status)
                    .with("inspection.attempts", attempts).map();
        }
    }

    /** The attributes an attempt's request and its response both begin with. */
    private static EventAttributes sent(String operation, String method, String template, int attempt) {
        return EventAttributes.of(operation).with("http.request.method", method).with("url.template", template)
                .with("http.request.resend_count", attempt - 1);
    }
}
