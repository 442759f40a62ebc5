package {{ package }}.runtime;

/**
 * The client, or a call, was given something it cannot use (a base URL that is not https, a
 * credential a header cannot carry, a resume point of another list); nothing was sent.
 */
public class ConfigException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public ConfigException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "config";
    }
}
