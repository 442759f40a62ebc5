package dev.inspection.client.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Time stays linear in the input's size. The bounds are generous (a slow, busy 2-core
 * machine must pass them); what they catch is quadratic or worse behaviour, which on these
 * sizes takes minutes.
 */
class JsonLimitsTest {
    private static final long GENEROUS_MILLIS = 5_000;

    /** Runs the task and returns its wall time in milliseconds. */
    private static long millis(Runnable task) {
        long start = System.nanoTime();
        task.run();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long bestOf3(Runnable task) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            best = Math.min(best, millis(task));
        }
        return best;
    }

    @Test
    void deepNestingIsRefusedQuickly() {
        for (String open : new String[] {"[", "{\"a\":", "[{\"a\":"}) {
            byte[] input = open.repeat(200_000).getBytes(StandardCharsets.UTF_8);
            long time = millis(() -> {
                JsonException e = assertThrows(JsonException.class, () -> JsonValue.parse(input));
                assertTrue(e.reason().startsWith("nested too deeply"), e.getMessage());
            });
            assertTrue(time < GENEROUS_MILLIS, open + " took " + time + " ms");
        }
    }

    @Test
    void fiveMegabyteStringsOfEscapesParseQuickly() {
        String escapes = "\"" + "\\n\\u00e9\\ud83d\\ude00\\\"".repeat(230_000) + "\"";
        assertTrue(escapes.length() >= 5_000_000);
        long time = millis(() -> {
            JsonString value = (JsonString) JsonValue.parse(escapes);
            assertEquals(230_000 * 5, value.value().length());
        });
        assertTrue(time < GENEROUS_MILLIS, "took " + time + " ms");
        String nonAscii = "\"" + "\u00e9\u20ac\uD83D\uDE00".repeat(600_000) + "\"";
        time = millis(() -> assertEquals(600_000 * 4,
                ((JsonString) JsonValue.parse(nonAscii)).value().length()));
        assertTrue(time < GENEROUS_MILLIS, "took " + time + " ms");
    }

    @Test
    void hugeNumbersAreRefusedQuickly() {
        String digits = "1".repeat(5_000_000);
        for (String input : new String[] {digits, "1." + digits, "1e" + digits, "[-" + digits}) {
            long time = millis(() -> assertThrows(JsonException.class,
                    () -> JsonValue.parse(input)));
            assertTrue(time < GENEROUS_MILLIS, "took " + time + " ms");
        }
    }

    @Test
    void manyMembersScaleLinearly() {
        String small = objectOfMembers(25_000);
        String large = objectOfMembers(200_000); // 8 times as large
        Runnable parseSmall = () ->
                assertEquals(25_000, ((JsonObject) JsonValue.parse(small)).size());
        Runnable parseLarge = () ->
                assertEquals(200_000, ((JsonObject) JsonValue.parse(large)).size());
        parseSmall.run(); // warm up the JIT before measuring
        parseLarge.run();
        long smallTime = bestOf3(parseSmall);
        long largeTime = bestOf3(parseLarge);
        // Linear is about 8 times; quadratic would be 64. Allow 32, plus slack for noise.
        assertTrue(largeTime <= 32 * smallTime + 500,
                "25 000 members: " + smallTime + " ms, 200 000: " + largeTime + " ms");
    }

    @Test
    void collidingNamesStayFast() {
        // 2^15 distinct names of "Aa" and "BB" blocks, all with the same String.hashCode.
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < 1 << 15; i++) {
            json.append(i == 0 ? "\"" : ",\"");
            for (int bit = 0; bit < 15; bit++) {
                json.append((i >> bit & 1) == 0 ? "Aa" : "BB");
            }
            json.append("\":").append(i);
        }
        String input = json.append('}').toString();
        long time = millis(() -> assertEquals(1 << 15,
                ((JsonObject) JsonValue.parse(input)).size()));
        assertTrue(time < GENEROUS_MILLIS, "took " + time + " ms");
    }

    @Test
    void smallObjectsAfterALargeOneStayFast() {
        // Each small object reuses the large one's depth: forgetting its names must not cost
        // the large one's size every time.
        String input = "[" + objectOfMembers(100_000) + ",{\"a\":1,\"b\":2}".repeat(100_000) + "]";
        long time = millis(() -> assertEquals(100_001,
                ((JsonArray) JsonValue.parse(input)).size()));
        assertTrue(time < GENEROUS_MILLIS, "took " + time + " ms");
    }

    private static String objectOfMembers(int count) {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            json.append(i == 0 ? "\"k" : ",\"k").append(i).append("\":[").append(i)
                    .append(",\"v\"]");
        }
        return json.append('}').toString();
    }
}
