package {{ package }}.runtime;

/**
 * The connection failed or the answer broke off (after the client's retries where they were
 * safe).
 */
public class TransportException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public TransportException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public TransportException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "transport";
    }
}
