package dev.inspection.conformance;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.inspection.client.runtime.ApiException;
import dev.inspection.client.runtime.ClientException;
import dev.inspection.client.runtime.DecodeException;
import dev.inspection.client.runtime.ForeignOriginException;
import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonBoolean;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.runtime.NotReadyException;
import dev.inspection.client.runtime.PagingInterruptedException;
import dev.inspection.client.runtime.TooLargeException;
import dev.inspection.client.runtime.Upserted;
import dev.inspection.client.runtime.ValidationException;
import dev.inspection.client.runtime.Violation;
import dev.inspection.client.runtime.internal.Dates;

/** What a call gave, as the JSON expectations match: answers written back, errors by kind. */
final class Results {
    private Results() {
    }

    /** A call's answer as JSON: records written back, bytes as {@code {size, text}}, upserts as {@code {created, value}}. */
    static JsonValue toJson(Object value) {
        if (value == null) {
            return JsonNull.INSTANCE;
        }
        if (value instanceof JsonValue v) {
            return v;
        }
        if (value instanceof String s) {
            return JsonString.of(s);
        }
        if (value instanceof Boolean b) {
            return JsonBoolean.of(b);
        }
        if (value instanceof Integer || value instanceof Long) {
            return JsonNumber.of(((Number) value).longValue());
        }
        if (value instanceof Double d) {
            return JsonNumber.of(d);
        }
        if (value instanceof BigDecimal d) {
            return JsonNumber.of(d);
        }
        if (value instanceof byte[] bytes) {
            Map<String, JsonValue> out = new LinkedHashMap<>();
            out.put("size", JsonNumber.of(bytes.length));
            out.put("text", JsonString.of(new String(bytes, StandardCharsets.UTF_8)));
            return JsonObject.of(out);
        }
        if (value instanceof OffsetDateTime t) {
            return JsonString.of(Dates.format(t));
        }
        if (value instanceof LocalDate d) {
            return JsonString.of(d.toString());
        }
        if (value instanceof Upserted<?> u) {
            Map<String, JsonValue> out = new LinkedHashMap<>();
            out.put("created", JsonBoolean.of(u.created()));
            out.put("value", toJson(u.value()));
            return JsonObject.of(out);
        }
        if (value instanceof List<?> list) {
            List<JsonValue> out = new ArrayList<>();
            list.forEach(v -> out.add(toJson(v)));
            return JsonArray.of(out);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, JsonValue> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put((String) k, toJson(v)));
            return JsonObject.of(out);
        }
        return writtenBack(value);
    }

    /** A generated value's own {@code toJsonValue()} (a page's, with its records written back). */
    private static JsonValue writtenBack(Object value) {
        try {
            for (Method m : value.getClass().getMethods()) {
                if (m.getName().equals("toJsonValue") && m.getParameterCount() == 1) {
                    java.util.function.Function<Object, JsonValue> item = Results::toJson;
                    return (JsonValue) m.invoke(value, item);
                }
            }
            return (JsonValue) value.getClass().getMethod("toJsonValue").invoke(value);
        } catch (ReflectiveOperationException e) {
            throw new RunnerError("cannot write a " + value.getClass().getName() + " back as JSON: " + e);
        }
    }

    private static JsonValue seconds(Optional<Duration> d) {
        return d.map(x -> (JsonValue) JsonNumber.of(x.getSeconds())).orElse(JsonNull.INSTANCE);
    }

    /** The error as the JSON {@code expect.error} matches: its kind and what the kind carries. */
    static JsonObject describe(Throwable e) {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        if (e instanceof PagingInterruptedException p) {
            out.putAll(describe(p.pageError()).members());
            out.put("resume", JsonString.of(p.resume()));
            return JsonObject.of(out);
        }
        if (!(e instanceof ClientException c)) {
            out.put("kind", JsonString.of("unknown"));
            out.put("debug", JsonString.of(String.valueOf(e)));
            return JsonObject.of(out);
        }
        out.put("kind", JsonString.of(c.kind()));
        if (e instanceof ApiException a) {
            out.put("status", JsonNumber.of(a.status()));
            out.put("message", a.serviceMessage().map(m -> (JsonValue) JsonString.of(m)).orElse(JsonNull.INSTANCE));
            out.put("retry_after_s", seconds(a.retryAfter()));
        } else if (e instanceof ValidationException v) {
            List<JsonValue> paths = new ArrayList<>();
            v.violations().stream().map(Violation::path).sorted().forEach(p -> paths.add(JsonString.of(p)));
            out.put("paths", JsonArray.of(paths));
        } else if (e instanceof DecodeException d) {
            out.put("status", JsonNumber.of(d.status()));
            // The README's paths start at the body's members (`data[0].results[0]`).
            String path = d.path().startsWith("$.") ? d.path().substring(2) : d.path().equals("$") ? "" : d.path();
            out.put("path", JsonString.of(path.startsWith("$") ? path.substring(1) : path));
        } else if (e instanceof NotReadyException n) {
            out.put("attempts", JsonNumber.of(n.attempts()));
            out.put("retry_after_s", seconds(n.retryAfter()));
        } else if (e instanceof TooLargeException t) {
            out.put("limit", JsonNumber.of(t.limit()));
        } else if (e instanceof ForeignOriginException f) {
            out.put("origin", JsonString.of(f.origin()));
            out.put("via", JsonString.of(f.via()));
        }
        return JsonObject.of(out);
    }

    /** What a user sees of an error: its text and its cause's, as {@code toString()} gives them. */
    static String text(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            out.append(c).append(' ');
        }
        return out.toString();
    }
}
