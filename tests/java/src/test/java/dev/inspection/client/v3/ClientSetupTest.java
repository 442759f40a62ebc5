package dev.inspection.client.v3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.inspection.client.runtime.ConfigException;
import dev.inspection.client.runtime.ValidationException;
import dev.inspection.client.runtime.Violation;

/**
 * What the v3 client decides before anything is sent: which base URLs and credentials it
 * takes, what its string forms show, and the documented limits it checks. (What it puts on
 * the wire is the conformance scenarios' part.) The host below resolves nowhere, so a request
 * sent by mistake fails the test.
 */
class ClientSetupTest {
    private static final String NOWHERE = "https://client-setup.invalid/v3";

    @Test
    void theKeySecretIsNeverInAStringForm() {
        ApiKey key = ApiKey.of("key-id-1", "TOP-SECRET-VALUE");
        assertFalse(key.toString().contains("TOP-SECRET"), key.toString());
        assertTrue(key.toString().contains("key-id-1"));
        try (Client client = new Client(NOWHERE, key)) {
            assertFalse(client.toString().contains("TOP-SECRET"), client.toString());
        }
    }

    @Test
    void aSecretAHeaderCannotCarryIsRefusedByNameNotValue() {
        ConfigException e = assertThrows(ConfigException.class,
            () -> new Client(NOWHERE, ApiKey.of("id", "line\nbreak-secret")));
        assertTrue(e.getMessage().contains("api-key-secret"), e.getMessage());
        assertFalse(e.getMessage().contains("break-secret"), e.getMessage());
        assertEquals("config", e.kind());
    }

    @Test
    void plainHttpIsOnlyForLoopbackHosts() {
        ApiKey key = ApiKey.of("id", "secret");
        ConfigException e = assertThrows(ConfigException.class, () -> new Client("http://example.com/v3", key));
        assertTrue(e.getMessage().contains("https"), e.getMessage());
        new Client("http://127.0.0.1:9/v3", key).close();
        new AsyncClient("http://localhost:9/v3", key).close();
    }

    @Test
    void documentedLimitsAreCheckedBeforeSendingEveryViolationAtOnce() {
        try (Client client = new Client(NOWHERE, ApiKey.of("id", "secret"))) {
            NewUnit unit = NewUnit.builder().referenceNumber("r".repeat(256)).vin("IOQ").build();
            ValidationException e = assertThrows(ValidationException.class, () -> client.createUnit(unit));
            List<String> paths = e.violations().stream().map(Violation::path).sorted().toList();
            assertEquals(List.of("reference_number", "vin", "vin"), paths);
            ValidationException q = assertThrows(ValidationException.class,
                () -> client.listUnits(ListUnitsQuery.builder().perPage(101).build()).first());
            assertEquals("per_page", q.violations().get(0).path());
        }
    }

    @Test
    void aResumePointOfAnotherKindOrOriginIsRefusedBeforeSending() {
        try (Client client = new Client(NOWHERE, ApiKey.of("id", "secret"))) {
            ListUnitsQuery none = ListUnitsQuery.builder().build();
            ConfigException e = assertThrows(ConfigException.class, () -> client.listUnits(none, "page:3"));
            assertTrue(e.getMessage().contains("not a resume point"), e.getMessage());
            assertThrows(dev.inspection.client.runtime.ForeignOriginException.class,
                () -> client.listUnits(none, "link:https://elsewhere.example/v3/units?page=2"));
        }
    }
}
