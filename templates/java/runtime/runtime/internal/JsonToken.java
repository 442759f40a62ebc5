package {{ package }}.runtime.internal;

/** What comes next in a JSON input, as {@link JsonReader#peek()} tells it. */
public enum JsonToken {
    /** The start of an object: <code>{</code>. */
    BEGIN_OBJECT("an object"),
    /** The end of an object: <code>}</code>. */
    END_OBJECT("the end of an object"),
    /** The start of an array: {@code [}. */
    BEGIN_ARRAY("an array"),
    /** The end of an array: {@code ]}. */
    END_ARRAY("the end of an array"),
    /** An object member's name. */
    NAME("a member name"),
    /** A string value. */
    STRING("a string"),
    /** A number value. */
    NUMBER("a number"),
    /** A {@code true} or {@code false} value. */
    BOOLEAN("a boolean"),
    /** A {@code null} value. */
    NULL("null"),
    /** The end of the input, after the one top-level value. */
    END_DOCUMENT("the end of the input");

    private final String description;

    JsonToken(String description) {
        this.description = description;
    }

    /**
     * Returns how error messages name this token, as in "expected a string, got a number".
     *
     * @return a short phrase such as {@code a number}
     */
    public String description() {
        return description;
    }
}
