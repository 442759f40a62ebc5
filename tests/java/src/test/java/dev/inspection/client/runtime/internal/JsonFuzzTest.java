package dev.inspection.client.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonValue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded, bounded fuzz test: mutations of the fixture corpus and random bytes either parse
 * or are refused with a JsonException, never anything else.
 */
class JsonFuzzTest {
    private static final long[] SEEDS = {0x5EED_0001L, 0x5EED_0002L, 0x5EED_0003L, 0x5EED_0004L};
    private static final int CASES_PER_SEED = 5_000;
    private static final int MAX_INPUT = 4096;

    private static final String[] TOKENS = {"[", "]", "{", "}", ",", ":", "\"", "\\", "\\u",
        "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\uZZZZ", "\\x", "-", "0", "01", "-0", "1.",
        ".5", "+1", "1e", "1e9999", "1e10000", "1E-9999", "NaN", "Infinity", "-Infinity",
        "true", "tru", "null", "nul", "false", "\"a\":", "\"a\":1,\"a\":2", " ", "\n", "\r\n",
        "\t", "/*", "//", "'", "\"\u00e9\"", "\u0000", "\u001f", "\u007f"};

    private static final byte[][] BAD_UTF8 = {
        {(byte) 0x80}, {(byte) 0xBF}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xC1, (byte) 0xBF},
        {(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xED, (byte) 0xBF, (byte) 0xBF},
        {(byte) 0xF0, (byte) 0x82, (byte) 0x82, (byte) 0xAC}, {(byte) 0xF0, (byte) 0x9F},
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xF5}, {(byte) 0xFE},
        {(byte) 0xFF}, {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}};

    @Test
    void mutatedInputsParseOrThrowJsonExceptionOnly() {
        List<byte[]> corpus = corpus();
        int[] outcomes = new int[2]; // parsed, refused
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            for (long seed : SEEDS) {
                for (int i = 0; i < CASES_PER_SEED; i++) {
                    long caseSeed = seed * 1_000_003L + i;
                    byte[] input = mutate(corpus, new Random(caseSeed));
                    outcomes[check(caseSeed, input) ? 0 : 1]++;
                }
            }
        });
        int total = SEEDS.length * CASES_PER_SEED;
        assertEquals(total, outcomes[0] + outcomes[1]);
        // Both outcomes are common, or the mutations explore too little.
        assertTrue(outcomes[0] > total / 50, "only " + outcomes[0] + " inputs parsed");
        assertTrue(outcomes[1] > total / 2, "only " + outcomes[1] + " inputs refused");
    }

    /** Checks one input; returns whether it parsed. Any failure names the seed and bytes. */
    private static boolean check(long seed, byte[] input) {
        try {
            JsonValue parsed;
            try {
                parsed = JsonValue.parse(input);
            } catch (JsonException e) {
                assertTrue(e.offset() >= 0 && e.offset() <= input.length, "offset");
                assertTrue(e.line() >= 1 && e.column() >= 1, "line and column");
                parsed = null;
            }
            // Skipping the input with the pull API agrees with reading it as a tree.
            boolean skipped;
            try {
                JsonReader reader = new JsonReader(input);
                reader.skipValue();
                reader.end();
                skipped = true;
            } catch (JsonException e) {
                skipped = false;
            }
            assertEquals(parsed != null, skipped, "parse and skipValue disagree");
            if (parsed != null) {
                assertEquals(parsed, JsonValue.parse(parsed.toJson()), "round trip");
            }
            try {
                JsonValue.parse(new String(input, StandardCharsets.UTF_8));
            } catch (JsonException e) {
                // refused: fine
            }
            return parsed != null;
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + ", input (hex) " + Inputs.hex(input), t);
        }
    }

    private static List<byte[]> corpus() {
        List<byte[]> corpus = new ArrayList<>();
        for (Path fixture : Inputs.fixtures()) {
            byte[] bytes = Inputs.read(fixture);
            if (bytes.length <= MAX_INPUT) {
                corpus.add(bytes);
            }
            // The members of the large fixtures, as small valid inputs of their own.
            if (JsonValue.parse(bytes) instanceof JsonObject object) {
                for (JsonValue member : object.members().values()) {
                    corpus.add(member.toJson().getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        for (String seed : List.of("[\"\\ud83d\\ude00\",\"\\ud800\",-0,1E+2,1.10,-12.5e-3]",
                "{\"a\":{\"b\":[true,false,null,{}]},\"c\":[]}", "\"\u00e9\u20ac\uD83D\uDE00\"",
                "12345678901234567890123e-45", "[[[[[[[[]]]]]]]]",
                "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\uFFFF\"", " { \"k\" : [ 1 , 2 ] } ")) {
            corpus.add(seed.getBytes(StandardCharsets.UTF_8));
        }
        return corpus;
    }

    private static byte[] mutate(List<byte[]> corpus, Random random) {
        byte[] input = random.nextInt(10) == 0 ? randomBytes(random)
                : corpus.get(random.nextInt(corpus.size())).clone();
        int rounds = 1 + random.nextInt(4);
        for (int i = 0; i < rounds; i++) {
            input = mutateOnce(input, corpus, random);
        }
        return input.length > MAX_INPUT ? Arrays.copyOf(input, MAX_INPUT) : input;
    }

    private static byte[] mutateOnce(byte[] input, List<byte[]> corpus, Random random) {
        int at = random.nextInt(input.length + 1);
        int span = input.length == at ? 0 : 1 + random.nextInt(Math.min(64, input.length - at));
        switch (random.nextInt(10)) {
            case 0 -> { // flip a bit
                if (at < input.length) {
                    input[at] ^= (byte) (1 << random.nextInt(8));
                }
                return input;
            }
            case 1 -> { // overwrite a byte
                if (at < input.length) {
                    input[at] = (byte) random.nextInt(256);
                }
                return input;
            }
            case 2 -> { // delete a span
                return splice(input, at, span, new byte[0]);
            }
            case 3 -> { // duplicate a span
                byte[] copy = Arrays.copyOfRange(input, at, at + span);
                return splice(input, random.nextInt(input.length + 1), 0, copy);
            }
            case 4 -> { // deep nesting
                String open = random.nextBoolean() ? "[" : "{\"a\":";
                String nest = open.repeat(1 + random.nextInt(300));
                return splice(input, at, 0, nest.getBytes(StandardCharsets.UTF_8));
            }
            case 5 -> { // valid or invalid UTF-8
                byte[] piece = random.nextBoolean() ? BAD_UTF8[random.nextInt(BAD_UTF8.length)]
                        : new String(Character.toChars(randomCodePoint(random)))
                                .getBytes(StandardCharsets.UTF_8);
                return splice(input, at, random.nextInt(2), piece);
            }
            case 6 -> { // a JSON-ish token
                byte[] token = TOKENS[random.nextInt(TOKENS.length)]
                        .getBytes(StandardCharsets.UTF_8);
                return splice(input, at, random.nextInt(2), token);
            }
            case 7 -> { // a span of another input
                byte[] other = corpus.get(random.nextInt(corpus.size()));
                int from = random.nextInt(other.length);
                int length = Math.min(other.length - from, 1 + random.nextInt(256));
                return splice(input, at, 0, Arrays.copyOfRange(other, from, from + length));
            }
            case 8 -> { // random bytes
                return splice(input, at, 0, randomBytes(random, 1 + random.nextInt(8)));
            }
            default -> { // truncate
                return Arrays.copyOf(input, at);
            }
        }
    }

    private static int randomCodePoint(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0x80 + random.nextInt(0x780); // 2 bytes
            case 1 -> 0xE000 + random.nextInt(0x2000); // 3 bytes, above the surrogates
            case 2 -> 0x10000 + random.nextInt(0x100000); // 4 bytes
            default -> random.nextInt(0x80); // ASCII, control characters included
        };
    }

    private static byte[] randomBytes(Random random) {
        return randomBytes(random, random.nextInt(65));
    }

    /** Bytes drawn mostly from JSON's own alphabet, so that some of them parse. */
    private static byte[] randomBytes(Random random, int length) {
        String alphabet = "[]{},:\"\\0123456789-+.eEtrufalsn \n\tu";
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = random.nextInt(4) == 0 ? (byte) random.nextInt(256)
                    : (byte) alphabet.charAt(random.nextInt(alphabet.length()));
        }
        return bytes;
    }

    private static byte[] splice(byte[] input, int at, int remove, byte[] piece) {
        int end = Math.min(input.length, at + remove);
        ByteArrayOutputStream out = new ByteArrayOutputStream(input.length + piece.length);
        out.write(input, 0, at);
        out.write(piece, 0, piece.length);
        out.write(input, end, input.length - end);
        return out.toByteArray();
    }
}
