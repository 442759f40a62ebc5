package {{ package }}.runtime;

import java.util.stream.Stream;

/**
 * A paged list, for the blocking client. Iterating it walks every record of every page,
 * fetching a page only when the records before it are used up (one page in memory at a
 * time); {@link #pages()} gives the pages, {@link #first()} the first one. Each walk starts
 * again from the first request, or the resume point the list was given.
 *
 * <p>A walk that fails at a page past its start throws a {@link PagingInterruptedException}
 * after the records before it; its {@code resume()}, given to the list method again, walks on
 * from that page. A page met twice, or too many empty pages in a row that point onwards, is a
 * {@link PagingStalledException}: a walk always ends.
 *
 * @param <T> a record
 * @param <P> a page
 */
public interface Paged<T, P> extends Iterable<T> {
    /**
     * The first page only (the resume point's page, when the list was given one).
     *
     * @return the page
     */
    P first();

    /**
     * Every page, in order, fetched as the iteration reaches it.
     *
     * @return the pages
     */
    Iterable<P> pages();

    /**
     * Every record as a sequential, lazy stream (close it to stop early; nothing is left open).
     *
     * @return the records
     */
    Stream<T> stream();

    /**
     * Every record going back through {@code prev} links (lists paged by links only).
     *
     * @return the records
     * @throws ConfigException for a list paged by cursor, which only goes forward
     */
    Iterable<T> backward();

    /**
     * Every page going back through {@code prev} links (lists paged by links only).
     *
     * @return the pages
     * @throws ConfigException for a list paged by cursor
     */
    Iterable<P> pagesBackward();
}
