package {{ package }}.runtime;

import java.time.Duration;

/** 404 Not Found: no such record, or none the credentials may see. */
public class NotFoundException extends ApiException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception of an error answer.
     *
     * @param message the whole message
     * @param status the HTTP status
     * @param serviceMessage the service's own message, or {@code null}
     * @param retryAfter the wait the {@code Retry-After} header asked for, or {@code null}
     * @param requestId the answer's {@code x-request-id}, or {@code null}
     */
    public NotFoundException(String message, int status, String serviceMessage, Duration retryAfter, String requestId) {
        super(message, status, serviceMessage, retryAfter, requestId);
    }
}
