package dev.inspection.client.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Dates and date-times read in place (no substring for a date, a fraction or a {@code Z}). */
class DatesTest {

    @Test
    void dateTimesReadAsWritten() {
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 2, 41, 0, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04T16:02:41Z"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 12, 347_000_000, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04T16:05:12.347Z"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 12, 5, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04t16:05:12.000000005z"));
        // Digits past the ninth are dropped, as they were.
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 12, 123_456_789, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04 16:05:12,1234567899"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 0, 0, ZoneOffset.ofHoursMinutes(-5, -30)),
                Dates.dateTime("2026-03-04T16:05-05:30"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 0, 0, ZoneOffset.ofHours(2)),
                Dates.dateTime("2026-03-04T16:05:00+02"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 16, 5, 0, 0, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04T16:05"));
        assertEquals(OffsetDateTime.of(2026, 3, 4, 0, 0, 0, 0, ZoneOffset.UTC),
                Dates.dateTime("2026-03-04"));
        assertEquals(LocalDate.of(2024, 2, 29), Dates.date("2024-02-29"));
    }

    @Test
    void whatIsNotOneIsNull() {
        for (String text : new String[] {"", "2026-03-0", "2026-03-04T", "2026-02-30T10:00:00Z",
                "2026/03/04T10:00:00Z", "2026-03-04X10:00:00Z", "2026-03-04T10:00:00.Z",
                "2026-03-04T10:00:00ZZ", "2026-03-04T10:00:00+2", "2026-03-04T10:00:00+02:0",
                "2026-03-04T1a:00:00Z", "2026-03-04T10:00:00.١Z"}) {
            assertNull(Dates.dateTime(text), text);
        }
        assertNull(Dates.date("2026-03-04T10:00:00Z"));
        assertNull(Dates.date("2026-13-04"));
        // Cut short anywhere in its time: not a date-time, never an exception of the JDK's.
        String whole = "2026-03-04T16:02:45.123+02:00";
        for (int end = 11; end < whole.length(); end++) {
            String cut = whole.substring(0, end);
            // Whole minutes, seconds, a fraction of 1 to 3 digits, an offset of hours.
            boolean valid = java.util.Set.of(16, 19, 21, 22, 23, 26).contains(end);
            assertEquals(valid, Dates.dateTime(cut) != null, cut);
        }
    }
}
