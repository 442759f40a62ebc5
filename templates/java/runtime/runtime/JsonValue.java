package {{ package }}.runtime;

import {{ package }}.runtime.internal.JsonReader;
import {{ package }}.runtime.internal.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A JSON value: an immutable tree that keeps member order and the exact text of numbers.
 *
 * <p>Every value's {@code toString()} is its compact JSON text, {@link #toJson()}, and
 * {@code JsonValue.parse(v.toJson())} equals {@code v} (for a tree nested at most 128 deep,
 * the parser's limit). Parsing follows the rules listed on
 * the client's JSON reader: strict RFC 8259 over UTF-8, duplicate member names refused, at
 * most 128 nested arrays and objects, and every problem reported as a {@link JsonException}.
 */
public sealed interface JsonValue
        permits JsonNull, JsonBoolean, JsonNumber, JsonString, JsonArray, JsonObject {

    /**
     * Parses a JSON text.
     *
     * @param json the text
     * @return its value
     * @throws JsonException if the text is not JSON, or holds an unpaired surrogate character
     */
    static JsonValue parse(String json) {
        return parseAll(new JsonReader(json));
    }

    /**
     * Parses JSON from UTF-8 bytes; a leading byte order mark is skipped.
     *
     * @param utf8 the bytes
     * @return their value
     * @throws JsonException if the bytes are not UTF-8 JSON
     */
    static JsonValue parse(byte[] utf8) {
        return parseAll(new JsonReader(utf8));
    }

    /**
     * Reads a stream to its end and parses it as UTF-8 JSON. The stream is not closed.
     *
     * @param in the stream
     * @return the value it holds
     * @throws JsonException if the bytes are not UTF-8 JSON
     * @throws UncheckedIOException if reading fails
     */
    static JsonValue parse(InputStream in) {
        byte[] bytes;
        try {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parse(bytes);
    }

    /**
     * Returns this value as compact JSON text: no whitespace, members in their order, numbers
     * in their exact text.
     *
     * @return the JSON text
     */
    default String toJson() {
        return new JsonWriter().value(this).toString();
    }

    private static JsonValue parseAll(JsonReader reader) {
        JsonValue value = reader.readValue(ParsedTree.INSTANCE);
        reader.end();
        return value;
    }
}
