package dev.inspection.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.inspection.client.runtime.ClientOptions;
import dev.inspection.client.runtime.TransportException;
import dev.inspection.client.v3.ApiKey;
import dev.inspection.client.v3.AsyncClient;
import dev.inspection.client.v3.Client;
import dev.inspection.client.v3.InspectionId;

/**
 * The Java clients' downloads to an {@code OutputStream} (the scenarios read documents into
 * memory): the same bytes as the in-memory call, past {@code maxResponseBytes} (which
 * bounds only what is held in memory), and a stream that fails ends the call without
 * asking again.
 */
class DownloadTest {
    private static final Path ROOT = Path.of(System.getProperty("project.root", ".")).toAbsolutePath().normalize();
    private static final ApiKey KEY = ApiKey.of("demo-key", "demo-secret");
    private static final InspectionId FULL = InspectionId.of("ins_demo_full");

    private Sandbox sandbox;

    @BeforeEach
    void reset() {
        Path binary = Path.of(System.getProperty("sandbox.bin", ROOT.resolve("target/debug/sandbox").toString()));
        sandbox = Sandbox.of(binary, List.of(), false);
        sandbox.control("POST", "/_sandbox/reset", null);
    }

    @Test
    void aPdfAndAShareLinkWrittenToAStreamAreTheBytesOfTheCallInMemory() {
        try (Client client = new Client(sandbox.origin + "/v3", KEY)) {
            byte[] pdf = client.getInspectionPdf(FULL);
            ByteArrayOutputStream streamed = new ByteArrayOutputStream();
            assertEquals(pdf.length, client.getInspectionPdfTo(FULL, streamed));
            assertArrayEquals(pdf, streamed.toByteArray());
            String link = client.getInspectionShareUrl(FULL).link();
            ByteArrayOutputStream shared = new ByteArrayOutputStream();
            long written = client.fetchPresignedTo(link, shared);
            assertArrayEquals(client.fetchPresigned(link), shared.toByteArray());
            assertTrue(written > 0 && new String(shared.toByteArray(), 0, 5, java.nio.charset.StandardCharsets.US_ASCII).equals("%PDF-"));
        }
    }

    @Test
    void aStreamedDownloadIsNotBoundByTheInMemoryLimit() {
        ClientOptions small = ClientOptions.builder().maxResponseBytes(16).build();
        try (AsyncClient client = new AsyncClient(sandbox.origin + "/v3", KEY, small)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long written = client.getInspectionPdfTo(FULL, out).join();
            assertTrue(written > 16, "wrote " + written);
            assertEquals(written, out.size());
        }
    }

    @Test
    void aStreamThatFailsEndsTheCallWithoutAskingAgain() {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("disk full");
            }
        };
        try (Client client = new Client(sandbox.origin + "/v3", KEY)) {
            sandbox.control("DELETE", "/_sandbox/requests", null);
            assertThrows(TransportException.class, () -> client.getInspectionPdfTo(FULL, broken));
            int asked = 0;
            for (var r : ((dev.inspection.client.runtime.JsonArray) sandbox.control("GET", "/_sandbox/requests", null)).elements()) {
                asked += r.toJson().contains("/v3/inspections/ins_demo_full") && r.toJson().contains("\"status\":200") ? 1 : 0;
            }
            assertEquals(1, asked, "the document was asked for once");
        }
    }
}
