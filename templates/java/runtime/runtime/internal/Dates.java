package {{ package }}.runtime.internal;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Dates and date-times as the service writes them, read without loss: a date stays a date;
 * an offset is kept and none means UTC (the service's times are); a bare date where a
 * date-time is documented is midnight UTC; any number of fractional digits (kept to the
 * nanosecond); {@code T}, {@code t} or a space between date and time. Written back as RFC
 * 3339 ({@code Z} for UTC, fractions only when there are some).
 */
public final class Dates {
    private Dates() {}

    /**
     * A {@code YYYY-MM-DD} date, or {@code null} if the text is not one.
     *
     * @param text the text
     * @return the date, or {@code null}
     */
    public static LocalDate date(String text) {
        return text.length() == 10 ? dateAt(text) : null;
    }

    /**
     * {@link #date} of the first ten characters of {@code text} (at least ten long), read in
     * place: a date-time's date makes no substring.
     */
    private static LocalDate dateAt(String text) {
        if (text.charAt(4) != '-' || text.charAt(7) != '-') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        if (year < 0 || month < 0 || day < 0) {
            return null;
        }
        try {
            return LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /**
     * A date-time as the class comment says, or {@code null} if the text is not one.
     *
     * @param text the text
     * @return the date-time, or {@code null}
     */
    public static OffsetDateTime dateTime(String text) {
        LocalDate day = text.length() >= 10 ? dateAt(text) : null;
        if (day == null) {
            return null;
        }
        if (text.length() == 10) {
            return day.atStartOfDay().atOffset(ZoneOffset.UTC);
        }
        char sep = text.charAt(10);
        if ((sep != 'T' && sep != 't' && sep != ' ') || text.length() < 16 || text.charAt(13) != ':') {
            return null;
        }
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int at = 16;
        int second = 0;
        int nano = 0;
        if (at < text.length() && text.charAt(at) == ':') {
            second = digits(text, at + 1, 2);
            if (second < 0) {
                return null; // cut short, or not digits
            }
            at += 3;
            if (at < text.length() && (text.charAt(at) == '.' || text.charAt(at) == ',')) {
                int start = ++at;
                while (at < text.length() && Character.isDigit(text.charAt(at)) && text.charAt(at) < 128) {
                    at++;
                }
                if (at == start) {
                    return null;
                }
                // The first nine digits, as many zeros after them as make nine: nanoseconds.
                int end = Math.min(at, start + 9);
                for (int i = start; i < start + 9; i++) {
                    nano = nano * 10 + (i < end ? text.charAt(i) - '0' : 0);
                }
            }
        }
        ZoneOffset offset = offset(text, at);
        if (hour < 0 || minute < 0 || second < 0 || offset == null) {
            return null;
        }
        try {
            return OffsetDateTime.of(day.getYear(), day.getMonthValue(), day.getDayOfMonth(), hour, minute, second, nano, offset);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The offset that ends a date-time at {@code at}: none is UTC; {@code null} if malformed. */
    private static ZoneOffset offset(String text, int at) {
        int left = text.length() - at;
        if (left < 0) {
            return null;
        }
        if (left == 0 || left == 1 && (text.charAt(at) == 'Z' || text.charAt(at) == 'z')) {
            return ZoneOffset.UTC; // the usual ends, read without a substring
        }
        String rest = text.substring(at);
        char sign = rest.charAt(0);
        if (sign != '+' && sign != '-') {
            return null;
        }
        String hm = rest.substring(1).replace(":", "");
        // ±hh, ±hhmm or ±hh:mm: a colon only between the hours and the minutes.
        int colon = rest.indexOf(':');
        if (hm.length() != 2 && hm.length() != 4 || colon > 0 && (colon != 3 || rest.length() != 6)) {
            return null;
        }
        int hours = digits(hm, 0, 2);
        int minutes = hm.length() == 4 ? digits(hm, 2, 2) : 0;
        if (hours < 0 || minutes < 0) {
            return null;
        }
        try {
            int total = (hours * 60 + minutes) * 60;
            return ZoneOffset.ofTotalSeconds(sign == '-' ? -total : total);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The {@code count} ASCII digits at {@code at} as a number, or -1. */
    private static int digits(String text, int at, int count) {
        if (at + count > text.length()) {
            return -1;
        }
        int n = 0;
        for (int i = at; i < at + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /**
     * RFC 3339 text of a date-time: {@code Z} for UTC, milliseconds, microseconds or
     * nanoseconds only when there are some.
     *
     * @param value the date-time
     * @return its text
     */
    public static String format(OffsetDateTime value) {
        StringBuilder out = new StringBuilder(35);
        pad(out, value.getYear(), 4).append('-');
        pad(out, value.getMonthValue(), 2).append('-');
        pad(out, value.getDayOfMonth(), 2).append('T');
        pad(out, value.getHour(), 2).append(':');
        pad(out, value.getMinute(), 2).append(':');
        pad(out, value.getSecond(), 2);
        int nano = value.getNano();
        if (nano != 0) {
            out.append('.');
            if (nano % 1_000_000 == 0) {
                pad(out, nano / 1_000_000, 3);
            } else if (nano % 1000 == 0) {
                pad(out, nano / 1000, 6);
            } else {
                pad(out, nano, 9);
            }
        }
        int seconds = value.getOffset().getTotalSeconds();
        if (seconds == 0) {
            return out.append('Z').toString();
        }
        int minutes = Math.abs(seconds) / 60;
        out.append(seconds < 0 ? '-' : '+');
        pad(out, minutes / 60, 2).append(':');
        return pad(out, minutes % 60, 2).toString();
    }

    private static StringBuilder pad(StringBuilder out, int n, int width) {
        String text = Integer.toString(n);
        for (int i = text.length(); i < width; i++) {
            out.append('0');
        }
        return out.append(text);
    }
}
