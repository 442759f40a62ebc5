package {{ package }}.runtime;

import java.util.Objects;

/** One documented limit a request breaks: where, and what the limit is. */
public final class Violation {
    private final String path;
    private final String message;

    /**
     * A violation.
     *
     * @param path the field's path ({@code vin}, {@code items[2].label}; empty: the value itself)
     * @param message what the limit is and what was given
     */
    public Violation(String path, String message) {
        this.path = Objects.requireNonNull(path, "path");
        this.message = Objects.requireNonNull(message, "message");
    }

    /**
     * The field's path.
     *
     * @return the path, empty for the value itself
     */
    public String path() {
        return path;
    }

    /**
     * What the limit is and what was given ({@code must be exactly 17 characters, got 16}).
     *
     * @return the message
     */
    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Violation v && v.path.equals(path) && v.message.equals(message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, message);
    }

    /** {@code path: message}, or the message alone for the value itself. */
    @Override
    public String toString() {
        return path.isEmpty() ? message : path + ": " + message;
    }
}
