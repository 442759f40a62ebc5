package {{ package }}.runtime.internal;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import {{ package }}.runtime.JsonArray;
import {{ package }}.runtime.JsonException;
import {{ package }}.runtime.JsonObject;
import {{ package }}.runtime.JsonString;
import {{ package }}.runtime.JsonValue;

/** The retry policy's arithmetic and the reading of error answers, as every client has them. */
final class Retries {
    /** Longer than any wait is taken as "for ever" (a day at a time). */
    static final long FOREVER_NANOS = Duration.ofDays(1).toNanos();

    private Retries() {
    }

    /**
     * The wait before retry number {@code retry} (1-based): half of the exponential step
     * {@code min(initial * 2^(retry-1), max)} plus a random share of the other half.
     */
    static Duration backoff(int retry, Duration initial, Duration max) {
        int exponent = Math.min(Math.max(retry - 1, 0), 30);
        long step = Math.min(saturatedShift(initial.toNanos(), exponent), max.toNanos());
        long half = step / 2;
        return Duration.ofNanos(half + (long) (half * ThreadLocalRandom.current().nextDouble()));
    }

    private static long saturatedShift(long nanos, int exponent) {
        return nanos > (Long.MAX_VALUE >> exponent) ? Long.MAX_VALUE : nanos << exponent;
    }

    /** Whether repeating a request with {@code method} cannot apply it twice (RFC 9110). */
    static boolean idempotent(String method) {
        return switch (method) {
            case "GET", "HEAD", "OPTIONS", "PUT", "DELETE" -> true;
            default -> false;
        };
    }

    /**
     * The wait a {@code Retry-After} header asks for: delay-seconds or an HTTP date (one in
     * the past is zero); {@code null} when absent or unreadable. Seconds too many for a
     * {@code Duration} are taken as the longest one.
     */
    static Duration retryAfter(HttpHeaders headers, String name) {
        Optional<String> found = headers.firstValue(name);
        if (found.isEmpty()) {
            return null;
        }
        String value = found.get().trim();
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (value.length() > 15) {
                return Duration.ofSeconds(Long.MAX_VALUE / 2);
            }
            return Duration.ofSeconds(Long.parseLong(value));
        }
        try {
            ZonedDateTime when = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
            Duration wait = Duration.between(ZonedDateTime.now(when.getZone()), when);
            return wait.isNegative() ? Duration.ZERO : wait;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Whole seconds of a wait, rounded up (as the errors quote a {@code Retry-After}). */
    static long seconds(Duration d) {
        long s = d.getSeconds();
        return d.getNano() > 0 ? s + 1 : s;
    }

    /**
     * The service's message in an error body: the {@code field} of a JSON object (an array
     * joined with {@code "; "}), a non-JSON body as its text, {@code null} for an empty body.
     */
    static String errorMessage(byte[] body, String field) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return null;
        }
        try {
            JsonValue json = JsonValue.parse(body);
            if (json instanceof JsonObject o) {
                Optional<JsonValue> v = o.get(field);
                if (v.isPresent()) {
                    String joined = joined(v.get());
                    if (joined != null) {
                        return joined;
                    }
                }
            }
        } catch (JsonException e) {
            return text.strip();
        }
        return text.strip();
    }

    private static String joined(JsonValue v) {
        if (v instanceof JsonString s) {
            return s.value();
        }
        if (v instanceof JsonArray a) {
            List<String> parts = new ArrayList<>();
            for (JsonValue e : a.elements()) {
                parts.add(e instanceof JsonString s ? s.value() : e.toJson());
            }
            return String.join("; ", parts);
        }
        return null;
    }
}
