package {{ package }}.runtime;

/**
 * A walk failed at a page past its start; the records before it were given. Its
 * {@link #resume()}, passed to the list method again, walks on from the page that failed;
 * its cause is that page's error.
 */
public final class PagingInterruptedException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The exception's resume, kept when it is serialized. */
    private final String resume;

    /**
     * Creates the exception.
     *
     * @param resume where the walk starts again ({@code cursor:...} or {@code link:...})
     * @param cause the error of the page that failed
     */
    public PagingInterruptedException(String resume, ClientException cause) {
        super("the walk stopped at a page past its start: " + cause.getMessage(), cause);
        this.resume = resume;
    }

    /**
     * Where the walk starts again: give it to the list method's {@code resume}.
     *
     * @return the resume point
     */
    public String resume() {
        return resume;
    }

    /**
     * The error of the page that failed.
     *
     * @return the page's error
     */
    public ClientException pageError() {
        return (ClientException) getCause();
    }

    @Override
    public String kind() {
        return pageError().kind();
    }
}
