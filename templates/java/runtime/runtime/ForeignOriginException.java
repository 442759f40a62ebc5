package {{ package }}.runtime;

/**
 * A next-page link or a redirect led to another origin than the base URL's: the client
 * never sends its credentials there, so the call stops.
 */
public final class ForeignOriginException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's origin, kept when it is serialized. */
    private final String origin;
    /** The exception's via, kept when it is serialized. */
    private final String via;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     * @param origin the other origin ({@code https://other.example}), or what was unreadable
     * @param via {@code link} or {@code redirect}
     */
    public ForeignOriginException(String message, String origin, String via) {
        super(message);
        this.origin = origin;
        this.via = via;
    }

    /**
     * The other origin.
     *
     * @return the origin, {@code scheme://host[:port]}
     */
    public String origin() {
        return origin;
    }

    /**
     * What led there: {@code link} or {@code redirect}.
     *
     * @return the way
     */
    public String via() {
        return via;
    }

    @Override
    public String kind() {
        return "foreign_origin";
    }
}
