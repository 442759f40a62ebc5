package dev.inspection.client.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tree {@code JsonValue.parse} makes through its fast paths: member names kept and given
 * again, objects taken from the parser's arrays, strings scanned eight bytes a step. Each
 * must give exactly what the plain reading gives.
 */
class ParsedTreeTest {

    /** Names whose Java hashes are all equal ("Aa" and "BB" hash alike), so share slots. */
    private static final List<String> COLLIDING = List.of("AaAa", "AaBB", "BBAa", "BBBB");

    @Test
    void namesThatShareASlotAreEachReadAsThemselves() {
        StringBuilder json = new StringBuilder("[");
        for (int round = 0; round < 3; round++) {
            for (String name : COLLIDING) {
                json.append(round + COLLIDING.indexOf(name) > 0 ? "," : "")
                        .append("{\"").append(name).append("\":\"").append(name).append("\"}");
            }
        }
        JsonArray array = (JsonArray) JsonValue.parse(json.append(']').toString());
        assertEquals(12, array.size());
        for (int i = 0; i < 12; i++) {
            JsonObject object = (JsonObject) array.get(i);
            String expected = COLLIDING.get(i % 4);
            assertEquals(expected, object.nameAt(0));
            assertEquals(JsonString.of(expected), object.valueAt(0));
        }
    }

    @Test
    void aNameSeenBeforeIsTheSameString() {
        JsonArray array = (JsonArray) JsonValue.parse("[{\"unit_id\":1},{\"unit_id\":2}]");
        assertSame(((JsonObject) array.get(0)).nameAt(0), ((JsonObject) array.get(1)).nameAt(0));
    }

    @Test
    void collidingNamesInOneObjectAreNotTakenForDuplicates() {
        JsonObject object = (JsonObject) JsonValue.parse(
                "{\"AaAa\":1,\"AaBB\":2,\"BBAa\":3,\"BBBB\":4}");
        assertEquals(List.of("AaAa", "AaBB", "BBAa", "BBBB"),
                new ArrayList<>(object.members().keySet()));
        JsonException e = assertThrows(JsonException.class,
                () -> JsonValue.parse("{\"AaAa\":1,\"BBBB\":2,\"AaAa\":3}"));
        assertTrue(e.getMessage().contains("duplicate member name \"AaAa\""), e.getMessage());
    }

    @Test
    void largeObjectsKeepOrderFindNamesAndRefuseDuplicates() {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < 40; i++) {
            json.append(i > 0 ? "," : "").append("\"m").append(i).append("\":").append(i);
        }
        JsonObject object = (JsonObject) JsonValue.parse(json + "}");
        assertEquals(40, object.size());
        for (int i = 0; i < 40; i++) {
            assertEquals("m" + i, object.nameAt(i));
            assertEquals(i, object.indexOf("m" + i));
            assertEquals(JsonNumber.of(i), object.get("m" + i).orElseThrow());
        }
        assertEquals(-1, object.indexOf("m40"));
        assertEquals(JsonValue.parse(object.toJson()), object);
        // A duplicate past the small table (the 32nd name) and one within it.
        assertThrows(JsonException.class, () -> JsonValue.parse(json + ",\"m35\":0}"));
        assertThrows(JsonException.class, () -> JsonValue.parse(json + ",\"m3\":0}"));
    }

    @Test
    void positionsOutsideTheObjectAreRefused() {
        JsonObject object = (JsonObject) JsonValue.parse("{\"a\":1}");
        assertThrows(IndexOutOfBoundsException.class, () -> object.nameAt(1));
        assertThrows(IndexOutOfBoundsException.class, () -> object.valueAt(-1));
    }

    @Test
    void parsedAndBuiltTreesAreEqualAndImmutable() {
        JsonValue parsed = JsonValue.parse("{\"a\":[1,{\"b\":null}],\"c\":\"d\"}");
        JsonValue built = JsonObject.builder()
                .put("a", JsonArray.of(List.of(JsonNumber.of(1),
                        JsonObject.of(Map.of("b", JsonNull.INSTANCE)))))
                .put("c", JsonString.of("d"))
                .build();
        assertEquals(built, parsed);
        assertEquals(built.hashCode(), parsed.hashCode());
        JsonArray array = (JsonArray) ((JsonObject) parsed).valueAt(0);
        assertThrows(UnsupportedOperationException.class,
                () -> array.elements().set(0, JsonNull.INSTANCE));
        assertThrows(UnsupportedOperationException.class,
                () -> ((JsonObject) parsed).members().remove("c"));
    }

    @Test
    void namesAndShortValuesReadAsWordsAreEachReadAsThemselves() {
        // Names and values under 16 bytes are read two words at a time, and kept by those
        // words: of every length around the two words, with the byte that stops a word's
        // scan at each place, each read twice (the second found kept) must give what it
        // says, with 16 bytes after it (the padding member) and at the input's end.
        for (int length = 0; length < 20; length++) {
            String plain = "abcdefghijklmnopqrstuvwxyz".substring(0, length);
            for (int at = 0; at <= length; at++) {
                String head = plain.substring(0, at);
                String tail = plain.substring(at);
                for (String[] stop : new String[][] {{"", ""}, {"\\\"", "\""}, {"é", "é"},
                        {"\\n", "\n"}, {"\\u0041", "A"}, {"~", "~"}}) {
                    String json = head + stop[0] + tail;
                    String name = head + stop[1] + tail;
                    String member = "{\"" + json + "\":\"" + json + "\",\"pad\":\"0123456789abcdef\"}";
                    JsonArray array = (JsonArray) JsonValue.parse("[" + member + "," + member + "]");
                    for (JsonValue object : array.elements()) {
                        assertEquals(name, ((JsonObject) object).nameAt(0), member);
                        assertEquals(JsonString.of(name), ((JsonObject) object).valueAt(0), member);
                    }
                    String last = "{\"" + json + "\":\"" + json + "\"}";
                    assertEquals(JsonObject.builder().put(name, JsonString.of(name)).build(),
                            JsonValue.parse(last), last);
                }
                String control = "[\"" + head + "\u0001" + tail + "\",\"0123456789abcdef\"]";
                JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(control));
                assertEquals(at + 2, e.offset(), control);
            }
        }
    }

    @Test
    void namesOfOneLengthThatDifferInOneByteAreNotTakenForEachOther() {
        // Kept by their words, masked to their length: "ab" is not "abc" cut short.
        JsonObject object = (JsonObject) JsonValue.parse(
                "{\"ab\":1,\"abc\":2,\"abd\":3,\"abcdefgh\":4,\"abcdefgi\":5,\"pad\":\"0123456789abcdef\"}");
        assertEquals(List.of("ab", "abc", "abd", "abcdefgh", "abcdefgi", "pad"),
                new ArrayList<>(object.members().keySet()));
        JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(
                "{\"abcdefghi\":1,\"abcdefghi\":2,\"pad\":\"0123456789abcdef\"}"));
        assertTrue(e.getMessage().contains("duplicate member name \"abcdefghi\""), e.getMessage());
    }

    @Test
    void anEndingOrEscapeAtEveryPlaceOfAWordIsFound() {
        // Strings of every length around a word of eight, with the byte that stops the fast
        // scan (a quote, a backslash escape, a control character, a non-ASCII character) at
        // each place: each must read as written, or be refused as the plain reading does.
        for (int length = 0; length < 20; length++) {
            String plain = "abcdefghijklmnopqrstuvwxyz".substring(0, length);
            assertEquals(JsonString.of(plain), JsonValue.parse("\"" + plain + "\""));
            for (int at = 0; at <= length; at++) {
                String head = plain.substring(0, at);
                String tail = plain.substring(at);
                assertEquals(JsonString.of(head + "\"" + tail),
                        JsonValue.parse("\"" + head + "\\\"" + tail + "\""));
                assertEquals(JsonString.of(head + "é" + tail),
                        JsonValue.parse("\"" + head + "é" + tail + "\""));
                assertEquals(JsonString.of(head + "~" + tail),
                        JsonValue.parse("\"" + head + "~" + tail + "\""));
                String control = "\"" + head + "\u0001" + tail + "\"";
                JsonException e = assertThrows(JsonException.class,
                        () -> JsonValue.parse(control));
                assertEquals(at + 1, e.offset(), control);
            }
        }
    }
}
