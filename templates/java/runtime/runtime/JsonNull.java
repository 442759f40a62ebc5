package {{ package }}.runtime;

/** The JSON {@code null}. */
public final class JsonNull implements JsonValue {
    /** The only instance. */
    public static final JsonNull INSTANCE = new JsonNull();

    private JsonNull() {}

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonNull;
    }

    @Override
    public int hashCode() {
        return 0;
    }

    @Override
    public String toString() {
        return "null";
    }
}
