package dev.inspection.conformance;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.inspection.client.runtime.AsyncPaged;
import dev.inspection.client.runtime.ClientException;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.runtime.Paged;
import dev.inspection.client.runtime.internal.Blocking;

/**
 * The blocking or the async client: how a call's answer is had (a value, or a future
 * awaited) and how a paged list is walked (iterated, or its {@code forEach} awaited).
 */
enum Flavour {
    BLOCKING, ASYNC;

    /** The answer of a call: checked to be a future for the async client, and none for the blocking one. */
    Object value(Object answered) {
        if (this == ASYNC) {
            if (!(answered instanceof CompletableFuture<?> f)) {
                throw new RunnerError("the async client gave a " + name(answered) + ", not a CompletableFuture");
            }
            return Blocking.await(f);
        }
        if (answered instanceof CompletableFuture<?>) {
            throw new RunnerError("the blocking client gave a CompletableFuture");
        }
        return answered;
    }

    private static String name(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    /** Adds every entry of a walk ({@code items}, {@code pages}, backward or not) to {@code into}, as it comes. */
    void walk(Object listing, boolean pages, boolean backward, List<JsonValue> into) {
        if (this == ASYNC) {
            if (!(listing instanceof AsyncPaged<?, ?> a)) {
                throw new RunnerError("the async client's list is a " + name(listing) + ", not an AsyncPaged");
            }
            CompletableFuture<Void> done;
            if (pages) {
                done = backward ? a.forEachPageBackward(p -> into.add(Results.toJson(p)))
                    : a.forEachPage(p -> into.add(Results.toJson(p)));
            } else {
                done = backward ? a.forEachBackward(x -> into.add(Results.toJson(x)))
                    : a.forEach(x -> into.add(Results.toJson(x)));
            }
            Blocking.await(done);
            return;
        }
        if (!(listing instanceof Paged<?, ?> p)) {
            throw new RunnerError("the blocking client's list is a " + name(listing) + ", not a Paged");
        }
        Iterable<?> walk = pages ? (backward ? p.pagesBackward() : p.pages()) : (backward ? p.backward() : p);
        for (Object entry : walk) {
            into.add(Results.toJson(entry));
        }
    }

    /** The first page of a list. */
    Object first(Object listing) {
        if (listing instanceof AsyncPaged<?, ?> a) {
            return value(a.first());
        }
        return ((Paged<?, ?>) listing).first();
    }

    /** The outcome of {@code work}: its result written back as JSON, or the client's error. */
    static Outcome attempt(Supplier<Object> work) {
        try {
            return Outcome.of(Results.toJson(work.get()));
        } catch (RunnerError e) {
            throw e;
        } catch (ClientException e) {
            return Outcome.failed(e);
        }
    }
}
