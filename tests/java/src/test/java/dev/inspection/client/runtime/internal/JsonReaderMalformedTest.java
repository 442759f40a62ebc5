package dev.inspection.client.runtime.internal;

import static dev.inspection.client.runtime.internal.Inputs.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonValue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Malformed inputs: each refused with a JsonException saying what and where. */
class JsonReaderMalformedTest {

    /** Input ({@code %XX} is a raw byte), message fragment, byte offset, line, column. */
    static Stream<Arguments> malformed() {
        String deep = "[".repeat(129);
        String longNumber = "1".repeat(1001);
        return Stream.of(
                // invalid UTF-8, at the offset of the sequence's first byte
                row("truncated sequence", "\"a%E2%82", "truncated sequence", 2, 1, 3),
                row("bad continuation byte", "\"%E2%28%A1\"", "expected a continuation byte, got 0x28", 1, 1, 2),
                row("continuation byte alone", "\"%80\"", "unexpected continuation byte 0x80", 1, 1, 2),
                row("overlong 3-byte", "\"%E0%80%AF\"", "overlong encoding", 1, 1, 2),
                row("overlong 4-byte", "\"%F0%82%82%AC\"", "overlong encoding", 1, 1, 2),
                row("encoded surrogate", "\"%ED%A0%80\"", "encoded surrogate U+D800", 1, 1, 2),
                row("encoded low surrogate", "\"%ED%BF%BF\"", "encoded surrogate U+DFFF", 1, 1, 2),
                row("above U+10FFFF", "\"%F4%90%80%80\"", "code point above U+10FFFF", 1, 1, 2),
                row("byte C0", "\"%C0%AF\"", "byte 0xC0 never appears in UTF-8", 1, 1, 2),
                row("byte C1", "\"%C1%BF\"", "byte 0xC1 never appears in UTF-8", 1, 1, 2),
                row("byte F5", "\"%F5%80%80%80\"", "byte 0xF5 never appears in UTF-8", 1, 1, 2),
                row("byte FF", "\"%FF\"", "byte 0xFF never appears in UTF-8", 1, 1, 2),
                row("invalid UTF-8 on line 2", "{\n  \"k\": \"%FF\"\n}", "byte 0xFF", 10, 2, 9),
                row("non-ASCII outside a string", "[%C3%A9]", "expected a value, got byte 0xC3", 1, 1, 2),
                row("column counts characters", "[\"%C3%A9\", x]", "expected a value, got 'x'", 7, 1, 7),
                // not JSON numbers
                row("NaN", "[NaN]", "NaN and Infinity are not JSON", 1, 1, 2),
                row("Infinity", "Infinity", "NaN and Infinity are not JSON", 0, 1, 1),
                row("-Infinity", "[1, -Infinity]", "NaN and Infinity are not JSON", 4, 1, 5),
                row("leading zero", "[01]", "leading zeros are not allowed", 1, 1, 2),
                row("negative leading zero", "-012", "leading zeros are not allowed", 0, 1, 1),
                row("plus sign", "+1", "may not start with '+'", 0, 1, 1),
                row("bare fraction", ".5", "a number needs a digit before '.'", 0, 1, 1),
                row("no fraction digits", "1.", "expected a digit after the decimal point", 2, 1, 3),
                row("no exponent digits", "1e+", "expected a digit in the exponent", 3, 1, 4),
                row("minus alone", "-", "expected a digit after '-'", 1, 1, 2),
                row("number too long", "[" + longNumber + "]", "number too long: more than 1000 characters", 1, 1, 2),
                row("exponent too large", "1e10000", "exponent too large: at most 9999", 0, 1, 1),
                row("negative exponent too large", "[2.5E-10000]", "exponent too large", 1, 1, 2),
                // structure
                row("trailing comma in array", "[1,2,]", "trailing comma", 5, 1, 6),
                row("trailing comma in object", "{\"a\":1,}", "trailing comma", 7, 1, 8),
                row("missing comma", "[1 2]", "expected ',' or ']' after an array element", 3, 1, 4),
                row("missing member comma", "{\"a\":1 \"b\":2}", "expected ',' or '}' after an object member", 7, 1, 8),
                row("missing colon", "{\"a\" 1}", "expected ':' after a member name", 5, 1, 6),
                row("name not a string", "{1:2}", "expected a member name or '}', got '1'", 1, 1, 2),
                row("single-quoted string", "['a']", "single quotes are not JSON", 1, 1, 2),
                row("single-quoted name", "{'a':1}", "single quotes are not JSON", 1, 1, 2),
                row("comment", "/* c */ 1", "comments are not JSON", 0, 1, 1),
                row("unknown literal", "[tru]", "invalid literal: expected 'true'", 1, 1, 2),
                row("truncated null", "nul", "invalid literal: expected 'null'", 0, 1, 1),
                row("too deep", deep, "nested too deeply: more than 128", 128, 1, 129),
                row("duplicate name", "{\"a\":1,\"b\":2,\"a\":3}", "duplicate member name \"a\"", 13, 1, 14),
                row("duplicate nested name", "[{},\n {\"x\":{},\"x\":[]}]", "duplicate member name \"x\"", 14, 2, 10),
                row("trailing garbage", "{} x", "unexpected 'x' after the JSON value", 3, 1, 4),
                row("second value", "1 2", "unexpected '2' after the JSON value", 2, 1, 3),
                row("empty input", "", "empty input", 0, 1, 1),
                row("only whitespace", "  \n ", "empty input", 4, 2, 2),
                row("only a byte order mark", "%EF%BB%BF", "empty input", 3, 1, 1),
                // strings
                row("raw tab in string", "\"a\tb\"", "control character U+0009 must be escaped", 2, 1, 3),
                row("raw newline in string", "[\"a\nb\"]", "control character U+000A must be escaped", 3, 1, 4),
                row("raw NUL in string", "\"%00\"", "control character U+0000", 1, 1, 2),
                row("bad escape", "\"\\x\"", "invalid escape '\\x'", 1, 1, 2),
                row("bad unicode escape", "\"ab\\u12G4\"", "invalid \\u escape: expected four hex digits", 3, 1, 4),
                row("short unicode escape at the end", "\"\\u12", "invalid \\u escape", 1, 1, 2),
                row("unterminated string", "\"abc", "unterminated string", 4, 1, 5),
                row("unterminated string after escape", "\"a\\n", "unterminated string", 4, 1, 5),
                row("unterminated string in escape", "\"a\\", "unterminated string", 3, 1, 4),
                // unterminated containers
                row("unterminated array", "[1,2", "unexpected end of input: unterminated array", 4, 1, 5),
                row("unterminated empty array", "[", "unterminated array", 1, 1, 2),
                row("unterminated array after comma", "[1,", "unterminated array", 3, 1, 4),
                row("unterminated object", "{\"a\":1", "unexpected end of input: unterminated object", 6, 1, 7),
                row("unterminated empty object", "{ ", "unterminated object", 2, 1, 3),
                row("unterminated object after colon", "{\"a\":", "expected a value after ':'", 5, 1, 6),
                row("unterminated object after name", "{\"a\"", "expected ':' after a member name", 4, 1, 5),
                row("line counts CRLF once", "[\r\n1,\r\n]", "trailing comma", 7, 3, 1));
    }

    private static Arguments row(String name, String input, String fragment, long offset,
            int line, int column) {
        return Arguments.of(name, input, fragment, offset, line, column);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void refusesWithMessageAndPosition(String name, String input, String fragment, long offset,
            int line, int column) {
        byte[] bytes = raw(input);
        JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(bytes));
        assertTrue(e.reason().contains(fragment),
                () -> "message \"" + e.getMessage() + "\" lacks \"" + fragment + "\"");
        assertEquals(offset, e.offset(), () -> "offset; " + e.getMessage());
        assertEquals(line, e.line(), () -> "line; " + e.getMessage());
        assertEquals(column, e.column(), () -> "column; " + e.getMessage());
        assertEquals(String.format("invalid JSON at line %d, column %d (byte %d): %s",
                line, column, offset, e.reason()), e.getMessage());
    }

    @Test
    void messageReadsAsDocumented() {
        JsonException e = assertThrows(JsonException.class,
                () -> JsonValue.parse("{\n  \"a\": 1,\n  \"b\": [1] \"c\"\n}"));
        assertEquals("invalid JSON at line 3, column 12 (byte 23): "
                + "expected ',' or '}' after an object member", e.getMessage());
        assertEquals("", e.path());
    }

    @Test
    void duplicateNameIsClippedToFortyCharacters() {
        String name = "n".repeat(50);
        String json = "{\"" + name + "\":1,\"" + name + "\":2}";
        JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(json));
        assertTrue(e.getMessage().endsWith("duplicate member name \"" + "n".repeat(40) + "...\""),
                e.getMessage());
        assertEquals(56, e.offset());
    }

    @Test
    void unpairedSurrogateCharInAStringInputIsRefused() {
        // Not an escape: the char itself, which has no UTF-8 form.
        JsonException e = assertThrows(JsonException.class,
                () -> JsonValue.parse("[\"\u00e9\", \"x\uD800\"]"));
        assertTrue(e.reason().contains("unpaired surrogate U+D800"), e.getMessage());
        assertEquals(9, e.offset()); // [ " é(2 bytes) " , space " x, then the surrogate
    }

    @Test
    void byteOrderMarkIsNotCountedInColumns() {
        JsonException e = assertThrows(JsonException.class,
                () -> JsonValue.parse(raw("%EF%BB%BF[1,]")));
        assertEquals(6, e.offset());
        assertEquals(1, e.line());
        assertEquals(4, e.column());
    }
}
