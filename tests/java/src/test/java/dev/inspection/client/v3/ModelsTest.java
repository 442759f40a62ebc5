package dev.inspection.client.v3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.runtime.Presence;
import dev.inspection.client.runtime.ValidationException;
import dev.inspection.client.runtime.Violation;

/** The generated v3 models on the fixtures every language's tests read. */
class ModelsTest {
    private static String fixture(String name) {
        Path root = Path.of(System.getProperty("project.root", "."));
        try {
            return Files.readString(root.resolve("tests/fixtures/v3").resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Read and written back, the fixture is the same JSON text: member order, numbers, unknowns. */
    private static <T> T roundTrips(String name, Function<String, T> read, Function<T, JsonValue> write) {
        String text = fixture(name);
        T value = read.apply(text);
        assertEquals(JsonValue.parse(text).toJson(), write.apply(value).toJson(), name);
        return value;
    }

    @Test
    void everyFixtureRoundTripsExactly() {
        for (String name : new String[] {"inspection.json", "inspection_unknown_field_type.json",
                "inspection_unknown_result.json", "inspection_unknown_signature.json", "inspection_unknown_type.json"}) {
            roundTrips(name, Inspection::fromJson, Inspection::toJsonValue);
        }
        for (String name : new String[] {"task.json", "task_completed.json", "task_unknown_status.json"}) {
            roundTrips(name, Task::fromJson, Task::toJsonValue);
        }
        for (String name : new String[] {"unit.json", "unit_extra_properties.json", "unit_minimal.json"}) {
            roundTrips(name, Unit::fromJson, Unit::toJsonValue);
        }
        roundTrips("share_url.json", ShareUrl::fromJson, ShareUrl::toJsonValue);
    }

    @Test
    void aPageOfInspectionsIsReadItemByItem() {
        JsonObject page = (JsonObject) JsonValue.parse(fixture("inspections_page.json"));
        JsonValue data = page.get("data").orElseThrow();
        int count = 0;
        for (JsonValue item : ((dev.inspection.client.runtime.JsonArray) data).elements()) {
            assertEquals(item.toJson(), Inspection.fromJson(item).toJson());
            count++;
        }
        assertTrue(count > 0);
    }

    @Test
    void anUnknownEnumValueIsKeptAndNotKnown() {
        Task task = Task.fromJson(fixture("task_unknown_status.json"));
        TaskStatus status = task.status().orElseThrow();
        assertFalse(status.isKnown());
        assertEquals("paused", status.value());
        assertTrue(status.known().isEmpty());
        assertTrue(TaskStatus.values().stream().allMatch(TaskStatus::isKnown));
        assertEquals(TaskStatus.values().get(0), TaskStatus.of(TaskStatus.values().get(0).value()));
    }

    @Test
    void anUnknownUnionMemberKeepsItsWholeObject() {
        Inspection inspection = Inspection.fromJson(fixture("inspection_unknown_result.json"));
        InspectionResult unknown = inspection.results().orElseThrow().stream()
                .filter(r -> r instanceof InspectionResult.Unknown)
                .findFirst()
                .orElseThrow();
        String seen = unknown.accept(new InspectionResult.Visitor<String>() {
            @Override
            public String visitChecklist(InspectionResult.Checklist member) {
                return "checklist";
            }

            @Override
            public String visitDataTemplate(InspectionResult.DataTemplate member) {
                return "data template";
            }

            @Override
            public String visitPdfForm(InspectionResult.PdfForm member) {
                return "pdf form";
            }

            @Override
            public String visitCollisionDamageWaiver(InspectionResult.CollisionDamageWaiver member) {
                return "waiver";
            }

            @Override
            public String visitUnknown(InspectionResult.Unknown member) {
                return "unknown " + member.tag();
            }
        });
        assertTrue(seen.startsWith("unknown "), seen);
        assertEquals(((InspectionResult.Unknown) unknown).raw(), unknown.toJsonValue());
    }

    @Test
    void anUpdateMadeFromAnAnswerKeepsWhatTheSpecDoesNotList() {
        Unit unit = Unit.fromJson(fixture("unit_extra_properties.json"));
        assertFalse(unit.additionalProperties().isEmpty());
        Unit changed = unit.toBuilder().referenceNumber("FL-0043").build();
        assertEquals("FL-0043", changed.referenceNumber().orElseThrow());
        assertEquals(unit.additionalProperties(), changed.additionalProperties());
        JsonObject written = changed.toJsonValue();
        for (String name : unit.additionalProperties().keySet()) {
            assertTrue(written.get(name).isPresent(), name);
        }
        assertEquals(unit, Unit.fromJson(unit.toJson()));
        assertThrows(IllegalArgumentException.class,
                () -> Unit.builder().putAdditionalProperty("reference_number", JsonString.of("x")));
    }

    @Test
    void absentNullAndAValueAreThreeStates() {
        LocationRef absent = LocationRef.fromJson("{\"id\": \"loc_1\"}");
        LocationRef nul = LocationRef.fromJson("{\"id\": \"loc_1\", \"external_id\": null}");
        LocationRef set = LocationRef.fromJson("{\"id\": \"loc_1\", \"external_id\": \"X\"}");
        assertTrue(absent.externalIdState().isAbsent());
        assertTrue(nul.externalIdState().isNull());
        assertEquals(Presence.of("X"), set.externalIdState());
        assertTrue(absent.externalId().isEmpty() && nul.externalId().isEmpty());
        assertEquals("{\"id\":\"loc_1\"}", absent.toJson());
        assertEquals("{\"id\":\"loc_1\",\"external_id\":null}", nul.toJson());
        LocationRef cleared = set.toBuilder().externalIdState(Presence.ofNull()).build();
        assertEquals(nul, cleared);
    }

    @Test
    void whatDoesNotFitIsAJsonExceptionNamingItsPath() {
        JsonException wrongType = assertThrows(JsonException.class,
                () -> Unit.fromJson("{\"id\": \"unt_1\", \"reference_number\": 7}"));
        assertEquals("$.reference_number", wrongType.path());
        // The path once, then what was wrong (the reason alone in reason()).
        assertEquals("$.reference_number: expected a string, got a number", wrongType.getMessage());
        assertEquals("expected a string, got a number", wrongType.reason());
        JsonException missing = assertThrows(JsonException.class, () -> Unit.fromJson("{}"));
        assertEquals("$.id: the required property is missing", missing.getMessage());
        JsonException nested = assertThrows(JsonException.class,
                () -> Inspection.fromJson(fixture("inspection.json").replace("\"reference_number\": \"EX-0117\"", "\"reference_number\": 5")));
        assertEquals("$.unit.reference_number", nested.path());
        assertThrows(IllegalStateException.class, () -> Unit.builder().build());
    }

    @Test
    void aValueDeepInListsAndUnionsIsNamedByItsWholePath() {
        // Decoding first makes no path, and reads again with paths at the first error: the
        // message and path are those of the read with paths, through list items and union
        // members alike.
        String text = fixture("inspection.json").replace("\"label\": \"Hour meter\"", "\"label\": 12");
        JsonException e = assertThrows(JsonException.class, () -> Inspection.fromJson(text));
        assertEquals("$.results[0].data[1].label", e.path());
        assertEquals("$.results[0].data[1].label: expected a string, got a number", e.getMessage());
        JsonException untagged = assertThrows(JsonException.class,
                () -> Inspection.fromJson(fixture("inspection.json").replace("\"object\": \"checklist\",", "")));
        assertEquals("$.results[0].object", untagged.path());
    }

    @Test
    void everyBrokenLimitIsListedWithItsPathInTheOtherClientsWords() {
        NewUnit unit = NewUnit.builder().referenceNumber("V-1").vin("SHORT").year(1799).build();
        ValidationException e = assertThrows(ValidationException.class, unit::validate);
        assertEquals(java.util.List.of(
                new Violation("year", "must be at least 1800, got 1799"),
                new Violation("vin", "must be exactly 17 characters, got 5"),
                new Violation("vin", "must hold only ASCII letters and digits, never I, O, Q, i, o, q; found 'O' at position 3")),
                e.violations());
        assertEquals("invalid request: year: must be at least 1800, got 1799; vin: must be exactly 17 characters, got 5; "
                + "vin: must hold only ASCII letters and digits, never I, O, Q, i, o, q; found 'O' at position 3",
                e.getMessage());
        NewUnit fine = NewUnit.builder().referenceNumber("V-1").vin("1HGCM82633A004352").year(2020).build();
        assertTrue(fine.violations().isEmpty());
        fine.validate();
        String longName = "x".repeat(256);
        assertEquals(java.util.List.of(new Violation("reference_number", "must be at most 255 characters, got 256")),
                NewUnit.builder().referenceNumber(longName).build().violations());
    }

    @Test
    void exactlyOneAssigneeGroupIsGiven() {
        TaskRequest.Builder task = TaskRequest.builder().name("Check").referenceNumber("FL-0042")
                .dueBy(dev.inspection.client.runtime.DateOrDateTime.of(java.time.LocalDate.of(2026, 3, 1)));
        assertEquals(java.util.List.of(new Violation("assignee",
                "expected exactly one of `assignee_username`, `location_id`, `user_group_id`, found none")),
                task.build().violations());
        assertEquals(java.util.List.of(new Violation("assignee",
                "expected exactly one of `assignee_username`, `location_id`, `user_group_id`, found "
                        + "`assignee_username` and `location_id`")),
                task.assigneeUsername("dana").locationId(6003).build().violations());
        assertTrue(task.clearLocationId().build().violations().isEmpty());
    }

    @Test
    void anIdIsATypeOfItsOwn() {
        UnitId id = UnitId.of("unt_1");
        assertEquals("unt_1", id.value());
        assertEquals(id, UnitId.of("unt_1"));
        assertInstanceOf(JsonString.class, id.toJsonValue());
    }
}
