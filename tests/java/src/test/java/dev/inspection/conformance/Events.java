package dev.inspection.conformance;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.inspection.client.runtime.ClientEvent;
import dev.inspection.client.runtime.Hooks;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonValue;

/**
 * The events every client of a scenario reports through its hooks, written as the README
 * says ({@code {event: request, operation: ..., url_template: ...}}: each record component,
 * its name in snake_case), and checked to hold none of the scenario's secrets.
 */
final class Events implements Hooks {
    private final List<JsonObject> events = new ArrayList<>();

    @Override
    public synchronized void onEvent(ClientEvent event) {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        out.put("event", Results.toJson(event.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT)));
        for (RecordComponent c : event.getClass().getRecordComponents()) {
            try {
                out.put(snake(c.getName()), Results.toJson(c.getAccessor().invoke(event)));
            } catch (ReflectiveOperationException e) {
                throw new RunnerError("cannot read the event's " + c.getName() + ": " + e);
            }
        }
        events.add(JsonObject.of(out));
    }

    private static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** The events reported since the last {@code take}. */
    synchronized List<JsonObject> take() {
        List<JsonObject> out = new ArrayList<>(events);
        events.clear();
        return out;
    }

    static void checkNoSecrets(List<JsonObject> events, Set<String> secrets) {
        for (int i = 0; i < events.size(); i++) {
            JsonObject event = events.get(i);
            for (Map.Entry<String, JsonValue> e : event.members().entrySet()) {
                String text = e.getValue().toJson();
                for (String secret : secrets) {
                    if (!secret.isEmpty() && text.contains(secret)) {
                        throw new RunnerError("event " + i + " shows a secret in `" + e.getKey() + "`");
                    }
                }
            }
        }
    }

    static void check(List<JsonValue> expected, List<JsonObject> got) {
        StringBuilder listing = new StringBuilder();
        got.forEach(e -> listing.append("  ").append(e.toJson()).append('\n'));
        if (expected.size() != got.size()) {
            throw new RunnerError("expected " + expected.size() + " events, the client reported " + got.size() + ":\n"
                + listing);
        }
        for (int i = 0; i < expected.size(); i++) {
            try {
                Patterns.check(expected.get(i), got.get(i), "event " + i);
            } catch (RunnerError e) {
                throw new RunnerError(e.getMessage() + "\nreported:\n" + listing);
            }
        }
    }
}
