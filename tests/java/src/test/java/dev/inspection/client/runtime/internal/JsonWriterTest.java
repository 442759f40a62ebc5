package dev.inspection.client.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The writer: compact output, minimal escaping, misuse refused, round trips. */
class JsonWriterTest {

    static Stream<Arguments> escapes() {
        return Stream.of(
                Arguments.of("plain", "abc", "\"abc\""),
                Arguments.of("quote", "a\"b", "\"a\\\"b\""),
                Arguments.of("backslash", "a\\b", "\"a\\\\b\""),
                Arguments.of("newline", "\n", "\"\\n\""),
                Arguments.of("tab", "\t", "\"\\t\""),
                Arguments.of("carriage return", "\r", "\"\\r\""),
                Arguments.of("backspace", "\b", "\"\\b\""),
                Arguments.of("form feed", "\f", "\"\\f\""),
                Arguments.of("NUL", "\u0000", "\"\\u0000\""),
                Arguments.of("unit separator", "\u001f", "\"\\u001f\""),
                Arguments.of("DEL as is", "\u007f", "\"\u007f\""),
                Arguments.of("slash as is", "a/b", "\"a/b\""),
                Arguments.of("no HTML escaping", "<b>&'</b>", "\"<b>&'</b>\""),
                Arguments.of("line separator as is", "\u2028\u2029", "\"\u2028\u2029\""),
                Arguments.of("non-ASCII as is", "\u00e9\u20ac", "\"\u00e9\u20ac\""),
                Arguments.of("surrogate pair as is", "\uD83D\uDE00", "\"\uD83D\uDE00\""),
                Arguments.of("lone high surrogate", "\uD800", "\"\\ud800\""),
                Arguments.of("lone low surrogate", "x\uDC00y", "\"x\\udc00y\""),
                Arguments.of("high surrogate at the end", "a\uDBFF", "\"a\\udbff\""),
                Arguments.of("high before a non-low", "\uD800a", "\"\\ud800a\""),
                Arguments.of("high before a pair", "\uD800\uD83D\uDE00", "\"\\ud800\uD83D\uDE00\""),
                Arguments.of("reversed pair", "\uDE00\uD83D", "\"\\ude00\\ud83d\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void escapesStringsMinimally(String name, String text, String json) {
        assertEquals(json, new JsonWriter().value(text).toString());
        assertEquals(json, JsonWriter.quote(text));
        // and it reads back as the same text
        assertEquals(text, ((JsonString) JsonValue.parse(json)).value());
    }

    @Test
    void writesCompactlyWithCommasAndColons() {
        String json = new JsonWriter().beginObject()
                .name("a").beginArray().value(1).value(true).nullValue().value("x")
                .value(new BigDecimal("1.10")).value(JsonNumber.parse("1E+2")).value(-2.5)
                .endArray()
                .name("b").beginObject().endObject()
                .name("c\"").value(false)
                .name("d").value(JsonValue.parse("[{\"e\":[]},{}]"))
                .endObject().toString();
        assertEquals("{\"a\":[1,true,null,\"x\",1.10,1E+2,-2.5],\"b\":{},\"c\\\"\":false,"
                + "\"d\":[{\"e\":[]},{}]}", json);
    }

    @Test
    void decimalsKeepTheirExactText() {
        assertEquals("12345678901234567890.000001",
                new JsonWriter().value(new BigDecimal("12345678901234567890.000001")).toString());
        assertEquals("1E+3", new JsonWriter().value(new BigDecimal("1E+3")).toString());
        assertThrows(IllegalArgumentException.class, () -> new JsonWriter().value(Double.NaN));
        assertThrows(IllegalArgumentException.class,
                () -> new JsonWriter().value(Double.NEGATIVE_INFINITY));
    }

    static Stream<Arguments> misuse() {
        return Stream.of(
                misuse("second top-level value", w -> w.value(1), w -> w.value(2)),
                misuse("value where a name is due", JsonWriter::beginObject, w -> w.value("x")),
                misuse("array where a name is due", JsonWriter::beginObject, JsonWriter::beginArray),
                misuse("name at the top level", w -> { }, w -> w.name("a")),
                misuse("name in an array", JsonWriter::beginArray, w -> w.name("a")),
                misuse("two names in a row", w -> w.beginObject().name("a"), w -> w.name("b")),
                misuse("endObject after a dangling name", w -> w.beginObject().name("a"),
                        JsonWriter::endObject),
                misuse("endArray closing an object", JsonWriter::beginObject, JsonWriter::endArray),
                misuse("endObject closing an array", JsonWriter::beginArray, JsonWriter::endObject),
                misuse("endArray with nothing open", w -> { }, JsonWriter::endArray),
                misuse("endObject after the document", w -> w.beginObject().endObject(),
                        JsonWriter::endObject));
    }

    private static Arguments misuse(String name, Consumer<JsonWriter> setUp,
            Consumer<JsonWriter> wrong) {
        return Arguments.of(name, setUp, wrong);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("misuse")
    void misuseThrowsIllegalStateAndWritesNothing(String name, Consumer<JsonWriter> setUp,
            Consumer<JsonWriter> wrong) {
        JsonWriter writer = new JsonWriter();
        setUp.accept(writer);
        String before = writer.toString();
        assertThrows(IllegalStateException.class, () -> wrong.accept(writer));
        assertEquals(before, writer.toString());
    }

    @Test
    void nullsAreRefusedRatherThanWrittenAsText() {
        assertThrows(NullPointerException.class, () -> new JsonWriter().value((String) null));
        assertThrows(NullPointerException.class,
                () -> new JsonWriter().beginObject().name(null));
    }

    @Test
    void deepTreesAreWrittenWithoutRecursion() {
        JsonValue value = JsonArray.of(List.of());
        for (int i = 0; i < 100_000; i++) {
            value = i % 2 == 0 ? JsonArray.of(List.of(value))
                    : JsonObject.builder().put("k", value).build();
        }
        String json = value.toJson();
        // 50 000 objects of {"k":...} and 50 000 arrays around the innermost []
        assertEquals(50_000 * 6 + 50_000 * 2 + 2, json.length());
        assertEquals("{\"k\":[{\"k\":[", json.substring(0, 12));
        // ...which the reader refuses for its depth, at the 129th container: after 64 objects
        // and 64 arrays
        JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(json));
        assertEquals(64 * 5 + 64, e.offset());
        assertEquals("nested too deeply: more than 128 arrays and objects", e.reason());
    }

    static Stream<Path> fixtures() {
        return Inputs.fixtures().stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void fixturesRoundTrip(Path fixture) {
        JsonValue value = JsonValue.parse(Inputs.read(fixture));
        String json = value.toJson();
        JsonValue again = JsonValue.parse(json);
        assertEquals(value, again);
        assertEquals(json, again.toJson());
        assertEquals(value.hashCode(), again.hashCode());
        // and writing through the pull reader gives the same text
        assertEquals(json, copy(new JsonReader(Inputs.read(fixture))));
    }

    /** Copies a document token by token, as generated code does. */
    private static String copy(JsonReader reader) {
        JsonWriter writer = new JsonWriter();
        int open = 0;
        do {
            switch (reader.peek()) {
                case BEGIN_ARRAY -> { reader.beginArray(); writer.beginArray(); open++; }
                case END_ARRAY -> { reader.endArray(); writer.endArray(); open--; }
                case BEGIN_OBJECT -> { reader.beginObject(); writer.beginObject(); open++; }
                case END_OBJECT -> { reader.endObject(); writer.endObject(); open--; }
                case NAME -> writer.name(reader.nextName());
                case STRING -> writer.value(reader.nextString());
                case NUMBER -> writer.value(reader.nextNumber());
                case BOOLEAN -> writer.value(reader.nextBoolean());
                case NULL -> { reader.nextNull(); writer.nullValue(); }
                case END_DOCUMENT -> throw new AssertionError("early end");
            }
        } while (open > 0);
        reader.end();
        return writer.toString();
    }
}
