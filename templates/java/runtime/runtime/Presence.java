package {{ package }}.runtime;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * A property that may be absent, sent or read as an explicit {@code null}, or hold a value:
 * the three states the service tells apart for its nullable properties (absent leaves a
 * stored value alone on an update; {@code null} clears it).
 *
 * @param <T> the value's type
 */
public final class Presence<T> {
    private static final Presence<?> ABSENT = new Presence<>(State.ABSENT, null);
    private static final Presence<?> NULL = new Presence<>(State.NULL, null);

    /** Which of the three states a {@link Presence} is in. */
    public enum State {
        /** Not sent, or not in the answer. */
        ABSENT,
        /** Sent or read as JSON {@code null}. */
        NULL,
        /** A value. */
        VALUE
    }

    private final State state;
    private final T value;

    private Presence(State state, T value) {
        this.state = state;
        this.value = value;
    }

    /**
     * The absent property.
     *
     * @param <T> the value's type
     * @return the absent state
     */
    @SuppressWarnings("unchecked")
    public static <T> Presence<T> absent() {
        return (Presence<T>) ABSENT;
    }

    /**
     * The explicit {@code null}.
     *
     * @param <T> the value's type
     * @return the null state
     */
    @SuppressWarnings("unchecked")
    public static <T> Presence<T> ofNull() {
        return (Presence<T>) NULL;
    }

    /**
     * A value.
     *
     * @param <T> the value's type
     * @param value the value, never {@code null} (use {@link #ofNull()})
     * @return the value state
     * @throws NullPointerException if {@code value} is {@code null}
     */
    public static <T> Presence<T> of(T value) {
        return new Presence<>(State.VALUE, Objects.requireNonNull(value, "value"));
    }

    /**
     * The state.
     *
     * @return absent, null or a value
     */
    public State state() {
        return state;
    }

    /**
     * Whether the property is absent.
     *
     * @return {@code true} when absent
     */
    public boolean isAbsent() {
        return state == State.ABSENT;
    }

    /**
     * Whether the property is an explicit {@code null}.
     *
     * @return {@code true} when null
     */
    public boolean isNull() {
        return state == State.NULL;
    }

    /**
     * Whether the property holds a value.
     *
     * @return {@code true} when it holds one
     */
    public boolean isPresent() {
        return state == State.VALUE;
    }

    /**
     * The value.
     *
     * @return the value
     * @throws NoSuchElementException when absent or null
     */
    public T get() {
        if (state != State.VALUE) {
            throw new NoSuchElementException("no value: the property is " + (isNull() ? "null" : "absent"));
        }
        return value;
    }

    /**
     * The value, if there is one: absent and {@code null} are both empty.
     *
     * @return the value or empty
     */
    public Optional<T> toOptional() {
        return Optional.ofNullable(value);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Presence<?> p && p.state == state && Objects.equals(p.value, value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(state, value);
    }

    @Override
    public String toString() {
        return state == State.VALUE ? "Presence[" + value + "]" : "Presence." + state;
    }
}
