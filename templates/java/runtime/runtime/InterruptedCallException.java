package {{ package }}.runtime;

/**
 * A blocking call's thread was interrupted; the call was cancelled and the thread's
 * interrupt flag is set again.
 */
public class InterruptedCallException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public InterruptedCallException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public InterruptedCallException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "interrupted";
    }
}
