package {{ package }}.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A paged list, for the async client: each method walks the list a page at a time (one page
 * in memory), calling the consumer for each record or page on the client's threads, and
 * completes when the walk ends. A page is fetched only once the consumer has seen the one
 * before; cancelling the future stops the walk.
 *
 * <p>A failure at a page past the walk's start completes the future with a
 * {@link PagingInterruptedException}, after the records before it were given.
 *
 * @param <T> a record
 * @param <P> a page
 */
public interface AsyncPaged<T, P> {
    /**
     * The first page only.
     *
     * @return the page
     */
    CompletableFuture<P> first();

    /**
     * Calls {@code each} with every record of every page, in order.
     *
     * @param each called for each record
     * @return completes when the walk ends
     */
    CompletableFuture<Void> forEach(Consumer<? super T> each);

    /**
     * Calls {@code each} with every page, in order.
     *
     * @param each called for each page
     * @return completes when the walk ends
     */
    CompletableFuture<Void> forEachPage(Consumer<? super P> each);

    /**
     * Calls {@code each} with every record going back through {@code prev} links (lists
     * paged by links only; a cursor list completes with a {@link ConfigException}).
     *
     * @param each called for each record
     * @return completes when the walk ends
     */
    CompletableFuture<Void> forEachBackward(Consumer<? super T> each);

    /**
     * Calls {@code each} with every page going back through {@code prev} links.
     *
     * @param each called for each page
     * @return completes when the walk ends
     */
    CompletableFuture<Void> forEachPageBackward(Consumer<? super P> each);
}
