package {{ package }}.runtime.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.util.Locale;

import {{ package }}.runtime.ApiException;
import {{ package }}.runtime.ClientEvent;
import {{ package }}.runtime.ClientException;
import {{ package }}.runtime.Hooks;

/**
 * Hands a client's events to its hooks and its {@code System.Logger}. Nothing is built when
 * neither listens; a hook that throws is logged and the call goes on.
 */
final class Reporter {
    private static final Logger LOGGER = System.getLogger("{{ package }}");

    private final Hooks hooks;

    Reporter(Hooks hooks) {
        this.hooks = hooks;
    }

    private boolean listening(Level level) {
        return hooks != Hooks.NONE || LOGGER.isLoggable(level);
    }

    private void emit(ClientEvent event, Level level, String text) {
        if (LOGGER.isLoggable(level)) {
            LOGGER.log(level, text + " " + event.attributes());
        }
        if (hooks == Hooks.NONE) {
            return;
        }
        try {
            hooks.onEvent(event);
        } catch (RuntimeException e) {
            LOGGER.log(Level.WARNING, "a hook threw; the call goes on", e);
        }
    }

    void request(Operation op, int attempt, URI url) {
        if (hooks == Hooks.NONE) {
            // Requests are not logged: the answer's record says the same and more.
            return;
        }
        int port = url.getPort() != -1 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80;
        emit(new ClientEvent.Request(op.name, op.method, op.template, attempt, url.getHost(), port), Level.TRACE, "");
    }

    void response(Operation op, int attempt, int status, long startedNanos, String requestId) {
        if (!listening(Level.DEBUG)) {
            return;
        }
        double ms = (System.nanoTime() - startedNanos) / 1e6;
        emit(new ClientEvent.Response(op.name, op.method, op.template, attempt, status, ms, requestId), Level.DEBUG,
            String.format(Locale.ROOT, "%s %s attempt %d: %d in %.0f ms", op.method, op.template, attempt, status, ms));
    }

    void retry(Operation op, int attempt, String reason, Integer status, long waitNanos, boolean retryAfter) {
        if (!listening(Level.WARNING)) {
            return;
        }
        emit(new ClientEvent.Retry(op.name, attempt, reason, status, waitNanos / 1e6, retryAfter), Level.WARNING,
            String.format(Locale.ROOT, "%s %s attempt %d failed (%s); retrying", op.method, op.template, attempt, reason));
    }

    boolean pauses() {
        return listening(Level.DEBUG);
    }

    void pause(Operation op, String reason, long waitNanos) {
        if (!listening(Level.DEBUG)) {
            return;
        }
        emit(new ClientEvent.Pause(op.name, reason, waitNanos / 1e6), Level.DEBUG,
            String.format(Locale.ROOT, "%s %s waits (%s)", op.method, op.template, reason));
    }

    void page(Operation op, int page, int items) {
        if (!listening(Level.DEBUG)) {
            return;
        }
        emit(new ClientEvent.Page(op.name, page, items), Level.DEBUG,
            String.format(Locale.ROOT, "%s %s page %d: %d records", op.method, op.template, page, items));
    }

    void error(Operation op, Throwable error, int attempts) {
        if (!listening(Level.DEBUG)) {
            return;
        }
        String kind = error instanceof ClientException c ? c.kind() : "client";
        Integer status = error instanceof ApiException a ? a.status() : null;
        emit(new ClientEvent.Error(op.name, kind, status, attempts), Level.DEBUG,
            String.format(Locale.ROOT, "%s %s failed (%s)", op.method, op.template, kind));
    }
}
