package {{ package }}.runtime;

/**
 * An answer did not fit the documented type: empty, not JSON, or of another shape. Its
 * {@link #path()} is the JSON path of the failure ({@code $.data[0].results[0]}), its
 * cause the runtime's {@link JsonException}.
 */
public final class DecodeException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's status, kept when it is serialized. */
    private final int status;
    /** The exception's path, kept when it is serialized. */
    private final String path;

    /**
     * Creates the exception.
     *
     * @param message what went wrong, the path included
     * @param status the answer's HTTP status
     * @param path the JSON path of the failure ({@code $} for the whole body)
     * @param cause the reader's exception, or {@code null}
     */
    public DecodeException(String message, int status, String path, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.path = path;
    }

    /**
     * The answer's HTTP status (0 for a webhook delivery, which has none).
     *
     * @return the status
     */
    public int status() {
        return status;
    }

    /**
     * The JSON path of the failure, {@code $} for the whole body.
     *
     * @return the path
     */
    public String path() {
        return path;
    }

    @Override
    public String kind() {
        return "decode";
    }
}
