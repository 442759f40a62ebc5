package {{ package }}.runtime;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import {{ package }}.runtime.internal.Dates;

/**
 * A date-time, or a range of two (sent as a JSON array {@code [from, to]}): what the legacy
 * interface's {@code created_at} filters take.
 */
public final class DateTimeOrRange {
    private final OffsetDateTime from;
    private final OffsetDateTime to;

    private DateTimeOrRange(OffsetDateTime from, OffsetDateTime to) {
        this.from = from;
        this.to = to;
    }

    /**
     * One date-time.
     *
     * @param at the date-time
     * @return the value
     */
    public static DateTimeOrRange at(OffsetDateTime at) {
        return new DateTimeOrRange(Objects.requireNonNull(at, "at"), null);
    }

    /**
     * A range.
     *
     * @param from where it starts
     * @param to where it ends
     * @return the value
     */
    public static DateTimeOrRange between(OffsetDateTime from, OffsetDateTime to) {
        return new DateTimeOrRange(Objects.requireNonNull(from, "from"), Objects.requireNonNull(to, "to"));
    }

    /**
     * The one date-time, or where the range starts.
     *
     * @return the date-time
     */
    public OffsetDateTime from() {
        return from;
    }

    /**
     * Where the range ends; empty for one date-time.
     *
     * @return the end or empty
     */
    public Optional<OffsetDateTime> to() {
        return Optional.ofNullable(to);
    }

    /**
     * The value as JSON: a string, or an array of two.
     *
     * @return the JSON
     */
    public JsonValue toJsonValue() {
        JsonString start = JsonString.of(Dates.format(from));
        return to == null ? start : JsonArray.of(List.of(start, JsonString.of(Dates.format(to))));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DateTimeOrRange d && d.from.equals(from) && Objects.equals(d.to, to);
    }

    @Override
    public int hashCode() {
        return Objects.hash(from, to);
    }

    @Override
    public String toString() {
        return toJsonValue().toJson();
    }
}
