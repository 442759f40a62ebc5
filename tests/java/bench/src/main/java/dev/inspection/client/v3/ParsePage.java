package dev.inspection.client.v3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.runtime.internal.Wire;
import org.openapitools.bench.JSON;
import org.openapitools.bench.model.ListUnitInspections200Response;

/**
 * The page of 100 inspections (the bytes every language's parse benchmark reads), decoded
 * three ways from the same bytes: by the generated client as it decodes an answer (its own
 * JSON reader, then the typed page with unknown members kept), by Jackson databind into a
 * {@code Map} (no types at all), and by openapi-generator's classes for the same spec. The
 * last fails on this page (its oneOf reader finds two members of {@code InspectionResult}
 * that fit one result, as members of the same shape do), so it gives no figure; run it
 * alone to see the error.
 * In the client's package, as the client's own decoding is.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class ParsePage {
    /** The page's file, which cargo xtask bench writes. */
    @Param("")
    public String page;

    private byte[] bytes;
    private final ObjectMapper mapper = new ObjectMapper();
    private final ObjectMapper openapi = new JSON().getMapper();

    @Setup
    public void read() throws IOException {
        bytes = Files.readAllBytes(Path.of(page));
        if (typed().data().size() != 100) {
            throw new IllegalStateException(page + " is not the page of 100 inspections");
        }
    }

    @Benchmark
    public Page<Inspection> typed() {
        // As the client reads a page (Core.decodePage, the reader answer.rs writes).
        return Wire.read(JsonValue.parse(bytes), (v, p) -> Page.decode(v, p, Inspection::decode));
    }

    /** The client's JSON tree of the page alone, before the records are read from it. */
    @Benchmark
    public JsonValue tree() {
        return JsonValue.parse(bytes);
    }

    @Benchmark
    public Map<?, ?> databindMap() throws IOException {
        return mapper.readValue(bytes, Map.class);
    }

    @Benchmark
    public ListUnitInspections200Response openapiGenerator() throws IOException {
        return openapi.readValue(bytes, ListUnitInspections200Response.class);
    }
}
