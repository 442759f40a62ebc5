package {{ package }}.runtime;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A JSON number, kept as its exact text ({@code 1.10} stays {@code 1.10}, {@code 1E+2} stays
 * {@code 1E+2}).
 *
 * <p>Two numbers are equal when their values are, whatever their text: {@code 1}, {@code 1.0}
 * and {@code 1e0} are equal, and so are {@code 0} and {@code -0} (as with
 * {@link BigDecimal#compareTo}); {@link #hashCode()} agrees.
 *
 * <p>Every number's text is at most 1000 characters and its exponent at most 9999 in
 * magnitude, the limits of the client's JSON reader: so any number can be read back, and
 * {@link BigDecimal} arithmetic on it stays cheap.
 */
public final class JsonNumber implements JsonValue {
    /** The most characters a number's text may have. */
    public static final int MAX_LENGTH = 1000;

    /** The largest magnitude a number's exponent may have. */
    public static final int MAX_EXPONENT = 9999;

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private final String text;
    // Computed when first needed. Racing threads may each compute them, harmlessly: a
    // BigDecimal is safe to share, and the hash is one int, set only when not zero.
    private BigDecimal decimal;
    private int hash;
    private boolean hashIsZero;

    private JsonNumber(String text) {
        this.text = text;
    }

    /**
     * Returns the number of a {@code long}.
     *
     * @param value the value
     * @return the number, written in plain digits
     */
    public static JsonNumber of(long value) {
        return new JsonNumber(Long.toString(value));
    }

    /**
     * Returns the number of a {@link BigDecimal}, written as {@link BigDecimal#toString()}
     * writes it (which may use an exponent, as in {@code 1E+3}).
     *
     * @param value the value
     * @return the number
     * @throws IllegalArgumentException if the text would be longer than {@link #MAX_LENGTH}
     *     or its exponent above {@link #MAX_EXPONENT}
     * @throws NullPointerException if {@code value} is null
     */
    public static JsonNumber of(BigDecimal value) {
        JsonNumber number = parse(value.toString());
        number.decimal = value;
        return number;
    }

    /**
     * Returns the number of a {@code double}, written as {@link Double#toString(double)}
     * writes it (as in {@code 1.0E10}).
     *
     * @param value the value
     * @return the number
     * @throws IllegalArgumentException if {@code value} is NaN or infinite, which JSON cannot
     *     write
     */
    public static JsonNumber of(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("NaN and Infinity are not JSON: " + value);
        }
        return new JsonNumber(Double.toString(value));
    }

    /**
     * Returns the number written as the given JSON text, which is kept exactly.
     *
     * @param text a JSON number, such as {@code -12.50e3}
     * @return the number
     * @throws IllegalArgumentException if {@code text} is not a JSON number, is longer than
     *     {@link #MAX_LENGTH} characters, or has an exponent above {@link #MAX_EXPONENT}
     * @throws NullPointerException if {@code text} is null
     */
    public static JsonNumber parse(String text) {
        String problem = problem(Objects.requireNonNull(text, "text"));
        if (problem != null) {
            throw new IllegalArgumentException(problem + ": \"" + clip(text) + "\"");
        }
        return new JsonNumber(text);
    }

    /**
     * Returns the number's exact text.
     *
     * @return the text, as read or as made
     */
    public String text() {
        return text;
    }

    /**
     * Returns the number as a {@code long} when it is an integer that fits one. A number
     * written with a fraction or an exponent counts when its value is an integer:
     * {@code 1.0} gives 1 and {@code 1e2} gives 100, but {@code 1.5} gives nothing.
     *
     * @return the value, or empty when it is not an integer from {@link Long#MIN_VALUE} to
     *     {@link Long#MAX_VALUE}
     */
    public OptionalLong longValueExact() {
        if (isShortInteger(text)) {
            return OptionalLong.of(Long.parseLong(text));
        }
        BigDecimal value = bigDecimalValue();
        if (value.signum() == 0) {
            return OptionalLong.of(0);
        }
        // More than 19 digits before the point is beyond a long: decided before any costly
        // work on a number such as 1e9999.
        if ((long) value.precision() - value.scale() > 19) {
            return OptionalLong.empty();
        }
        BigDecimal stripped = value.stripTrailingZeros();
        if (stripped.scale() > 0 || stripped.compareTo(LONG_MIN) < 0
                || stripped.compareTo(LONG_MAX) > 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(stripped.longValue());
    }

    /**
     * Returns the number's exact value.
     *
     * @return the value; its scale follows the text ({@code 1.10} has scale 2)
     */
    public BigDecimal bigDecimalValue() {
        BigDecimal value = decimal;
        if (value == null) {
            value = new BigDecimal(text);
            decimal = value;
        }
        return value;
    }

    /**
     * Returns the nearest {@code double} to the number.
     *
     * @return the value, rounded; infinite when beyond a {@code double}'s range
     */
    public double doubleValue() {
        return Double.parseDouble(text);
    }

    /**
     * Tells whether another object is a number of the same value, whatever its text.
     *
     * @param other the object to compare
     * @return true for a {@code JsonNumber} whose value compares equal to this one's
     */
    @Override
    public boolean equals(Object other) {
        if (!(other instanceof JsonNumber)) {
            return false;
        }
        JsonNumber that = (JsonNumber) other;
        return that.text.equals(text) || that.bigDecimalValue().compareTo(bigDecimalValue()) == 0;
    }

    /**
     * Returns a hash of the number's value, the same for every text of that value.
     *
     * @return the hash
     */
    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0 && !hashIsZero) {
            h = bigDecimalValue().stripTrailingZeros().hashCode();
            if (h == 0) {
                hashIsZero = true;
            } else {
                hash = h;
            }
        }
        return h;
    }

    @Override
    public String toString() {
        return text;
    }

    /** Tells whether the text is an optional '-' and 1 to 18 digits: always fits a long. */
    private static boolean isShortInteger(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        int length = text.length() - start;
        if (length < 1 || length > 18) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Returns why the text is not an acceptable JSON number, or null when it is one. */
    private static String problem(String text) {
        if (text.length() > MAX_LENGTH) {
            return "a number may have at most " + MAX_LENGTH + " characters";
        }
        int n = text.length();
        int i = 0;
        if (i < n && text.charAt(i) == '-') {
            i++;
        }
        int digits = countDigits(text, i);
        if (digits == 0 || (text.charAt(i) == '0' && digits > 1)) {
            return "not a JSON number";
        }
        i += digits;
        if (i < n && text.charAt(i) == '.') {
            digits = countDigits(text, i + 1);
            if (digits == 0) {
                return "not a JSON number";
            }
            i += 1 + digits;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            digits = countDigits(text, i);
            if (digits == 0) {
                return "not a JSON number";
            }
            int exponent = 0;
            for (int j = i; j < i + digits && exponent <= MAX_EXPONENT; j++) {
                exponent = exponent * 10 + (text.charAt(j) - '0');
            }
            if (exponent > MAX_EXPONENT) {
                return "a number's exponent may be at most " + MAX_EXPONENT;
            }
            i += digits;
        }
        return i == n ? null : "not a JSON number";
    }

    private static int countDigits(String text, int from) {
        int i = from;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        return i - from;
    }

    private static String clip(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
