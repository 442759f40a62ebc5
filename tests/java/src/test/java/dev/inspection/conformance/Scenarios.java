package dev.inspection.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;

/**
 * The scenario files, read from the JSON copies {@code cargo xtask} writes of
 * {@code tests/conformance/*.yaml} under {@code target/} (Java has no YAML parser in the
 * JDK), each checked against {@code tests/conformance/format.json} as it is read, the
 * client settings a scenario leaves out filled in from its defaults.
 */
final class Scenarios {
    /** One scenario: its file, the sandbox flags it runs against, and its JSON. */
    record Scenario(String file, String name, String iface, List<String> args, boolean proxy, JsonObject json) {
        JsonObject client() {
            return (JsonObject) json.get("client").orElseThrow();
        }

        List<JsonObject> steps() {
            List<JsonObject> out = new ArrayList<>();
            for (JsonValue v : ((JsonArray) json.get("steps").orElseThrow()).elements()) {
                out.add((JsonObject) v);
            }
            return out;
        }
    }

    private final JsonObject mappings;
    private final JsonObject defaults;

    Scenarios(Path root) {
        JsonObject format = (JsonObject) JsonValue.parse(read(root.resolve("tests/conformance/format.json")));
        this.mappings = (JsonObject) format.get("mappings").orElseThrow();
        this.defaults = (JsonObject) format.get("defaults").orElseThrow();
    }

    static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new RunnerError("cannot read " + path + ": " + e.getMessage());
        }
    }

    /** Every scenario of every file in {@code dir}, in file-name order. */
    List<Scenario> all(Path dir) {
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new RunnerError("no scenario copies in " + dir + " (cargo xtask java writes them): " + e.getMessage());
        }
        List<Scenario> out = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString().replace(".json", ".yaml");
            out.addAll(file(name, (JsonObject) JsonValue.parse(read(file))));
        }
        return out;
    }

    private List<Scenario> file(String name, JsonObject doc) {
        try {
            check(doc, "file", "");
        } catch (RunnerError e) {
            throw new RunnerError(name + ": " + e.getMessage());
        }
        JsonObject sandbox = doc.get("sandbox").orElse(null) instanceof JsonObject s ? s : JsonObject.of(Map.of());
        List<Scenario> out = new ArrayList<>();
        for (JsonValue v : ((JsonArray) doc.get("scenarios").orElseThrow()).elements()) {
            JsonObject s = (JsonObject) v;
            String iface = ((JsonString) s.get("interface").orElseThrow()).value();
            JsonObject own = s.get("sandbox").orElse(null) instanceof JsonObject o ? o : sandbox;
            List<String> args = new ArrayList<>();
            if (own.get("args").orElse(null) instanceof JsonArray a) {
                a.elements().forEach(x -> args.add(((JsonString) x).value()));
            }
            boolean proxy = own.get("proxy").orElse(null) instanceof dev.inspection.client.runtime.JsonBoolean b && b.value();
            Map<String, JsonValue> members = new LinkedHashMap<>(s.members());
            members.put("client", client(iface, s.get("client").orElse(JsonNull.INSTANCE)));
            String title = ((JsonString) s.get("name").orElseThrow()).value();
            out.add(new Scenario(name, title, iface, List.copyOf(args), proxy, JsonObject.of(members)));
        }
        return out;
    }

    /** Refuses a key the mapping of {@code kind} (at {@code at}) may not have. */
    private void check(JsonValue value, String kind, String at) {
        if (!(value instanceof JsonObject map)) {
            return;
        }
        JsonObject keys = (JsonObject) mappings.get(kind).orElseThrow();
        map.members().forEach((key, v) -> {
            if (keys.get(key).isEmpty()) {
                throw new RunnerError("unknown key `" + key + "` in " + (at.isEmpty() ? "the file" : at));
            }
            JsonValue holds = keys.get(key).get();
            String inner = at.isEmpty() ? key : at + "." + key;
            if (holds instanceof JsonString k) {
                check(v, k.value(), inner);
            } else if (holds instanceof JsonArray list && v instanceof JsonArray entries) {
                String k = ((JsonString) list.get(0)).value();
                for (int i = 0; i < entries.size(); i++) {
                    check(entries.get(i), k, inner + "[" + i + "]");
                }
            } else if (holds instanceof JsonObject oneOf) {
                JsonArray allowed = (JsonArray) oneOf.get("one_of").orElseThrow();
                if (!allowed.elements().contains(v)) {
                    throw new RunnerError(inner + " is one of " + allowed.toJson() + ", not " + Patterns.show(v));
                }
            }
        });
    }

    /** The client settings: each one given (not null), else the default; credentials key by key. */
    private JsonObject client(String iface, JsonValue given) {
        Map<String, JsonValue> client = new LinkedHashMap<>(((JsonObject) defaults.get("client").orElseThrow()).members());
        JsonObject credentials = (JsonObject) defaults.get("credentials").orElseThrow();
        client.put("credentials", credentials.get(iface).orElse(JsonObject.of(Map.of())));
        if (given instanceof JsonObject g) {
            g.members().forEach((key, v) -> {
                if (client.get(key) instanceof JsonObject under && v instanceof JsonObject over) {
                    Map<String, JsonValue> merged = new LinkedHashMap<>(under.members());
                    over.members().forEach((k, w) -> {
                        if (!(w instanceof JsonNull)) {
                            merged.put(k, w);
                        }
                    });
                    client.put(key, JsonObject.of(merged));
                } else if (!(v instanceof JsonNull)) {
                    client.put(key, v);
                }
            });
        }
        return JsonObject.of(client);
    }
}
