package {{ package }}.runtime;

/**
 * What a client tells of its work: every attempt, answer, retry, pause, page and failure,
 * as a {@link ClientEvent}. Called on the client's threads; keep it quick. An exception it
 * throws is logged and the call goes on. Events never carry a credential, a token, a body or
 * a pre-signed query string.
 *
 * <p>The same events go to {@code System.Logger} (the Java package's name): retries at
 * {@code WARNING} (as the other clients log them), everything else at {@code DEBUG}.
 */
@FunctionalInterface
public interface Hooks {
    /** Hooks that do nothing. */
    Hooks NONE = event -> { };

    /**
     * Called for each event.
     *
     * @param event what happened
     */
    void onEvent(ClientEvent event);
}
