package dev.inspection.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;

/**
 * Every scenario of {@code tests/conformance/}, once with the blocking client and once with
 * the async one, against the sandbox binary. What the Java client cannot do yet is skipped
 * by the call it needs, listed in {@link #NOT_YET}; the names skipped and the counts run go
 * to {@code target/java-tests/conformance-count.json}, which {@code cargo xtask java}
 * checks against the scenarios in the files. {@code CONFORMANCE_ONLY} runs those whose name
 * holds it.
 */
class ConformanceTest {
    /** Calls the Java client does not make yet, and why. */
    private static final Map<String, String> NOT_YET = Map.of();

    private static final Path ROOT = Path.of(System.getProperty("project.root", ".")).toAbsolutePath().normalize();
    private static final Map<Flavour, AtomicInteger> RAN = Map.of(Flavour.BLOCKING, new AtomicInteger(),
        Flavour.ASYNC, new AtomicInteger());
    private static final List<String> SKIPPED = new ArrayList<>();

    @TestFactory
    Stream<DynamicTest> scenarios() {
        Path dir = Path.of(System.getProperty("conformance.dir", ROOT.resolve("target/conformance-json").toString()));
        Path sandbox = Path.of(System.getProperty("sandbox.bin", ROOT.resolve("target/debug/sandbox").toString()));
        Calls calls = new Calls(ROOT);
        List<Scenarios.Scenario> all = new Scenarios(ROOT).all(dir);
        String only = System.getenv("CONFORMANCE_ONLY");
        List<DynamicTest> tests = new ArrayList<>();
        for (Scenarios.Scenario s : all) {
            if (only != null && !s.name().contains(only)) {
                continue;
            }
            String missing = missing(s);
            if (missing != null) {
                SKIPPED.add(s.name() + ": " + missing);
                continue;
            }
            for (Flavour f : Flavour.values()) {
                tests.add(DynamicTest.dynamicTest(s.file() + ": " + s.name() + " [" + f.name().toLowerCase() + "]", () -> {
                    try {
                        new Runner(calls, Sandbox.of(sandbox, s.args(), s.proxy()), s, f).run();
                    } catch (RunnerError e) {
                        throw new AssertionError(s.file() + ": " + s.name() + " [" + f + "]: " + e.getMessage(), e);
                    }
                    RAN.get(f).incrementAndGet();
                }));
            }
        }
        return tests.stream();
    }

    /** Why the scenario cannot run yet, or null. */
    private static String missing(Scenarios.Scenario s) {
        for (JsonObject step : s.steps()) {
            if (step.get("call").orElse(null) instanceof JsonString c && NOT_YET.containsKey(c.value())) {
                return NOT_YET.get(c.value());
            }
        }
        return null;
    }

    @AfterAll
    static void report() throws IOException {
        Sandbox.stopAll();
        Map<String, JsonValue> out = new LinkedHashMap<>();
        RAN.forEach((f, n) -> out.put(f.name().toLowerCase(), JsonNumber.of(n.get())));
        List<JsonValue> skipped = new ArrayList<>();
        SKIPPED.forEach(s -> skipped.add(JsonString.of(s)));
        out.put("skipped", JsonArray.of(skipped));
        Path file = ROOT.resolve("target/java-tests/conformance-count.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, JsonObject.of(out).toJson() + "\n");
    }
}
