package dev.inspection.client.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The value classes: numbers' value semantics, immutability, builders, exceptions. */
class JsonValueTest {

    @ParameterizedTest
    @CsvSource({"1, 1", "1.0, 1", "1e2, 100", "1E+2, 100", "100e-2, 1", "0.5e1, 5", "-0, 0",
        "0.000, 0", "9223372036854775807, 9223372036854775807",
        "-9223372036854775808, -9223372036854775808", "9.223372036854775807e18, 9223372036854775807"})
    void longValueExactGivesIntegralValues(String text, long expected) {
        assertEquals(OptionalLong.of(expected), JsonNumber.parse(text).longValueExact());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.5", "1e-1", "9223372036854775808", "-9223372036854775809",
        "1e19", "1e9999", "1e-9999", "123456789012345678901234567890"})
    void longValueExactIsEmptyOtherwise(String text) {
        assertEquals(OptionalLong.empty(), JsonNumber.parse(text).longValueExact());
    }

    @Test
    void numbersAreEqualByValueWithConsistentHashes() {
        List<String> ones = List.of("1", "1.0", "1.000", "1e0", "10e-1", "0.1E+1");
        for (String a : ones) {
            for (String b : ones) {
                assertEquals(JsonNumber.parse(a), JsonNumber.parse(b), a + " vs " + b);
                assertEquals(JsonNumber.parse(a).hashCode(), JsonNumber.parse(b).hashCode());
            }
        }
        assertEquals(JsonNumber.parse("0"), JsonNumber.parse("-0.00"));
        assertEquals(JsonNumber.parse("0").hashCode(), JsonNumber.parse("-0e5").hashCode());
        assertEquals(JsonNumber.of(1), JsonNumber.of(new BigDecimal("1.00")));
        assertNotEquals(JsonNumber.parse("1"), JsonNumber.parse("1.0000000000000000001"));
        assertNotEquals(JsonNumber.parse("1e9999"), JsonNumber.parse("1e-9999"));
        // The text stays as written either way.
        assertEquals("1.0", JsonNumber.parse("1.0").text());
        assertEquals("1.0", JsonNumber.parse("1.0").toJson());
    }

    @Test
    void numberFactories() {
        assertEquals("-42", JsonNumber.of(-42L).text());
        assertEquals("1.10", JsonNumber.of(new BigDecimal("1.10")).text());
        assertEquals("1E+3", JsonNumber.of(new BigDecimal("1E+3")).text());
        assertEquals("1.5", JsonNumber.of(1.5).text());
        assertEquals(1.0E10, JsonNumber.of(1.0E10).doubleValue());
        assertEquals(new BigDecimal("1.10"), JsonNumber.parse("1.10").bigDecimalValue());
        assertEquals(Double.POSITIVE_INFINITY, JsonNumber.parse("1e9999").doubleValue());
        assertThrows(IllegalArgumentException.class, () -> JsonNumber.of(Double.NaN));
        assertThrows(IllegalArgumentException.class,
                () -> JsonNumber.of(Double.POSITIVE_INFINITY));
        // A decimal whose text the reader would refuse is refused here too.
        assertThrows(IllegalArgumentException.class,
                () -> JsonNumber.of(new BigDecimal("1E+10000")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "01", "1.", ".5", "+1", " 1", "1 ", "1e", "0x10", "NaN",
        "1e10000", "1.5.5"})
    void parseRefusesWhatIsNotAJsonNumber(String text) {
        assertThrows(IllegalArgumentException.class, () -> JsonNumber.parse(text));
    }

    @Test
    void objectsKeepOrderAndRefuseDuplicates() {
        Map<String, JsonValue> source = new LinkedHashMap<>();
        source.put("z", JsonNumber.of(1));
        source.put("a", JsonBoolean.TRUE);
        JsonObject object = JsonObject.of(source);
        source.put("late", JsonNull.INSTANCE); // a copy: not seen
        assertEquals("{\"z\":1,\"a\":true}", object.toJson());
        assertEquals(object.toJson(), object.toString());
        assertEquals(2, object.size());
        assertEquals(Optional.of(JsonBoolean.TRUE), object.get("a"));
        assertEquals(Optional.empty(), object.get("late"));
        assertThrows(UnsupportedOperationException.class,
                () -> object.members().put("b", JsonNull.INSTANCE));

        JsonObject.Builder builder = JsonObject.builder().put("a", JsonNull.INSTANCE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder.put("a", JsonBoolean.FALSE));
        assertTrue(e.getMessage().contains("\"a\""));
        JsonObject built = builder.build();
        assertEquals("{\"a\":null}", built.toJson());
        assertThrows(IllegalStateException.class, () -> builder.put("b", JsonNull.INSTANCE));
        assertEquals("{\"a\":null}", built.toJson());
        // Equal whatever the order, as maps are.
        assertEquals(JsonValue.parse("{\"a\":1,\"b\":2}"), JsonValue.parse("{\"b\":2,\"a\":1.0}"));
    }

    @Test
    void arraysAreCopiesAndUnmodifiable() {
        List<JsonValue> source = new ArrayList<>(List.of(JsonString.of("x"), JsonNumber.of(2)));
        JsonArray array = JsonArray.of(source);
        source.add(JsonNull.INSTANCE);
        assertEquals(2, array.size());
        assertEquals(JsonString.of("x"), array.get(0));
        assertThrows(UnsupportedOperationException.class,
                () -> array.elements().add(JsonNull.INSTANCE));
        assertEquals("[\"x\",2]", array.toString());
        assertThrows(NullPointerException.class,
                () -> JsonArray.of(java.util.Arrays.asList(JsonNull.INSTANCE, null)));
    }

    @Test
    void scalarsAndTheirText() {
        assertEquals("null", JsonNull.INSTANCE.toJson());
        assertEquals("true", JsonBoolean.of(true).toString());
        assertFalse(JsonBoolean.of(false).value());
        assertEquals("\"a\\nb\"", JsonString.of("a\nb").toString());
        assertNotEquals(JsonString.of("1"), JsonNumber.of(1));
        assertNotEquals(JsonNull.INSTANCE, JsonBoolean.FALSE);
    }

    @Test
    void exceptionsCarryWhatTheGeneratedCodeNeeds() {
        JsonException decode = new JsonException("expected a string, got a number",
                "$.items[3].name");
        assertEquals("$.items[3].name: expected a string, got a number", decode.getMessage());
        assertEquals(-1, decode.offset());
        assertEquals(-1, decode.line());
        assertEquals(-1, decode.column());
        assertEquals("$.items[3].name", decode.path());
        assertTrue(decode instanceof ClientException);

        JsonException syntax = new JsonException("expected ':' after a member name", 52, 3, 14);
        assertEquals("invalid JSON at line 3, column 14 (byte 52): "
                + "expected ':' after a member name", syntax.getMessage());
        assertEquals("", syntax.path());

        ClientException wrapped = new ClientException("request failed", syntax);
        assertEquals(syntax, wrapped.getCause());
    }
}
