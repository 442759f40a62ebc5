package {{ package }}.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * The service answered an error status. Subclasses name the common statuses
 * ({@link NotFoundException}, {@link RateLimitException}, ...), so a caller catches what it
 * handles; any other status is an {@code ApiException} itself.
 *
 * <p>The message holds the method, the operation's path as the spec writes it (never a
 * concrete id), the status and the service's own message, with every secret the client holds
 * replaced by {@code <redacted>}.
 */
public class ApiException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's status, kept when it is serialized. */
    private final int status;
    /** The exception's serviceMessage, kept when it is serialized. */
    private final String serviceMessage;
    /** The exception's retryAfter, kept when it is serialized. */
    private final Duration retryAfter;
    /** The exception's requestId, kept when it is serialized. */
    private final String requestId;

    /**
     * Creates the exception of an error answer.
     *
     * @param message the whole message
     * @param status the HTTP status
     * @param serviceMessage the service's own message (its {@code errors}, joined), or {@code null}
     * @param retryAfter the wait the {@code Retry-After} header asked for, or {@code null}
     * @param requestId the answer's {@code x-request-id}, or {@code null}
     */
    public ApiException(String message, int status, String serviceMessage, Duration retryAfter, String requestId) {
        super(message);
        this.status = status;
        this.serviceMessage = serviceMessage;
        this.retryAfter = retryAfter;
        this.requestId = requestId;
    }

    /**
     * The HTTP status.
     *
     * @return the status
     */
    public int status() {
        return status;
    }

    /**
     * The service's own message: its error body's messages joined with {@code "; "}, a
     * non-JSON body as its text, nothing for an empty body.
     *
     * @return the message, if the service gave one
     */
    public Optional<String> serviceMessage() {
        return Optional.ofNullable(serviceMessage);
    }

    /**
     * The wait the answer's {@code Retry-After} header asked for.
     *
     * @return the wait, if the header was there and readable
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * The answer's {@code x-request-id} header, for the service's support.
     *
     * @return the id, if the answer had one
     */
    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    @Override
    public String kind() {
        return "api";
    }
}
