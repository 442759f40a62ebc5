package {{ package }}.runtime;

/** A webhook delivery's authentication header is missing or wrong. */
public class WebhookException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public WebhookException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public WebhookException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "webhook";
    }
}
