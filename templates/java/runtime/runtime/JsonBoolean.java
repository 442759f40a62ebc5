package {{ package }}.runtime;

/** A JSON {@code true} or {@code false}. */
public final class JsonBoolean implements JsonValue {
    /** The JSON {@code true}. */
    public static final JsonBoolean TRUE = new JsonBoolean(true);

    /** The JSON {@code false}. */
    public static final JsonBoolean FALSE = new JsonBoolean(false);

    private final boolean value;

    private JsonBoolean(boolean value) {
        this.value = value;
    }

    /**
     * Returns the JSON boolean for a Java one.
     *
     * @param value the boolean
     * @return {@link #TRUE} or {@link #FALSE}
     */
    public static JsonBoolean of(boolean value) {
        return value ? TRUE : FALSE;
    }

    /**
     * Returns this boolean's value.
     *
     * @return the value
     */
    public boolean value() {
        return value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonBoolean && ((JsonBoolean) other).value == value;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(value);
    }

    @Override
    public String toString() {
        return value ? "true" : "false";
    }
}
