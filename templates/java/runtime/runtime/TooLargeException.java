package {{ package }}.runtime;

/**
 * A success body passed the client's {@code maxResponseBytes}; no more than that was read.
 * Documents of any size are downloaded to an {@code OutputStream} instead.
 */
public final class TooLargeException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's limit, kept when it is serialized. */
    private final long limit;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     * @param limit the limit in bytes
     */
    public TooLargeException(String message, long limit) {
        super(message);
        this.limit = limit;
    }

    /**
     * The limit that was passed, in bytes.
     *
     * @return the limit
     */
    public long limit() {
        return limit;
    }

    @Override
    public String kind() {
        return "too_large";
    }
}
