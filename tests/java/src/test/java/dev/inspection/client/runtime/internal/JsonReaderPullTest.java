package dev.inspection.client.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonValue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pull API: tokens, paths, skipping, and calls that do not fit the input. */
class JsonReaderPullTest {

    @Test
    void nextStringOnANumberNamesExpectedFoundAndPath() {
        JsonReader reader = new JsonReader("{\"a\": 12}");
        reader.beginObject();
        assertEquals("a", reader.nextName());
        JsonException e = assertThrows(JsonException.class, reader::nextString);
        assertEquals("expected a string, got a number", e.reason());
        assertEquals("$.a", e.path());
        assertEquals(6, e.offset());
        assertEquals(1, e.line());
        assertEquals(7, e.column());
        assertEquals("$.a: expected a string, got a number (line 1, column 7, byte 6)",
                e.getMessage());
    }

    @Test
    void mismatchesInArraysNameTheIndex() {
        JsonReader reader = new JsonReader("[1, true, null]");
        reader.beginArray();
        assertEquals(1, reader.nextNumber().longValueExact().getAsLong());
        JsonException e = assertThrows(JsonException.class, reader::nextNull);
        assertEquals("$[1]", e.path());
        assertEquals("expected null, got a boolean", e.reason());
        assertTrue(reader.nextBoolean());
        e = assertThrows(JsonException.class, reader::beginObject);
        assertEquals("expected an object, got null", e.reason());
        assertEquals("$[2]", e.path());
        reader.nextNull();
        e = assertThrows(JsonException.class, reader::endObject);
        assertEquals("expected the end of an object, got the end of an array", e.reason());
        reader.endArray();
        e = assertThrows(JsonException.class, reader::nextString);
        assertEquals("expected a string, got the end of the input", e.reason());
        reader.end();
    }

    @Test
    void pathReportsNamesAndIndices() {
        JsonReader reader = new JsonReader("{\"a\":[0,1,{\"b\":\"x\"}],\"c d\":{\"\":1}}");
        assertEquals("$", reader.path());
        reader.beginObject();
        reader.nextName();
        assertEquals("$.a", reader.path());
        reader.beginArray();
        assertEquals("$.a[0]", reader.path());
        reader.nextNumber();
        reader.nextNumber();
        assertEquals("$.a[2]", reader.path());
        reader.beginObject();
        assertEquals("b", reader.nextName());
        assertEquals("$.a[2].b", reader.path());
        assertEquals("x", reader.nextString());
        reader.endObject();
        reader.endArray();
        assertEquals("c d", reader.nextName());
        assertEquals("$[\"c d\"]", reader.path());
        reader.beginObject();
        reader.nextName();
        assertEquals("$[\"c d\"][\"\"]", reader.path());
        reader.skipValue();
        reader.endObject();
        reader.endObject();
        reader.end();
        assertEquals("$", reader.path());
    }

    @Test
    void skipValueSkipsNestedValues() {
        JsonReader reader = new JsonReader(
                "{\"a\":{\"b\":[1,{\"c\":null},[[]]],\"d\":\"x\\n\"},\"e\":2,\"f\":[3]}");
        reader.beginObject();
        assertEquals("a", reader.nextName());
        reader.skipValue();
        assertEquals("e", reader.nextName());
        assertEquals("2", reader.nextNumber().text());
        reader.skipValue(); // at a name: the name and its value
        assertFalse(reader.hasNext());
        reader.endObject();
        reader.end();
    }

    @Test
    void skipValueStillChecksWhatItSkips() {
        JsonReader duplicate = new JsonReader("[{\"a\":1,\"a\":2}]");
        duplicate.beginArray();
        JsonException e = assertThrows(JsonException.class, duplicate::skipValue);
        assertTrue(e.reason().contains("duplicate member name \"a\""), e.getMessage());
        JsonReader badNumber = new JsonReader("[[01]]");
        badNumber.beginArray();
        assertThrows(JsonException.class, badNumber::skipValue);
        JsonReader atEnd = new JsonReader("[]");
        atEnd.beginArray();
        e = assertThrows(JsonException.class, atEnd::skipValue);
        assertEquals("expected a value, got the end of an array", e.reason());
    }

    @Test
    void hasNextWalksArraysAndObjects() {
        JsonReader reader = new JsonReader("[\"a\",\"b\",{\"k\":true,\"l\":false}]");
        List<String> seen = new ArrayList<>();
        reader.beginArray();
        while (reader.peek() == JsonToken.STRING) {
            seen.add(reader.nextString());
        }
        reader.beginObject();
        while (reader.hasNext()) {
            seen.add(reader.nextName() + "=" + reader.nextBoolean());
        }
        reader.endObject();
        assertFalse(reader.hasNext());
        reader.endArray();
        assertEquals(JsonToken.END_DOCUMENT, reader.peek());
        assertEquals(List.of("a", "b", "k=true", "l=false"), seen);
    }

    @Test
    void peekDoesNotConsume() {
        JsonReader reader = new JsonReader(" [ 1 ] ");
        assertEquals(JsonToken.BEGIN_ARRAY, reader.peek());
        assertEquals(JsonToken.BEGIN_ARRAY, reader.peek());
        reader.beginArray();
        assertEquals(JsonToken.NUMBER, reader.peek());
        assertEquals(JsonToken.NUMBER, reader.peek());
        assertEquals("1", reader.nextNumber().text());
        assertEquals(JsonToken.END_ARRAY, reader.peek());
        reader.endArray();
        reader.end();
    }

    @Test
    void readValueReadsASubtreeMidStream() {
        JsonReader reader = new JsonReader("{\"id\":7,\"extra\":{\"x\":[1,2],\"y\":null},\"z\":0}");
        reader.beginObject();
        reader.nextName();
        reader.skipValue();
        assertEquals("extra", reader.nextName());
        assertEquals(JsonValue.parse("{\"x\":[1,2],\"y\":null}"), reader.readValue());
        assertEquals("z", reader.nextName());
        assertEquals("0", reader.readValue().toJson());
        JsonException e = assertThrows(JsonException.class, reader::readValue);
        assertEquals("expected a value, got the end of an object", e.reason());
        reader.endObject();
        reader.end();
    }

    @Test
    void endRefusesAValueNotReadWhole() {
        JsonReader unread = new JsonReader("[1]");
        JsonException e = assertThrows(JsonException.class, unread::end);
        assertEquals("expected the end of the input, got an array", e.reason());
        JsonReader half = new JsonReader("[1]");
        half.beginArray();
        e = assertThrows(JsonException.class, half::end);
        assertEquals("expected the end of the input, got a number", e.reason());
        assertEquals("$[0]", e.path());
    }

    @Test
    void nextNameWhereAValueIsDue() {
        JsonReader reader = new JsonReader("{\"a\":\"b\"}");
        JsonException e = assertThrows(JsonException.class, reader::nextName);
        assertEquals("expected a member name, got an object", e.reason());
        reader.beginObject();
        e = assertThrows(JsonException.class, reader::nextString);
        assertEquals("expected a string, got a member name", e.reason());
        reader.nextName();
        e = assertThrows(JsonException.class, reader::nextName);
        assertEquals("expected a member name, got a string", e.reason());
    }
}
