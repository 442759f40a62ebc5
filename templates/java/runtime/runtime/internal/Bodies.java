package {{ package }}.runtime.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Bodies read with a bound: at most {@code limit} bytes are kept, and the exchange is
 * cancelled as soon as more arrive, so a huge answer is never read whole.
 */
final class Bodies {
    private Bodies() {
    }

    /** What a bounded read got: the bytes, and whether the body went on past the limit. */
    static final class Read {
        final byte[] bytes;
        final boolean over;
        /** For a body written to a stream: how many bytes were written. */
        final long written;

        Read(byte[] bytes, boolean over) {
            this(bytes, over, 0);
        }

        Read(byte[] bytes, boolean over, long written) {
            this.bytes = bytes;
            this.over = over;
            this.written = written;
        }
    }

    /**
     * A subscriber writing the body to {@code out} as it arrives (bounded memory whatever
     * its size), counting into {@code written}; a write that fails cancels the exchange.
     */
    static HttpResponse.BodySubscriber<Read> streaming(java.io.OutputStream out, java.util.concurrent.atomic.AtomicLong written,
            java.util.concurrent.atomic.AtomicReference<java.io.IOException> failed) {
        return new Streaming(out, written, failed);
    }

    /**
     * What both subscribers share: the result they complete, the subscription they pace or
     * cancel (asked for {@code demand} items at first), and a failure of the exchange.
     */
    private abstract static class Subscriber implements HttpResponse.BodySubscriber<Read> {
        private final long demand;
        final CompletableFuture<Read> result = new CompletableFuture<>();
        Flow.Subscription subscription;

        Subscriber(long demand) {
            this.demand = demand;
        }

        @Override
        public CompletionStage<Read> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            this.subscription = s;
            s.request(demand);
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }
    }

    private static final class Streaming extends Subscriber {
        private final java.io.OutputStream out;
        private final java.util.concurrent.atomic.AtomicLong written;
        private final java.util.concurrent.atomic.AtomicReference<java.io.IOException> failed;

        Streaming(java.io.OutputStream out, java.util.concurrent.atomic.AtomicLong written,
                java.util.concurrent.atomic.AtomicReference<java.io.IOException> failed) {
            // One chunk at a time (see onNext).
            super(1);
            this.out = out;
            this.written = written;
            this.failed = failed;
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            try {
                for (ByteBuffer b : buffers) {
                    byte[] chunk = new byte[b.remaining()];
                    b.get(chunk);
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
            } catch (java.io.IOException e) {
                // The caller's stream failed, not the connection: the call ends here.
                failed.set(e);
                result.completeExceptionally(e);
                subscription.cancel();
                return;
            }
            // One chunk at a time: the stream sets the pace, memory stays bounded.
            subscription.request(1);
        }

        @Override
        public void onComplete() {
            result.complete(new Read(new byte[0], false, written.get()));
        }
    }

    /** A subscriber keeping at most {@code limit} bytes; past that it cancels and completes. */
    static HttpResponse.BodySubscriber<Read> limited(long limit) {
        return new Limited(limit);
    }

    private static final class Limited extends Subscriber {
        private final long limit;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Limited(long limit) {
            // Everything: the limit, not the pace, bounds what is kept.
            super(Long.MAX_VALUE);
            this.limit = limit;
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer b : buffers) {
                int n = b.remaining();
                long room = limit - out.size();
                if (n > room) {
                    byte[] part = new byte[(int) room];
                    b.get(part);
                    out.write(part, 0, part.length);
                    result.complete(new Read(out.toByteArray(), true));
                    subscription.cancel();
                    return;
                }
                byte[] all = new byte[n];
                b.get(all);
                out.write(all, 0, n);
            }
        }

        @Override
        public void onComplete() {
            result.complete(new Read(out.toByteArray(), false));
        }
    }
}
