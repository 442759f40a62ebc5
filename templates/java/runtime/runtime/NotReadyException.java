package {{ package }}.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * A document the service prepares (a PDF) was still not ready: it answered 202 to every
 * poll the client's {@code maxPolls} allows, or asked for a longer wait than
 * {@code maxBackoff}. Ask again later.
 */
public final class NotReadyException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's attempts, kept when it is serialized. */
    private final int attempts;
    /** The exception's retryAfter, kept when it is serialized. */
    private final Duration retryAfter;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     * @param attempts the requests made
     * @param retryAfter the wait the last 202 asked for, when it was too long; {@code null} otherwise
     */
    public NotReadyException(String message, int attempts, Duration retryAfter) {
        super(message);
        this.attempts = attempts;
        this.retryAfter = retryAfter;
    }

    /**
     * The requests made.
     *
     * @return how many
     */
    public int attempts() {
        return attempts;
    }

    /**
     * The wait the last 202 asked for, when it was longer than the client waits.
     *
     * @return the wait, if that is why the polling stopped
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    @Override
    public String kind() {
        return "not_ready";
    }
}
