package dev.inspection.client.runtime.internal;

import static dev.inspection.client.runtime.internal.Inputs.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonBoolean;
import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Edge cases the reader accepts, and what it makes of them. */
class JsonReaderAcceptedTest {

    private static String string(String json) {
        return assertInstanceOf(JsonString.class, JsonValue.parse(json)).value();
    }

    @Test
    void byteOrderMarkIsSkipped() {
        JsonValue value = JsonValue.parse(raw("%EF%BB%BF{\"a\":1}"));
        assertEquals(JsonValue.parse("{\"a\":1}"), value);
        assertEquals(JsonValue.parse("[]"), JsonValue.parse("\uFEFF[]"));
    }

    @Test
    void loneEscapedSurrogateIsKeptAndWrittenBack() {
        String high = string("\"a\\ud800b\"");
        assertEquals("a\uD800b", high);
        assertEquals("\"a\\ud800b\"", JsonString.of(high).toJson());
        assertEquals("\uDC00", string("\"\\uDC00\""));
        // A reversed pair is two lone surrogates, each kept.
        String reversed = string("\"\\ude00\\ud83d\"");
        assertEquals("\uDE00\uD83D", reversed);
        JsonValue value = JsonValue.parse("[\"\\ud800\",\"x\\udfff\"]");
        assertEquals(value, JsonValue.parse(value.toJson()));
        assertEquals("[\"\\ud800\",\"x\\udfff\"]", value.toJson());
    }

    @Test
    void escapedSurrogatePairIsOneCharacter() {
        String smile = string("\"\\ud83d\\ude00\"");
        assertEquals("\uD83D\uDE00", smile);
        assertEquals(1, smile.codePointCount(0, smile.length()));
        assertEquals(0x1F600, smile.codePointAt(0));
        // Written back as the character itself, in UTF-8.
        assertEquals("\"\uD83D\uDE00\"", JsonString.of(smile).toJson());
    }

    @Test
    void everyEscapeDecodes() {
        assertEquals("\"\\/\b\f\n\r\tA\u00e9\u0000", string(
                "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00E9\\u0000\""));
    }

    @Test
    void validUtf8Decodes() {
        // 2, 3 and 4 bytes, the edges around the surrogates and at the top, and DEL.
        JsonValue fromBytes = JsonValue.parse(raw("\"%C3%A9 %E2%82%AC %F0%9F%98%80 %ED%9F%BF "
                + "%EE%80%80 %EF%BF%BF %F4%8F%BF%BF %7F\""));
        String expected = "\u00e9 \u20ac \uD83D\uDE00 \uD7FF \uE000 \uFFFF \uDBFF\uDFFF \u007f";
        assertEquals(expected, ((JsonString) fromBytes).value());
        assertEquals(expected, string("\"" + expected + "\""));
    }

    @Test
    void memberOrderIsKept() {
        JsonObject object = (JsonObject) JsonValue.parse("{\"z\":1,\"a\":2,\"m\":{\"y\":0,\"b\":0}}");
        assertEquals(List.of("z", "a", "m"), List.copyOf(object.members().keySet()));
        assertEquals("{\"z\":1,\"a\":2,\"m\":{\"y\":0,\"b\":0}}", object.toJson());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.10", "-0", "1E+2", "12345678901234567890123", "1e-5", "0.0",
        "-0.000e-0", "1e0000009999", "2E-9999", "123456789.987654321e+42"})
    void numberTextIsKeptExactly(String text) {
        JsonNumber number = assertInstanceOf(JsonNumber.class, JsonValue.parse(text));
        assertEquals(text, number.text());
        assertEquals("[" + text + "]", JsonValue.parse("[" + text + "]").toJson());
        assertEquals(text, new JsonReader(" " + text + " ").nextNumber().text());
    }

    @Test
    void depthOfExactly128IsAccepted() {
        JsonValue arrays = JsonValue.parse("[".repeat(128) + "]".repeat(128));
        int depth = 0;
        for (JsonValue v = arrays; v instanceof JsonArray a; v = a.size() > 0 ? a.get(0) : null) {
            depth++;
        }
        assertEquals(128, depth);
        JsonValue.parse("{\"a\":".repeat(127) + "[]" + "}".repeat(127));
        assertThrows(JsonException.class,
                () -> JsonValue.parse("{\"a\":".repeat(128) + "[]" + "}".repeat(128)));
    }

    @Test
    void numberOfExactly1000CharactersIsAccepted() {
        String digits = "9".repeat(1000);
        assertEquals(digits, ((JsonNumber) JsonValue.parse(digits)).text());
        String negative = "-" + "1".repeat(997) + "e9";
        assertEquals(1000, negative.length());
        assertEquals(negative, ((JsonNumber) JsonValue.parse(negative)).text());
        assertThrows(JsonException.class, () -> JsonValue.parse("9".repeat(1001)));
    }

    @Test
    void scalarsAtTheTopLevelAndWhitespaceEverywhere() {
        assertEquals(JsonBoolean.TRUE, JsonValue.parse(" \t\r\ntrue\n"));
        assertEquals(JsonBoolean.FALSE, JsonValue.parse("false"));
        assertEquals(JsonNull.INSTANCE, JsonValue.parse("null"));
        assertEquals(JsonString.of(""), JsonValue.parse("\"\""));
        assertEquals(JsonValue.parse("{\"a\":[1,{}]}"),
                JsonValue.parse(" {\r\n\t\"a\" : [ 1 , { } ] \n} "));
    }

    @Test
    void htmlAndDelAreAcceptedRaw() {
        assertEquals("<a href='x'>&amp;</a>\u007f", string("\"<a href='x'>&amp;</a>\u007f\""));
    }

    @Test
    void inputStreamIsReadWhole() {
        JsonValue value = JsonValue.parse(new java.io.ByteArrayInputStream(raw("[1,\"%C3%A9\"]")));
        assertEquals(JsonValue.parse("[1,\"\u00e9\"]"), value);
    }

    @Test
    void inputStreamFailureIsUnchecked() {
        java.io.InputStream broken = new java.io.InputStream() {
            @Override
            public int read() throws java.io.IOException {
                throw new java.io.IOException("boom");
            }
        };
        assertThrows(java.io.UncheckedIOException.class, () -> JsonValue.parse(broken));
    }
}
