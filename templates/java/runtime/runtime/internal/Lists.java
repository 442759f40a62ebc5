package {{ package }}.runtime.internal;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import {{ package }}.runtime.AsyncPaged;
import {{ package }}.runtime.ClientException;
import {{ package }}.runtime.ConfigException;
import {{ package }}.runtime.Paged;

/** The blocking and async paged lists, both driving {@link Walk}s of the one core. */
public final class Lists {
    private Lists() {
    }

    /**
     * A blocking paged list.
     *
     * @param <T> a record
     * @param <P> a page
     * @param core the client's core
     * @param plan the list's plan
     * @param first its first request
     * @param resume a resume point, or {@code null}
     * @return the list
     * @throws ConfigException for a resume point that is not one of this list
     */
    public static <T, P> Paged<T, P> blocking(Core core, Walk.Plan<T, P> plan, Call first, String resume) {
        return new BlockingPaged<>(new Start<>(core, plan, first, resume));
    }

    /**
     * An async paged list.
     *
     * @param <T> a record
     * @param <P> a page
     * @param core the client's core
     * @param plan the list's plan
     * @param first its first request
     * @param resume a resume point, or {@code null}
     * @return the list
     * @throws ConfigException for a resume point that is not one of this list
     */
    public static <T, P> AsyncPaged<T, P> async(Core core, Walk.Plan<T, P> plan, Call first, String resume) {
        return new Async<>(new Start<>(core, plan, first, resume));
    }

    /**
     * Where every walk of one list starts: its first request, or the page a resume point
     * names (read once, as the list is made, so a bad one fails there).
     */
    private static final class Start<T, P> {
        final Core core;
        final Walk.Plan<T, P> plan;
        final Call call;
        final String resume;

        Start(Core core, Walk.Plan<T, P> plan, Call first, String resume) {
            this.core = core;
            this.plan = plan;
            this.call = resume == null ? first : Walk.resumedAt(core, plan, first, resume);
            this.resume = resume;
        }

        /** A new walk; backward only for a list paged by links. */
        Walk<T, P> walk(boolean backward) {
            if (backward && !plan.links) {
                throw new ConfigException(call.op + " pages by cursor, which only goes forward; iterate it or use pages()");
            }
            return new Walk<>(core, plan, call, resume, backward);
        }

        @Override
        public String toString() {
            return call.op.toString();
        }
    }

    private static final class BlockingPaged<T, P> implements Paged<T, P> {
        private final Start<T, P> start;

        BlockingPaged(Start<T, P> start) {
            this.start = start;
        }

        @Override
        public P first() {
            return Blocking.await(start.core.json(start.call, start.plan.page));
        }

        @Override
        public Iterator<T> iterator() {
            return new Records<>(new Pages<>(start.walk(false)));
        }

        @Override
        public Iterable<P> pages() {
            return () -> new Pages<>(start.walk(false)).asPages();
        }

        @Override
        public Stream<T> stream() {
            return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED), false);
        }

        @Override
        public Iterable<T> backward() {
            start.walk(true);
            return () -> new Records<>(new Pages<>(start.walk(true)));
        }

        @Override
        public Iterable<P> pagesBackward() {
            start.walk(true);
            return () -> new Pages<>(start.walk(true)).asPages();
        }

        @Override
        public String toString() {
            return "Paged[" + start + "]";
        }
    }

    /** Steps of a walk fetched one at a time, as the iteration asks. */
    private static final class Pages<T, P> {
        private final Walk<T, P> walk;
        private ClientException pending;

        Pages(Walk<T, P> walk) {
            this.walk = walk;
        }

        /** The next step, or {@code null} at the end; an error found after a page is thrown on the next call. */
        Walk.Step<T, P> next() {
            if (pending != null) {
                ClientException e = pending;
                pending = null;
                throw e;
            }
            if (!walk.hasNext()) {
                return null;
            }
            Walk.Step<T, P> step = Blocking.await(walk.next());
            pending = step.error;
            return step;
        }

        Iterator<P> asPages() {
            return new Iterator<>() {
                private Walk.Step<T, P> ahead;
                private boolean done;

                @Override
                public boolean hasNext() {
                    if (ahead == null && !done) {
                        ahead = Pages.this.next();
                        done = ahead == null;
                    }
                    return ahead != null;
                }

                @Override
                public P next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    P page = ahead.page;
                    ahead = null;
                    return page;
                }
            };
        }
    }

    private static final class Records<T, P> implements Iterator<T> {
        private final Pages<T, P> pages;
        private Iterator<T> current = List.<T>of().iterator();
        private boolean done;

        Records(Pages<T, P> pages) {
            this.pages = pages;
        }

        @Override
        public boolean hasNext() {
            while (!current.hasNext() && !done) {
                Walk.Step<T, P> step = pages.next();
                if (step == null) {
                    done = true;
                } else {
                    current = step.items.iterator();
                }
            }
            return current.hasNext();
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return current.next();
        }
    }

    private static final class Async<T, P> implements AsyncPaged<T, P> {
        private final Start<T, P> start;

        Async(Start<T, P> start) {
            this.start = start;
        }

        @Override
        public CompletableFuture<P> first() {
            return start.core.json(start.call, start.plan.page);
        }

        @Override
        public CompletableFuture<Void> forEach(Consumer<? super T> each) {
            return walk(false, step -> step.items.forEach(each));
        }

        @Override
        public CompletableFuture<Void> forEachPage(Consumer<? super P> each) {
            return walk(false, step -> each.accept(step.page));
        }

        @Override
        public CompletableFuture<Void> forEachBackward(Consumer<? super T> each) {
            return walk(true, step -> step.items.forEach(each));
        }

        @Override
        public CompletableFuture<Void> forEachPageBackward(Consumer<? super P> each) {
            return walk(true, step -> each.accept(step.page));
        }

        private CompletableFuture<Void> walk(boolean backward, Consumer<Walk.Step<T, P>> each) {
            Walk<T, P> walk;
            try {
                walk = start.walk(backward);
            } catch (ConfigException e) {
                return CompletableFuture.failedFuture(e);
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            step(walk, each, done);
            return done;
        }

        private void step(Walk<T, P> walk, Consumer<Walk.Step<T, P>> each, CompletableFuture<Void> done) {
            if (done.isDone()) {
                return;
            }
            if (!walk.hasNext()) {
                done.complete(null);
                return;
            }
            walk.next().whenComplete((s, e) -> {
                if (e != null) {
                    done.completeExceptionally(Core.unwrap(e));
                    return;
                }
                try {
                    each.accept(s);
                } catch (RuntimeException x) {
                    done.completeExceptionally(x);
                    return;
                }
                if (s.error != null) {
                    done.completeExceptionally(s.error);
                    return;
                }
                step(walk, each, done);
            });
        }

        @Override
        public String toString() {
            return "AsyncPaged[" + start + "]";
        }
    }
}
