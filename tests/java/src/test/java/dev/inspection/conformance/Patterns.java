package dev.inspection.conformance;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonBoolean;
import dev.inspection.client.runtime.JsonException;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;

/**
 * Matching as the scenarios' README says: {@code ${...}} references filled in, results and
 * errors against patterns, the requests the sandbox recorded against the expected ones. A
 * Java {@code null} stands for "not there" (absent); JSON null is {@link JsonNull}.
 */
final class Patterns {
    private Patterns() {
    }

    static String show(JsonValue v) {
        if (v == null) {
            return "nothing";
        }
        String text = v.toJson();
        return text.length() > 600 ? text.substring(0, 600) + "..." : text;
    }

    // ---------------------------------------------------------------- ${...} references

    static JsonValue lookup(String reference, Map<String, JsonValue> vars) {
        String[] parts = reference.split("\\.", -1);
        JsonValue value = vars.get(parts[0]);
        if (value == null) {
            throw new RunnerError("`${" + reference + "}`: nothing was saved as `" + parts[0] + "`");
        }
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            JsonValue found = null;
            if (value instanceof JsonArray a && part.matches("[0-9]+") && Integer.parseInt(part) < a.size()) {
                found = a.get(Integer.parseInt(part));
            } else if (value instanceof JsonObject o) {
                found = o.get(part).orElse(null);
            }
            if (found == null) {
                throw new RunnerError("`${" + reference + "}`: `" + part + "` is not in " + show(value));
            }
            value = found;
        }
        return value;
    }

    static JsonValue fillString(String s, Map<String, JsonValue> vars) {
        if (s.startsWith("${") && s.endsWith("}") && !s.substring(2).contains("${")) {
            return lookup(s.substring(2, s.length() - 1), vars);
        }
        StringBuilder out = new StringBuilder();
        String rest = s;
        int start = rest.indexOf("${");
        while (start >= 0) {
            out.append(rest, 0, start);
            String after = rest.substring(start + 2);
            int end = after.indexOf('}');
            if (end < 0) {
                throw new RunnerError("`" + s + "`: `${` without a closing `}`");
            }
            JsonValue value = lookup(after.substring(0, end), vars);
            out.append(value instanceof JsonString str ? str.value() : value.toJson());
            rest = after.substring(end + 1);
            start = rest.indexOf("${");
        }
        return JsonString.of(out.append(rest).toString());
    }

    /** Every {@code ${name.path}} in the strings of {@code value} replaced. */
    static JsonValue fill(JsonValue value, Map<String, JsonValue> vars) {
        if (value instanceof JsonString s) {
            return fillString(s.value(), vars);
        }
        if (value instanceof JsonArray a) {
            List<JsonValue> out = new ArrayList<>();
            a.elements().forEach(v -> out.add(fill(v, vars)));
            return JsonArray.of(out);
        }
        if (value instanceof JsonObject o) {
            Map<String, JsonValue> out = new LinkedHashMap<>();
            o.members().forEach((k, v) -> out.put(k, fill(v, vars)));
            return JsonObject.of(out);
        }
        return value;
    }

    // ---------------------------------------------------------------- equality and patterns

    /** Equality, numbers by value, objects with the same keys. */
    static boolean same(JsonValue a, JsonValue b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a instanceof JsonNumber x) {
            return b instanceof JsonNumber y && x.bigDecimalValue().compareTo(y.bigDecimalValue()) == 0;
        }
        if (a instanceof JsonArray x) {
            if (!(b instanceof JsonArray y) || x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof JsonObject x) {
            if (!(b instanceof JsonObject y) || !x.members().keySet().equals(y.members().keySet())) {
                return false;
            }
            return x.members().entrySet().stream().allMatch(e -> same(e.getValue(), y.get(e.getKey()).orElse(null)));
        }
        return a.equals(b);
    }

    private static String join(String at, String key) {
        return at.isEmpty() ? key : at + "." + key;
    }

    /** Whether {@code actual} ({@code null}: not there) matches {@code pattern}. */
    static void check(JsonValue pattern, JsonValue actual, String at) {
        String here = at.isEmpty() ? "the result" : at;
        if (pattern instanceof JsonObject p && p.size() == 1 && p.members().keySet().iterator().next().startsWith("$")) {
            Map.Entry<String, JsonValue> m = p.members().entrySet().iterator().next();
            if (!matches(m.getKey(), m.getValue(), actual, here)) {
                throw new RunnerError(here + ": expected " + show(pattern) + ", got " + show(actual));
            }
            return;
        }
        if (actual == null) {
            throw new RunnerError(here + ": expected " + show(pattern) + ", got nothing");
        }
        if (pattern instanceof JsonObject p && actual instanceof JsonObject a) {
            p.members().forEach((k, v) -> check(v, a.get(k).orElse(null), join(at, k)));
            return;
        }
        if (pattern instanceof JsonArray p && actual instanceof JsonArray a) {
            if (p.size() != a.size()) {
                throw new RunnerError(here + ": expected " + p.size() + " entries, got " + a.size() + ": " + show(a));
            }
            for (int i = 0; i < p.size(); i++) {
                check(p.get(i), a.get(i), at + "[" + i + "]");
            }
            return;
        }
        if (!same(pattern, actual)) {
            throw new RunnerError(here + ": expected " + show(pattern) + ", got " + show(actual));
        }
    }

    private static boolean matches(String name, JsonValue arg, JsonValue actual, String here) {
        switch (name) {
            case "$absent":
                return actual == null;
            case "$any":
                return actual != null;
            case "$at_least":
                return actual instanceof JsonNumber n && arg instanceof JsonNumber m
                    && n.bigDecimalValue().compareTo(m.bigDecimalValue()) >= 0;
            case "$starts_with":
                return actual instanceof JsonString s && arg instanceof JsonString t && s.value().startsWith(t.value());
            case "$json":
                if (!(actual instanceof JsonString s)) {
                    return false;
                }
                try {
                    return same(arg, JsonValue.parse(s.value()));
                } catch (JsonException e) {
                    return false;
                }
            default:
                throw new RunnerError(here + ": unknown matcher `" + name + "`");
        }
    }

    // ---------------------------------------------------------------- expected requests

    private static String text(JsonObject record, String key) {
        return record.get(key).orElse(null) instanceof JsonString s ? s.value() : "";
    }

    /** Query values are text: numbers and booleans in a pattern stand for their JSON text. */
    private static JsonValue asText(JsonValue pattern) {
        if (pattern instanceof JsonNumber || pattern instanceof JsonBoolean) {
            return JsonString.of(pattern.toJson());
        }
        if (pattern instanceof JsonArray a) {
            List<JsonValue> out = new ArrayList<>();
            a.elements().forEach(v -> out.add(asText(v)));
            return JsonArray.of(out);
        }
        return pattern;
    }

    private static void checkQuery(JsonValue want, JsonValue pairs) {
        Map<String, List<JsonValue>> got = new LinkedHashMap<>();
        if (pairs instanceof JsonArray a) {
            for (JsonValue pair : a.elements()) {
                if (pair instanceof JsonArray p && p.size() > 0) {
                    String name = p.get(0) instanceof JsonString s ? s.value() : "";
                    got.computeIfAbsent(name, k -> new ArrayList<>()).add(p.size() > 1 ? p.get(1) : JsonNull.INSTANCE);
                }
            }
        }
        Map<String, JsonValue> expected = new LinkedHashMap<>();
        if (want != null) {
            if (!(want instanceof JsonObject o)) {
                throw new RunnerError("`query` is a mapping, not " + show(want));
            }
            expected.putAll(o.members());
        }
        for (Map.Entry<String, List<JsonValue>> e : got.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                throw new RunnerError("unexpected query parameter `" + e.getKey() + "` (" + show(JsonArray.of(e.getValue())) + ")");
            }
        }
        expected.forEach((name, pattern) -> {
            List<JsonValue> found = got.get(name);
            JsonValue actual = null;
            if (found != null) {
                actual = found.size() == 1 && !(pattern instanceof JsonArray) ? found.get(0) : JsonArray.of(found);
            }
            check(asText(pattern), actual, "query " + name);
        });
    }

    private static double receivedMs(JsonObject record) {
        return record.get("received_ms").orElse(null) instanceof JsonNumber n ? n.doubleValue() : 0;
    }

    private static void checkRequest(JsonValue wantJson, JsonObject got, JsonObject previous) {
        if (!(wantJson instanceof JsonObject want)) {
            throw new RunnerError("an expected request is a mapping, not " + show(wantJson));
        }
        List<String> ignored = new ArrayList<>();
        if (want.get("ignore").orElse(null) instanceof JsonArray a) {
            a.elements().forEach(v -> ignored.add(v instanceof JsonString s ? s.value() : ""));
        }
        String method = want.get("method").orElse(null) instanceof JsonString s ? s.value() : null;
        if (method == null) {
            throw new RunnerError("an expected request needs `method`");
        }
        if (!method.equalsIgnoreCase(text(got, "method"))) {
            throw new RunnerError("expected method " + method + ", got " + text(got, "method"));
        }
        String path = want.get("path").orElse(null) instanceof JsonString s ? s.value() : null;
        if (path == null) {
            throw new RunnerError("an expected request needs `path`");
        }
        String gotPath = text(got, "path");
        boolean pathOk = path.endsWith("*") ? gotPath.startsWith(path.substring(0, path.length() - 1)) : gotPath.equals(path);
        if (!pathOk) {
            throw new RunnerError("expected path " + path + ", got " + gotPath);
        }
        if (!ignored.contains("query")) {
            checkQuery(want.get("query").orElse(null), got.get("query_pairs").orElse(null));
        }
        checkHeaders(want, got);
        if (!ignored.contains("body")) {
            checkBody(want, text(got, "body"));
        }
        if (want.get("status").isPresent() && !same(want.get("status").get(), got.get("status").orElse(null))) {
            throw new RunnerError("expected the sandbox to answer " + show(want.get("status").get()) + ", it answered "
                + show(got.get("status").orElse(null)));
        }
        checkGap(want, "min_gap_ms", true, got, previous);
        checkGap(want, "max_gap_ms", false, got, previous);
    }

    private static void checkHeaders(JsonObject want, JsonObject got) {
        JsonValue headers = want.get("headers").orElse(null);
        if (headers == null) {
            return;
        }
        if (!(headers instanceof JsonObject h)) {
            throw new RunnerError("`headers` is a mapping of lowercase names");
        }
        JsonObject gotHeaders = got.get("headers").orElse(null) instanceof JsonObject o ? o : JsonObject.of(Map.of());
        h.members().forEach((name, value) -> {
            JsonValue pattern = value instanceof JsonNull ? JsonObject.of(Map.of("$absent", JsonBoolean.of(true))) : value;
            check(pattern, gotHeaders.get(name).orElse(null), "header " + name);
        });
    }

    private static void checkBody(JsonObject want, String body) {
        if (want.get("body").isPresent()) {
            JsonValue parsed;
            try {
                parsed = JsonValue.parse(body);
            } catch (JsonException e) {
                throw new RunnerError("expected a JSON body, got " + JsonString.of(body).toJson() + " (" + e.getMessage() + ")");
            }
            if (!same(want.get("body").get(), parsed)) {
                throw new RunnerError("expected the body " + show(want.get("body").get()) + ", got " + show(parsed));
            }
        } else if (want.get("body_text").isPresent()) {
            if (!same(want.get("body_text").get(), JsonString.of(body))) {
                throw new RunnerError("expected the body text " + show(want.get("body_text").get()) + ", got "
                    + JsonString.of(body).toJson());
            }
        } else if (!body.isEmpty()) {
            throw new RunnerError("expected no body, got " + JsonString.of(body).toJson());
        }
    }

    private static void checkGap(JsonObject want, String key, boolean atLeast, JsonObject got, JsonObject previous) {
        if (!(want.get(key).orElse(null) instanceof JsonNumber n)) {
            return;
        }
        if (previous == null) {
            throw new RunnerError("`" + key + "` on the first request has nothing to measure from");
        }
        double gap = receivedMs(got) - receivedMs(previous);
        double limit = n.doubleValue();
        if (atLeast ? gap < limit : gap > limit) {
            throw new RunnerError("came " + Math.round(gap) + " ms after the previous request (" + key + ": " + limit + ")");
        }
    }

    static void checkRequests(List<JsonValue> expected, List<JsonObject> recorded) {
        StringBuilder listing = new StringBuilder();
        for (JsonObject r : recorded) {
            String q = text(r, "query");
            listing.append("  ").append(text(r, "method")).append(' ').append(text(r, "path"))
                .append(q.isEmpty() ? "" : "?" + q).append(" -> ").append(show(r.get("status").orElse(null))).append('\n');
        }
        if (expected.size() != recorded.size()) {
            throw new RunnerError("expected " + expected.size() + " requests, the sandbox received " + recorded.size()
                + ":\n" + listing);
        }
        for (int i = 0; i < expected.size(); i++) {
            try {
                checkRequest(expected.get(i), recorded.get(i), i == 0 ? null : recorded.get(i - 1));
            } catch (RunnerError e) {
                throw new RunnerError("request " + i + ": " + e.getMessage() + "\nreceived:\n" + listing);
            }
        }
    }

    static BigDecimal number(JsonValue v, String what) {
        if (v instanceof JsonNumber n) {
            return n.bigDecimalValue();
        }
        throw new RunnerError("`" + what + "` is a number, not " + show(v));
    }
}
