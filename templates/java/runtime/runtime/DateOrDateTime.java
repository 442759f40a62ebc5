package {{ package }}.runtime;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;

import {{ package }}.runtime.internal.Dates;

/**
 * A calendar date or a date-time, whichever the service wrote (a due date may be either):
 * kept as it came, so a date is never turned into midnight of some zone.
 */
public final class DateOrDateTime {
    private final LocalDate date;
    private final OffsetDateTime dateTime;

    private DateOrDateTime(LocalDate date, OffsetDateTime dateTime) {
        this.date = date;
        this.dateTime = dateTime;
    }

    /**
     * A date.
     *
     * @param date the date
     * @return the value
     */
    public static DateOrDateTime of(LocalDate date) {
        return new DateOrDateTime(Objects.requireNonNull(date, "date"), null);
    }

    /**
     * A date-time.
     *
     * @param dateTime the date-time
     * @return the value
     */
    public static DateOrDateTime of(OffsetDateTime dateTime) {
        return new DateOrDateTime(null, Objects.requireNonNull(dateTime, "dateTime"));
    }

    /**
     * The date, when the value is one.
     *
     * @return the date or empty
     */
    public Optional<LocalDate> date() {
        return Optional.ofNullable(date);
    }

    /**
     * The date-time, when the value is one.
     *
     * @return the date-time or empty
     */
    public Optional<OffsetDateTime> dateTime() {
        return Optional.ofNullable(dateTime);
    }

    /**
     * The value as JSON: {@code YYYY-MM-DD} or an RFC 3339 date-time.
     *
     * @return a JSON string
     */
    public JsonValue toJsonValue() {
        return JsonString.of(toString());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DateOrDateTime d && Objects.equals(d.date, date) && Objects.equals(d.dateTime, dateTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(date, dateTime);
    }

    @Override
    public String toString() {
        return date != null ? date.toString() : Dates.format(dateTime);
    }
}
