package dev.inspection.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.inspection.client.runtime.ClientOptions;
import dev.inspection.client.runtime.InterruptedCallException;
import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.v3.ApiKey;
import dev.inspection.client.v3.AsyncClient;
import dev.inspection.client.v3.Client;
import dev.inspection.client.v3.Unit;
import dev.inspection.client.v3.UnitId;

/**
 * What only Java has, against the sandbox: cancelling an async call's future and
 * interrupting a thread blocked in a call both stop the call at once (an answer the sandbox
 * holds back for ten seconds is not waited for), send nothing again, and leave the client
 * usable; the interrupted thread keeps its interrupt flag.
 */
class CancellationTest {
    private static final Path ROOT = Path.of(System.getProperty("project.root", ".")).toAbsolutePath().normalize();
    private static final ApiKey KEY = ApiKey.of("demo-key", "demo-secret");
    /** Longer than any wait below: a call that waited for it would fail the test's bound. */
    private static final String SLOW = "[{\"method\": \"GET\", \"path\": \"/v3/units/slow\", \"delay_ms\": 10000,"
        + " \"body\": {\"id\": \"slow\", \"object\": \"unit\", \"reference_number\": \"S-1\"}}]";

    private Sandbox sandbox;

    @BeforeEach
    void slowAnswer() {
        Path binary = Path.of(System.getProperty("sandbox.bin", ROOT.resolve("target/debug/sandbox").toString()));
        sandbox = Sandbox.of(binary, List.of(), false);
        sandbox.control("POST", "/_sandbox/reset", null);
        sandbox.control("POST", "/_sandbox/script", JsonValue.parse(SLOW));
    }

    private ClientOptions options() {
        return ClientOptions.builder().noRateLimit().timeout(Duration.ofSeconds(30)).build();
    }

    private int requestsFor(String path) {
        int n = 0;
        for (JsonValue r : ((JsonArray) sandbox.control("GET", "/_sandbox/requests", null)).elements()) {
            if (r.toJson().contains("\"path\":\"" + path + "\"")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void cancellingAnAsyncCallStopsItAndSendsNothingAgain() throws Exception {
        try (AsyncClient client = new AsyncClient(sandbox.origin + "/v3", KEY, options())) {
            CompletableFuture<Unit> call = client.getUnit(UnitId.of("slow"));
            Thread.sleep(300);
            assertTrue(call.cancel(true), "the call was still waiting for its answer");
            Thread.sleep(300);
            assertEquals(1, requestsFor("/v3/units/slow"), "a cancelled call is not sent again");
            sandbox.control("DELETE", "/_sandbox/script", null);
            assertFalse(client.listUnits().first().get().data().isEmpty(), "the client still works");
        }
    }

    @Test
    void interruptingABlockingCallStopsItAndKeepsTheFlag() throws Exception {
        try (Client client = new Client(sandbox.origin + "/v3", KEY, options())) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean flagged = new AtomicBoolean();
            Thread caller = new Thread(() -> {
                try {
                    client.getUnit(UnitId.of("slow"));
                } catch (RuntimeException e) {
                    thrown.set(e);
                    flagged.set(Thread.currentThread().isInterrupted());
                }
            });
            caller.start();
            Thread.sleep(300);
            caller.interrupt();
            caller.join(5000);
            assertFalse(caller.isAlive(), "the interrupted call still waits for the held-back answer");
            assertInstanceOf(InterruptedCallException.class, thrown.get());
            assertTrue(flagged.get(), "the interrupt flag is set again");
            assertEquals(1, requestsFor("/v3/units/slow"));
            sandbox.control("DELETE", "/_sandbox/script", null);
            assertFalse(client.listUnits().first().data().isEmpty(), "the client still works");
        }
    }
}
