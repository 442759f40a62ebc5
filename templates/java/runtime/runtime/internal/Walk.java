package {{ package }}.runtime.internal;

import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import {{ package }}.runtime.ClientException;
import {{ package }}.runtime.ConfigException;
import {{ package }}.runtime.ForeignOriginException;
import {{ package }}.runtime.JsonNumber;
import {{ package }}.runtime.JsonObject;
import {{ package }}.runtime.JsonString;
import {{ package }}.runtime.JsonValue;
import {{ package }}.runtime.PagingInterruptedException;
import {{ package }}.runtime.PagingStalledException;

/**
 * One walk through a paged list, a page at a time: where the next page is (a cursor, a
 * next link, a prev link) is read from the page's JSON by the plan's property names. A walk
 * always ends: a page met twice, or too many empty pages in a row, is an error; a page past
 * the start that fails gives a {@link PagingInterruptedException} naming where to resume.
 *
 * @param <T> a record
 * @param <P> a page
 */
public final class Walk<T, P> {
    private final Core core;
    private final Plan<T, P> plan;
    private final boolean backward;
    private final Set<String> seen = new HashSet<>();
    private Call next;
    private String resume;
    private int number;
    private int emptyInARow;
    private boolean failed;

    /** One fetched page, its records, and the error found working out the next one. */
    static final class Step<T, P> {
        final P page;
        final List<T> items;
        final ClientException error;

        Step(P page, List<T> items, ClientException error) {
            this.page = page;
            this.items = items;
            this.error = error;
        }
    }

    /**
     * How a list's pages are read, written by the generator.
     *
     * @param <T> a record
     * @param <P> a page
     */
    public static final class Plan<T, P> {
        final boolean links;
        final Wire.Reader<P> page;
        final Function<P, List<T>> items;
        final String itemsField;
        final String pagingField;
        final String nextField;
        final String cursorField;
        final String prevField;
        final String pageParam;
        final String pageSizeField;
        final String perPageParam;

        private Plan(boolean links, Wire.Reader<P> page, Function<P, List<T>> items, String itemsField, String pagingField,
                String nextField, String cursorField, String prevField, String pageParam, String pageSizeField,
                String perPageParam) {
            this.links = links;
            this.page = page;
            this.items = items;
            this.itemsField = itemsField;
            this.pagingField = pagingField;
            this.nextField = nextField;
            this.cursorField = cursorField;
            this.prevField = prevField;
            this.pageParam = pageParam;
            this.pageSizeField = pageSizeField;
            this.perPageParam = perPageParam;
        }

        /**
         * Pages of a cursor envelope: {@code {items: [...], paging: {next, cursor, per_page}}}.
         *
         * @param <T> a record
         * @param <P> a page
         * @param page reads a page
         * @param items a page's records
         * @param itemsField the records' property
         * @param pagingField the paging object's property
         * @param nextField the next page's URL in it, or {@code null}
         * @param cursorField the cursor in it, or {@code null}
         * @param pageParam the query parameter a cursor is sent in
         * @param pageSizeField the page size it echoes, or {@code null}
         * @param perPageParam the query parameter of the page size
         * @return the plan
         */
        public static <T, P> Plan<T, P> cursor(Wire.Reader<P> page, Function<P, List<T>> items, String itemsField,
                String pagingField, String nextField, String cursorField, String pageParam, String pageSizeField,
                String perPageParam) {
            return new Plan<>(false, page, items, itemsField, pagingField, nextField, cursorField, null, pageParam,
                pageSizeField, perPageParam);
        }

        /**
         * Pages of an envelope with links: {@code {items: [...], links: {next, prev}}}.
         *
         * @param <T> a record
         * @param <P> a page
         * @param page reads a page
         * @param items a page's records
         * @param itemsField the records' property
         * @param linksField the links object's property
         * @param nextField the next link in it
         * @param prevField the previous link in it
         * @return the plan
         */
        public static <T, P> Plan<T, P> links(Wire.Reader<P> page, Function<P, List<T>> items, String itemsField,
                String linksField, String nextField, String prevField) {
            return new Plan<>(true, page, items, itemsField, linksField, nextField, null, prevField, null, null, null);
        }
    }

    /** A walk from {@code start}: the list's first request, or the page {@code resume} names. */
    Walk(Core core, Plan<T, P> plan, Call start, String resume, boolean backward) {
        this.core = core;
        this.plan = plan;
        this.backward = backward;
        this.resume = resume;
        this.next = start;
    }

    /**
     * The request a resume point ({@code cursor:...} or {@code link:...}) names.
     *
     * @throws ConfigException for text that is not a resume point of this list
     */
    static Call resumedAt(Core core, Plan<?, ?> plan, Call first, String resume) {
        int colon = resume.indexOf(':');
        String kind = colon < 0 ? "" : resume.substring(0, colon);
        String point = colon < 0 ? "" : resume.substring(colon + 1);
        if (kind.equals("cursor") && !point.isEmpty()) {
            if (plan.links) {
                throw new ConfigException(first.op + " pages by links: a cursor cannot resume it");
            }
            return first.with(plan.pageParam, point);
        }
        if (kind.equals("link") && !point.isEmpty()) {
            return first.at(onOrigin(core, first, point, "resume link"));
        }
        String shown = resume.length() > 40 ? resume.substring(0, 40) + "..." : resume;
        throw new ConfigException("'" + shown + "' is not a resume point (cursor:... or link:...)");
    }

    /** Whether the walk has another page to fetch: until the last page, or an error. */
    boolean hasNext() {
        return next != null && !failed;
    }

    /** Fetches the next page; its step may carry an error, raised after its records. */
    CompletableFuture<Step<T, P>> next() {
        Call req = next;
        next = null;
        String at = resume;
        return core.page(req).handle((page, error) -> {
            if (error != null) {
                failed = true;
                Throwable cause = Core.unwrap(error);
                if (at != null && cause instanceof ClientException c) {
                    throw new PagingInterruptedException(at, c);
                }
                throw cause instanceof RuntimeException r ? r : new ClientException(cause.toString());
            }
            return step(req, page);
        });
    }

    private Step<T, P> step(Call req, Core.Page fetched) {
        P page = core.decodePage(fetched.json, fetched.status, plan.page);
        List<T> items = plan.items.apply(page);
        number++;
        core.reporter.page(req.op, number, items.size());
        emptyInARow = items.isEmpty() ? emptyInARow + 1 : 0;
        ClientException error = null;
        if (!items.isEmpty() || !plan.links) {
            try {
                String[] step = nextStep(req, fetched.json, items.size());
                if (step != null && emptyInARow > core.options.maxEmptyPages()) {
                    error = new PagingStalledException(req.op + ": " + emptyInARow
                        + " empty pages in a row, each pointing to another");
                } else if (step != null && !seen.add(step[1])) {
                    error = new PagingStalledException(req.op + ": the walk came back to a page it had fetched");
                } else if (step != null) {
                    next = step[0].equals("cursor") ? req.with(plan.pageParam, step[2]) : req.at(URI.create(step[2]));
                    resume = step[1];
                }
            } catch (ClientException e) {
                error = e;
            }
        }
        if (error != null) {
            failed = true;
            core.reporter.error(req.op, error, fetched.attempt);
        }
        return new Step<>(page, items, error);
    }

    /** {kind, resume point, cursor or URL} of the page after this one, or {@code null}. */
    private String[] nextStep(Call req, JsonValue json, int count) {
        JsonValue holder = member(json, plan.pagingField);
        if (plan.links) {
            String link = text(member(holder, backward ? plan.prevField : plan.nextField));
            return link == null ? null : follow(req, link);
        }
        String link = text(member(holder, plan.nextField));
        if (link != null) {
            return follow(req, link);
        }
        String cursor = text(member(holder, plan.cursorField));
        if (cursor != null) {
            return new String[] {"cursor", "cursor:" + cursor, cursor};
        }
        checkLast(req, holder, count);
        return null;
    }

    private String[] follow(Call req, String link) {
        URI url = onOrigin(core, req, link, "next-page link");
        return new String[] {"link", "link:" + url, url.toString()};
    }

    private static URI onOrigin(Core core, Call req, String link, String what) {
        URI url;
        try {
            url = core.base.resolve(new URI(link));
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            throw new ConfigException("the " + what + " of " + req.op + " is not a URL");
        }
        if (!Origins.sameOrigin(url, core.base)) {
            String origin = url.getHost() == null ? "an unreadable URL" : Origins.origin(url);
            throw new ForeignOriginException("a " + what + " of " + req.op + " leads to " + origin
                + ", another origin: credentials are never sent there", origin, "link");
        }
        return url;
    }

    /**
     * A cursor page with neither a next link nor a cursor ends the walk only when it shows it
     * is the last: empty, a property that leads on there and {@code null}, or fewer records
     * than the page size. Otherwise the list may go on, so the walk stops with an error.
     */
    private void checkLast(Call req, JsonValue holder, int count) {
        if (count == 0) {
            return;
        }
        for (String f : new String[] {plan.nextField, plan.cursorField}) {
            if (f != null && holder instanceof JsonObject o && o.get(f).orElse(null) instanceof {{ package }}.runtime.JsonNull) {
                return;
            }
        }
        Long size = null;
        if (member(holder, plan.pageSizeField) instanceof JsonNumber n && n.longValueExact().isPresent()) {
            size = n.longValueExact().getAsLong();
        } else if (plan.perPageParam != null && req.queryValue(plan.perPageParam) != null
                && req.queryValue(plan.perPageParam).matches("[0-9]{1,9}")) {
            size = Long.parseLong(req.queryValue(plan.perPageParam));
        }
        if (size != null && count < size) {
            return;
        }
        String keys = holder instanceof JsonObject o ? "`" + plan.pagingField + "` {" + String.join(", ", o.members().keySet()) + "}"
            : "no `" + plan.pagingField + "` object";
        throw new PagingStalledException(req.op + ": the page held " + count + " record" + (count == 1 ? "" : "s")
            + " and " + keys + ", but no next link, no cursor, and nothing saying it is the last (a null link, or "
            + "fewer records than the page size); the list may go on, so the walk stops rather than end as if complete");
    }

    private static JsonValue member(JsonValue v, String name) {
        if (name == null || !(v instanceof JsonObject o)) {
            return null;
        }
        return o.get(name).orElse(null);
    }

    private static String text(JsonValue v) {
        return v instanceof JsonString s && !s.value().isEmpty() ? s.value() : null;
    }
}
