package {{ package }}.runtime;

import java.util.Objects;

/**
 * A JSON string. Its value may hold unpaired surrogate characters (read from escapes such
 * as <code>&#92;ud800</code>); they are written back as the same escapes.
 */
public final class JsonString implements JsonValue {
    private final String value;

    private JsonString(String value) {
        this.value = value;
    }

    /**
     * Returns the JSON string of a Java one.
     *
     * @param value the text
     * @return the JSON string
     * @throws NullPointerException if {@code value} is null
     */
    public static JsonString of(String value) {
        return new JsonString(Objects.requireNonNull(value, "value"));
    }

    /**
     * Returns this string's text, its escapes decoded.
     *
     * @return the text
     */
    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonString && ((JsonString) other).value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return toJson();
    }
}
