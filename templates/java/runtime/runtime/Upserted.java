package {{ package }}.runtime;

import java.util.Objects;

/**
 * The answer of an upsert: the record, and whether the service created it (201) or
 * replaced an existing one (200).
 *
 * @param <T> the record's type
 */
public final class Upserted<T> {
    private final boolean created;
    private final T value;

    /**
     * Creates the answer.
     *
     * @param created whether the record was created
     * @param value the record
     */
    public Upserted(boolean created, T value) {
        this.created = created;
        this.value = Objects.requireNonNull(value, "value");
    }

    /**
     * Whether the service created the record (201) rather than replaced it (200).
     *
     * @return true for a new record
     */
    public boolean created() {
        return created;
    }

    /**
     * The record.
     *
     * @return the record
     */
    public T value() {
        return value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Upserted<?> u && u.created == created && u.value.equals(value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(created, value);
    }

    @Override
    public String toString() {
        return "Upserted[created=" + created + ", value=" + value + "]";
    }
}
