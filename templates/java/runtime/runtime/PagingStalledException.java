package {{ package }}.runtime;

/**
 * A walk came back to a page it had already fetched, or met too many empty pages in a row
 * that pointed onwards: it stops rather than loop or end as if complete.
 */
public class PagingStalledException extends ClientException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public PagingStalledException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or {@code null}
     */
    public PagingStalledException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String kind() {
        return "paging_stalled";
    }
}
