package {{ package }}.runtime.internal;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import {{ package }}.runtime.ClientOptions.RateLimit;

/**
 * Client-side pacing under the rate limit, shared by every request of one client, and the
 * pause a 429 imposes on all of them: at most {@code requests} sends in any window (a
 * sliding log, so no window of the service's sees more). Waits are scheduled, never slept.
 */
final class Pacer {
    /** The window is taken 0.2 % longer, for the two clocks' rates, and 20 ms, for jitter. */
    private static final double WINDOW_MARGIN = 1.002;
    private static final long WINDOW_SLACK_NANOS = 20_000_000L;

    private final int requests;
    private final long windowNanos;
    private final ArrayDeque<Long> sent = new ArrayDeque<>();
    private long pausedUntil = Long.MIN_VALUE;
    private boolean paused;
    private final ScheduledExecutorService scheduler;

    Pacer(RateLimit limit, ScheduledExecutorService scheduler) {
        this.requests = limit == null ? 0 : limit.requests();
        this.windowNanos = limit == null ? 0 : (long) (limit.window().toNanos() * WINDOW_MARGIN) + WINDOW_SLACK_NANOS;
        this.scheduler = scheduler;
    }

    /**
     * Completes when a request may be sent, recorded as sent. Before each wait,
     * {@code onWait} is told its nanoseconds and whether a 429's pause holds the request.
     */
    CompletableFuture<Void> acquire(BiConsumer<Long, Boolean> onWait) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        tryAcquire(done, onWait);
        return done;
    }

    private void tryAcquire(CompletableFuture<Void> done, BiConsumer<Long, Boolean> onWait) {
        if (done.isDone()) {
            return;
        }
        long wait;
        boolean held;
        synchronized (this) {
            long now = System.nanoTime();
            held = paused && pausedUntil - now > 0;
            wait = reserve(now);
        }
        if (wait <= 0) {
            done.complete(null);
            return;
        }
        if (onWait != null) {
            onWait.accept(wait, held);
        }
        Delays.after(scheduler, wait).thenRun(() -> tryAcquire(done, onWait));
    }

    /** Records a send at {@code now} and gives 0, or the nanoseconds to wait before asking again. */
    private long reserve(long now) {
        if (paused && pausedUntil - now > 0) {
            return pausedUntil - now;
        }
        if (requests == 0) {
            return 0;
        }
        while (!sent.isEmpty() && now - sent.peekFirst() >= windowNanos) {
            sent.pollFirst();
        }
        if (sent.size() < requests) {
            sent.addLast(now);
            return 0;
        }
        return Math.max(TimeUnit.MILLISECONDS.toNanos(1), sent.peekFirst() + windowNanos - now);
    }

    /** Holds every request for {@code nanos} from now (after a 429). */
    synchronized void pauseFor(long nanos) {
        long until = System.nanoTime() + Math.min(nanos, Retries.FOREVER_NANOS);
        if (!paused || until - pausedUntil > 0) {
            pausedUntil = until;
            paused = true;
        }
    }
}
