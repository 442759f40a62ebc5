package {{ package }}.runtime.internal;

import {{ package }}.runtime.JsonArray;
import {{ package }}.runtime.JsonBoolean;
import {{ package }}.runtime.JsonNull;
import {{ package }}.runtime.JsonNumber;
import {{ package }}.runtime.JsonObject;
import {{ package }}.runtime.JsonString;
import {{ package }}.runtime.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * Writes one JSON value as compact text (no whitespace) into a {@link StringBuilder}; the
 * commas and colons are its own business.
 *
 * <p>Strings are escaped as little as JSON needs: {@code "}, {@code \} and the control
 * characters below U+0020 ({@code \n}, {@code \t}, {@code \r}, {@code \b} and {@code \f} by
 * name, the others as <code>&#92;u00XX</code>). An unpaired surrogate is written as its
 * <code>&#92;uXXXX</code> escape, so that it reads back as itself; a valid pair is written
 * as the character. No HTML escaping: {@code <}, {@code >}, {@code &} and {@code '} are
 * written as they are.
 *
 * <p>A call out of place (a value where a member name is due, a name outside an object, an
 * end that closes nothing, a second top-level value) throws {@link IllegalStateException}
 * and writes nothing. Not thread-safe.
 */
public final class JsonWriter {
    // What the innermost open scope expects next.
    private static final int EMPTY_DOCUMENT = 0;
    private static final int NONEMPTY_DOCUMENT = 1;
    private static final int EMPTY_ARRAY = 2;
    private static final int NONEMPTY_ARRAY = 3;
    private static final int EMPTY_OBJECT = 4;
    private static final int DANGLING_NAME = 5; // a name written, its value not yet
    private static final int NONEMPTY_OBJECT = 6;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder out = new StringBuilder();
    private int[] scopes = new int[16];
    private int depth; // scopes[0] is the document

    /** Creates a writer with nothing written yet. */
    public JsonWriter() {
        scopes[0] = EMPTY_DOCUMENT;
    }

    /**
     * Returns the JSON string literal of a text, quotes included, escaped as this writer
     * escapes strings.
     *
     * @param text the text
     * @return the literal, such as {@code "a\"b"}
     */
    public static String quote(String text) {
        StringBuilder literal = new StringBuilder(text.length() + 2);
        writeString(literal, text);
        return literal.toString();
    }

    /**
     * Opens an array.
     *
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter beginArray() {
        beforeValue();
        push(EMPTY_ARRAY);
        out.append('[');
        return this;
    }

    /**
     * Closes the innermost array.
     *
     * @return this writer
     * @throws IllegalStateException if the innermost open scope is not an array
     */
    public JsonWriter endArray() {
        int scope = scopes[depth];
        if (scope != EMPTY_ARRAY && scope != NONEMPTY_ARRAY) {
            throw new IllegalStateException("endArray() with no array open " + where());
        }
        depth--;
        out.append(']');
        return this;
    }

    /**
     * Opens an object.
     *
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter beginObject() {
        beforeValue();
        push(EMPTY_OBJECT);
        out.append('{');
        return this;
    }

    /**
     * Closes the innermost object.
     *
     * @return this writer
     * @throws IllegalStateException if the innermost open scope is not an object, or a name
     *     was written without its value
     */
    public JsonWriter endObject() {
        int scope = scopes[depth];
        if (scope != EMPTY_OBJECT && scope != NONEMPTY_OBJECT) {
            throw new IllegalStateException(scope == DANGLING_NAME
                    ? "endObject() after a member name, before its value"
                    : "endObject() with no object open " + where());
        }
        depth--;
        out.append('}');
        return this;
    }

    /**
     * Writes a member's name; its value comes next.
     *
     * @param name the name
     * @return this writer
     * @throws IllegalStateException if no object is open, or a name was written without its
     *     value
     * @throws NullPointerException if {@code name} is null
     */
    public JsonWriter name(String name) {
        Objects.requireNonNull(name, "name");
        int scope = scopes[depth];
        if (scope != EMPTY_OBJECT && scope != NONEMPTY_OBJECT) {
            throw new IllegalStateException(scope == DANGLING_NAME
                    ? "name(\"" + name + "\") after a member name, before its value"
                    : "name(\"" + name + "\") with no object open " + where());
        }
        if (scope == NONEMPTY_OBJECT) {
            out.append(',');
        }
        scopes[depth] = DANGLING_NAME;
        writeString(out, name);
        out.append(':');
        return this;
    }

    /**
     * Writes a string.
     *
     * @param value the text
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     * @throws NullPointerException if {@code value} is null (write {@link #nullValue()})
     */
    public JsonWriter value(String value) {
        Objects.requireNonNull(value, "value");
        beforeValue();
        writeString(out, value);
        return this;
    }

    /**
     * Writes an integer.
     *
     * @param value the value
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter value(long value) {
        beforeValue();
        out.append(value);
        return this;
    }

    /**
     * Writes a {@code double}, as {@link Double#toString(double)} writes it.
     *
     * @param value the value
     * @return this writer
     * @throws IllegalArgumentException if {@code value} is NaN or infinite, which JSON cannot
     *     write
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter value(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("NaN and Infinity are not JSON: " + value);
        }
        beforeValue();
        out.append(value);
        return this;
    }

    /**
     * Writes a decimal exactly, as {@link BigDecimal#toString()} writes it (which may use an
     * exponent, as in {@code 1E+3}).
     *
     * @param value the value
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     * @throws NullPointerException if {@code value} is null (write {@link #nullValue()})
     */
    public JsonWriter value(BigDecimal value) {
        Objects.requireNonNull(value, "value");
        beforeValue();
        out.append(value.toString());
        return this;
    }

    /**
     * Writes a boolean.
     *
     * @param value the value
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter value(boolean value) {
        beforeValue();
        out.append(value ? "true" : "false");
        return this;
    }

    /**
     * Writes a number in its exact text.
     *
     * @param value the number
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     * @throws NullPointerException if {@code value} is null (write {@link #nullValue()})
     */
    public JsonWriter value(JsonNumber value) {
        Objects.requireNonNull(value, "value");
        beforeValue();
        out.append(value.text());
        return this;
    }

    /**
     * Writes {@code null}.
     *
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     */
    public JsonWriter nullValue() {
        beforeValue();
        out.append("null");
        return this;
    }

    /**
     * Writes a whole tree, members in their order. Iterative, so any depth of tree is
     * written without a {@link StackOverflowError}.
     *
     * @param value the tree
     * @return this writer
     * @throws IllegalStateException if a value may not come here
     * @throws NullPointerException if {@code value} is null (write {@link #nullValue()})
     */
    public JsonWriter value(JsonValue value) {
        Objects.requireNonNull(value, "value");
        // The open arrays' and objects' iterators, innermost first.
        ArrayDeque<Iterator<?>> open = new ArrayDeque<>();
        JsonValue next = value;
        while (true) {
            if (next instanceof JsonArray) {
                beginArray();
                open.push(((JsonArray) next).elements().iterator());
            } else if (next instanceof JsonObject) {
                beginObject();
                open.push(((JsonObject) next).members().entrySet().iterator());
            } else if (next != null) {
                scalar(next);
            }
            Iterator<?> top = open.peek();
            if (top == null) {
                return this;
            }
            if (!top.hasNext()) {
                open.pop();
                if (scopes[depth] == EMPTY_OBJECT || scopes[depth] == NONEMPTY_OBJECT) {
                    endObject();
                } else {
                    endArray();
                }
                next = null;
            } else {
                Object item = top.next();
                if (item instanceof Map.Entry<?, ?> member) {
                    name((String) member.getKey());
                    next = (JsonValue) member.getValue();
                } else {
                    next = (JsonValue) item;
                }
            }
        }
    }

    /**
     * Returns what has been written: the JSON text, once its value is complete.
     *
     * @return the text written so far
     */
    @Override
    public String toString() {
        return out.toString();
    }

    private void scalar(JsonValue value) {
        if (value instanceof JsonString) {
            value(((JsonString) value).value());
        } else if (value instanceof JsonNumber) {
            value((JsonNumber) value);
        } else if (value instanceof JsonBoolean) {
            value(((JsonBoolean) value).value());
        } else if (value instanceof JsonNull) {
            nullValue();
        }
    }

    private void beforeValue() {
        switch (scopes[depth]) {
            case EMPTY_DOCUMENT -> scopes[depth] = NONEMPTY_DOCUMENT;
            case NONEMPTY_DOCUMENT -> throw new IllegalStateException(
                    "a second top-level value: the document already has its value");
            case EMPTY_ARRAY -> scopes[depth] = NONEMPTY_ARRAY;
            case NONEMPTY_ARRAY -> out.append(',');
            case DANGLING_NAME -> scopes[depth] = NONEMPTY_OBJECT;
            default -> throw new IllegalStateException(
                    "a value where an object expects a member name: call name() first");
        }
    }

    private void push(int scope) {
        if (depth + 1 == scopes.length) {
            scopes = Arrays.copyOf(scopes, scopes.length * 2);
        }
        scopes[++depth] = scope;
    }

    private String where() {
        int scope = scopes[depth];
        return depth == 0 ? "(at the top level)"
                : scope == EMPTY_ARRAY || scope == NONEMPTY_ARRAY ? "(in an array)"
                : "(in an object)";
    }

    /** Appends the quoted, escaped string; unescaped runs are copied in one go. */
    private static void writeString(StringBuilder out, String text) {
        out.append('"');
        int run = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c)) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < n
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++; // a valid pair: the character itself
                continue;
            }
            out.append(text, run, i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF])
                        .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
            }
            run = i + 1;
        }
        out.append(text, run, n).append('"');
    }
}
