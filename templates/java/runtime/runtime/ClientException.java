package {{ package }}.runtime;

/**
 * The base of every exception the client throws, so a caller can catch them all in one place.
 */
public class ClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message.
     *
     * @param message what went wrong
     */
    public ClientException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and the exception that caused it.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null} when there is none
     */
    public ClientException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * What kind of failure this is, as the clients' events and logs name it: {@code api},
     * {@code validation}, {@code transport}, {@code timeout}, {@code decode},
     * {@code not_ready}, {@code too_large}, {@code foreign_origin}, {@code paging_stalled},
     * {@code config}, {@code webhook}, {@code interrupted} or {@code client}.
     *
     * @return the kind's name
     */
    public String kind() {
        return "client";
    }
}
