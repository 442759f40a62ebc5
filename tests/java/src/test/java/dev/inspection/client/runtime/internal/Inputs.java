package dev.inspection.client.runtime.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Helpers shared by the runtime's tests: byte inputs, hex dumps and the fixture corpus. */
public final class Inputs {
    private Inputs() {}

    /**
     * Returns the UTF-8 bytes of {@code text}, where {@code %XX} stands for the raw byte 0xXX
     * (so that invalid UTF-8 can be written in a test table).
     */
    public static byte[] raw(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** Returns {@code count} copies of {@code text}. */
    public static String repeat(String text, int count) {
        return text.repeat(count);
    }

    /** Returns the bytes as hex, for failure messages. */
    public static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            out.append(String.format("%02x", b & 0xFF));
        }
        return out.toString();
    }

    /** The repository's root, which surefire passes as the {@code project.root} property. */
    public static Path projectRoot() {
        String root = System.getProperty("project.root");
        if (root == null) {
            throw new IllegalStateException("the project.root system property is not set");
        }
        return Path.of(root);
    }

    /** The fixture files of the v3 spec, sorted by name; there must be some. */
    public static List<Path> fixtures() {
        Path dir = projectRoot().resolve("tests/fixtures/v3");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = new ArrayList<>(
                    files.filter(f -> f.toString().endsWith(".json")).sorted().toList());
            if (found.isEmpty()) {
                throw new IllegalStateException("no fixtures in " + dir);
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a file's bytes. */
    public static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
