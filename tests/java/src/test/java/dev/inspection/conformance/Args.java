package dev.inspection.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;

/** A step's {@code args}, taken key by key, so that leftovers are named. */
final class Args {
    final Map<String, JsonValue> path;
    final Map<String, JsonValue> query;
    JsonValue body;
    private final Map<String, JsonValue> other;

    Args(JsonValue args) {
        Map<String, JsonValue> rest = new LinkedHashMap<>();
        if (args instanceof JsonObject o) {
            rest.putAll(o.members());
        } else if (args != null && !(args instanceof JsonNull)) {
            throw new RunnerError("`args` is a mapping, not " + Patterns.show(args));
        }
        this.path = section(rest, "path");
        this.query = section(rest, "query");
        JsonValue b = rest.remove("body");
        this.body = b;
        this.other = rest;
    }

    private static Map<String, JsonValue> section(Map<String, JsonValue> rest, String name) {
        JsonValue v = rest.remove(name);
        if (v == null || v instanceof JsonNull) {
            return new LinkedHashMap<>();
        }
        if (!(v instanceof JsonObject o)) {
            throw new RunnerError("`args." + name + "` is a mapping, not " + Patterns.show(v));
        }
        return new LinkedHashMap<>(o.members());
    }

    JsonValue take(String name) {
        JsonValue v = other.remove(name);
        return v instanceof JsonNull ? null : v;
    }

    String optString(String name) {
        JsonValue v = take(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof JsonString s)) {
            throw new RunnerError("`args." + name + "` is text, not " + Patterns.show(v));
        }
        return s.value();
    }

    String string(String name) {
        String v = optString(name);
        if (v == null) {
            throw new RunnerError("`args." + name + "` is required");
        }
        return v;
    }

    List<String> strings(String name) {
        JsonValue v = take(name);
        List<String> out = new ArrayList<>();
        if (!(v instanceof JsonArray a)) {
            throw new RunnerError("`args." + name + "` is a list of strings, not " + Patterns.show(v));
        }
        for (JsonValue e : a.elements()) {
            if (!(e instanceof JsonString s)) {
                throw new RunnerError("`args." + name + "` is a list of strings, not " + Patterns.show(v));
            }
            out.add(s.value());
        }
        return out;
    }

    /** Fails when an argument was given that the call does not take. */
    void finish() {
        List<String> left = new ArrayList<>();
        path.keySet().forEach(k -> left.add("path." + k));
        query.keySet().forEach(k -> left.add("query." + k));
        if (body != null) {
            left.add("body");
        }
        left.addAll(other.keySet());
        if (!left.isEmpty()) {
            throw new RunnerError("this call takes no `args." + String.join("`, `args.", left) + "`");
        }
    }
}
