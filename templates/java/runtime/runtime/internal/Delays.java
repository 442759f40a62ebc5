package {{ package }}.runtime.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Waits as futures, on the client's scheduler: no thread is parked while a call waits. */
final class Delays {
    private Delays() {
    }

    /** Completes after {@code nanos} (a wait past a day is taken a day at a time, without end). */
    static CompletableFuture<Void> after(ScheduledExecutorService scheduler, long nanos) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (nanos <= 0) {
            done.complete(null);
            return done;
        }
        schedule(scheduler, done, nanos);
        return done;
    }

    private static void schedule(ScheduledExecutorService scheduler, CompletableFuture<Void> done, long nanos) {
        long step = Math.min(nanos, Retries.FOREVER_NANOS);
        try {
            scheduler.schedule(() -> {
                if (nanos > Retries.FOREVER_NANOS) {
                    schedule(scheduler, done, nanos);
                } else {
                    done.complete(null);
                }
            }, step, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new {{ package }}.runtime.ConfigException("the client is closed"));
        }
    }
}
