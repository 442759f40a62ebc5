package {{ package }}.runtime;

/**
 * No whole answer, body included, came within the attempt's time (after the client's retries
 * where they were safe).
 */
public class RequestTimeoutException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public RequestTimeoutException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public RequestTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "timeout";
    }
}
