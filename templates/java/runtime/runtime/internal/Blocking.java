package {{ package }}.runtime.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import {{ package }}.runtime.ClientException;
import {{ package }}.runtime.InterruptedCallException;

/** The blocking client's one wait: a future of the core awaited, interrupts honoured. */
public final class Blocking {
    private Blocking() {
    }

    /**
     * Waits for {@code future}; its exception is rethrown as it is. An interrupt cancels the
     * call and sets the thread's interrupt flag again.
     *
     * @param <T> the result's type
     * @param future the call
     * @return its result
     */
    public static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedCallException("the call was interrupted and cancelled", e);
        } catch (CancellationException e) {
            throw new InterruptedCallException("the call was cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = Core.unwrap(e);
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new ClientException(cause.toString(), cause);
        }
    }
}
