package dev.inspection.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.inspection.client.runtime.ClientException;
import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonBoolean;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.runtime.PagingInterruptedException;
import dev.inspection.client.runtime.internal.Dates;

/**
 * A step's call on the generated client, by the operation's name: what it takes comes from
 * the IR ({@code generated/ir.json}: its path parameters, query parameters and body, in the
 * call plan's order), and each JSON argument becomes the typed value the method's parameter
 * takes (a record through its {@code fromJson}, an id through {@code of}, a date-time
 * parsed), found by reflection on the generated client.
 */
final class Calls {
    private final Map<String, Map<String, JsonObject>> operations = new LinkedHashMap<>();

    Calls(Path root) {
        JsonObject ir = (JsonObject) JsonValue.parse(Scenarios.read(root.resolve("generated/ir.json")));
        for (JsonValue i : array(ir, "interfaces")) {
            Map<String, JsonObject> ops = new LinkedHashMap<>();
            for (JsonValue op : array((JsonObject) i, "operations")) {
                ops.put(text((JsonObject) op, "name"), (JsonObject) op);
            }
            operations.put(text((JsonObject) i, "name"), ops);
        }
    }

    private static List<JsonValue> array(JsonObject o, String key) {
        return o.get(key).orElse(null) instanceof JsonArray a ? a.elements() : List.of();
    }

    private static String text(JsonObject o, String key) {
        return o.get(key).orElse(null) instanceof JsonString s ? s.value() : null;
    }

    static String camel(String snake) {
        StringBuilder out = new StringBuilder();
        boolean up = false;
        for (char c : snake.toCharArray()) {
            if (c == '_' || c == '-') {
                up = out.length() > 0;
            } else {
                out.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return out.toString();
    }

    boolean isOperation(String iface, String name) {
        return operations.getOrDefault(iface, Map.of()).containsKey(name);
    }

    /** A step's call of the operation {@code name} in {@code mode}. */
    Outcome call(Flavour flavour, Object client, String iface, String name, Args a, String mode) {
        JsonObject op = operations.get(iface).get(name);
        boolean paged = op.get("paging").orElse(null) instanceof JsonObject;
        String resume = paged ? a.optString("resume") : null;
        String methodName = camel(name);
        List<Object> values = new ArrayList<>();
        Method method = method(client, methodName, paged, resume != null, op, a, values);
        if (resume != null) {
            values.add(resume);
        }
        a.finish();
        Object[] args = values.toArray();
        if (paged) {
            return paged(flavour, client, method, args, mode, resume != null);
        }
        if (mode.equals("send")) {
            return Flavour.attempt(() -> flavour.value(invoke(method, client, args)));
        }
        if (mode.equals("pdf")) {
            Method pdf = find(client, methodName + "Pdf", method.getParameterCount());
            Method target = pdf != null ? pdf : method.getReturnType() == byte[].class
                || op.get("answer").map(x -> "bytes".equals(text((JsonObject) x, "kind"))).orElse(false) ? method : null;
            if (target == null) {
                throw new RunnerError("`" + name + "` cannot be called in mode pdf");
            }
            return Flavour.attempt(() -> flavour.value(invoke(target, client, args)));
        }
        throw new RunnerError("`" + name + "` cannot be called in mode " + mode);
    }

    private Outcome paged(Flavour flavour, Object client, Method method, Object[] args, String mode, boolean resumed) {
        Object listing;
        try {
            listing = invoke(method, client, args);
        } catch (ClientException e) {
            return mode.equals("send") ? Outcome.failed(e) : new Outcome(JsonArray.of(List.of()), e);
        }
        switch (mode) {
            case "send":
                return Flavour.attempt(() -> flavour.first(listing));
            case "pages":
                return collect(flavour, listing, true, false);
            case "items":
                return collect(flavour, listing, false, false);
            case "pages_backward":
                return collect(flavour, listing, true, true);
            case "items_backward":
                return collect(flavour, listing, false, true);
            case "items_resumed":
                return resumedWalk(flavour, client, method, args, resumed);
            default:
                throw new RunnerError("a paged list cannot be called in mode " + mode);
        }
    }

    private static Outcome collect(Flavour flavour, Object listing, boolean pages, boolean backward) {
        List<JsonValue> into = new ArrayList<>();
        try {
            flavour.walk(listing, pages, backward, into);
        } catch (ClientException e) {
            return new Outcome(JsonArray.of(into), e);
        }
        return Outcome.of(JsonArray.of(into));
    }

    /** Mode {@code items_resumed}: walks resumed at their errors' resume points until one ends. */
    private Outcome resumedWalk(Flavour flavour, Object client, Method listMethod, Object[] args, boolean resumed) {
        long records = 0;
        int interruptions = 0;
        int restarts = 0;
        Set<String> ids = new HashSet<>();
        String resume = null;
        Method withResume = resumed ? listMethod : resumeOverload(client, listMethod);
        int base = resumed ? args.length - 1 : args.length;
        while (true) {
            List<JsonValue> items = new ArrayList<>();
            ClientException failure = null;
            Object[] call = java.util.Arrays.copyOf(args, base + 1);
            call[base] = resume;
            try {
                flavour.walk(invoke(withResume, client, call), false, false, items);
            } catch (ClientException e) {
                failure = e;
            }
            resume = null;
            records += items.size();
            for (JsonValue item : items) {
                ids.add(item instanceof JsonObject o ? o.get("id").map(JsonValue::toJson).orElse("null") : item.toJson());
            }
            Map<String, JsonValue> result = new LinkedHashMap<>();
            result.put("records", JsonNumber.of(records));
            result.put("distinct_ids", JsonNumber.of(ids.size()));
            result.put("interruptions", JsonNumber.of(interruptions));
            if (failure == null) {
                return Outcome.of(JsonObject.of(result));
            }
            if (failure instanceof PagingInterruptedException p && interruptions < 500) {
                interruptions++;
                resume = p.resume();
                continue;
            }
            if (records == 0 && restarts < 500) {
                restarts++;
                continue;
            }
            return new Outcome(JsonObject.of(result), failure);
        }
    }

    /** The overload of a list method taking the same parameters and a resume point. */
    private static Method resumeOverload(Object client, Method list) {
        for (Method m : client.getClass().getMethods()) {
            Class<?>[] types = m.getParameterTypes();
            if (m.getName().equals(list.getName()) && types.length == list.getParameterCount() + 1
                    && java.util.Arrays.equals(java.util.Arrays.copyOf(types, types.length - 1), list.getParameterTypes())) {
                return m;
            }
        }
        throw new RunnerError(list.getName() + " has no overload taking a resume point");
    }

    static Object invoke(Method m, Object target, Object[] args) {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new RunnerError(m.getName() + " threw " + e.getCause());
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new RunnerError("cannot call " + m.getName() + ": " + e);
        }
    }

    private static Method find(Object target, String name, int count) {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == count) {
                return m;
            }
        }
        return null;
    }

    /** The overload of {@code name} whose parameters are these inputs (and a resume point after them). */
    private static Method overload(Object client, String name, List<Input> inputs, int count) {
        for (Method m : client.getClass().getMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() != count) {
                continue;
            }
            Class<?>[] types = m.getParameterTypes();
            int at = 0;
            boolean fits = true;
            for (Input in : inputs) {
                if (in.kind.equals("query_object")) {
                    fits &= types[at] != String.class;
                }
                at += in.kind.equals("binary") ? 2 : 1;
            }
            if (fits) {
                return m;
            }
        }
        return null;
    }

    /** The client's method for the operation, its arguments read from {@code a} into {@code values}. */
    private Method method(Object client, String name, boolean paged, boolean resumed, JsonObject op, Args a,
            List<Object> values) {
        List<Input> inputs = inputs(op);
        int count = 0;
        for (Input in : inputs) {
            count += in.kind.equals("binary") ? 2 : 1;
        }
        Method m = overload(client, name, inputs, count + (paged && resumed ? 1 : 0));
        if (m == null) {
            throw new RunnerError("the client has no method `" + name + "` taking " + count + " arguments");
        }
        Type[] types = m.getGenericParameterTypes();
        int at = 0;
        for (Input in : inputs) {
            at = in.read(a, types, at, values);
        }
        return m;
    }

    /** One parameter of the method, as the IR's call plan orders them. */
    private record Input(String kind, JsonObject field, List<JsonObject> queryFields) {
        int read(Args a, Type[] types, int at, List<Object> values) {
            switch (kind) {
                case "path": {
                    String wire = text(field, "name");
                    JsonValue v = a.path.remove(wire);
                    if (v == null) {
                        throw new RunnerError("`args.path." + wire + "` is required");
                    }
                    values.add(pathValue(types[at], v, "path." + wire));
                    return at + 1;
                }
                case "query": {
                    String wire = text(field, "name");
                    JsonValue v = a.query.remove(wire);
                    if (v == null) {
                        throw new RunnerError("`args.query." + wire + "` is required");
                    }
                    values.add(convert(types[at], v, "query." + wire));
                    return at + 1;
                }
                case "binary": {
                    values.add(a.string("body_text").getBytes(StandardCharsets.UTF_8));
                    values.add(a.optString("content_type"));
                    return at + 2;
                }
                case "body": {
                    JsonValue v = a.body;
                    a.body = null;
                    if (v == null && !field.get("optional").map(JsonBoolean.TRUE::equals).orElse(false)) {
                        throw new RunnerError("`args.body` is required");
                    }
                    values.add(v == null ? null : convert(types[at], v, "body"));
                    return at + 1;
                }
                default:
                    values.add(queryObject((Class<?>) types[at], queryFields, a));
                    return at + 1;
            }
        }
    }

    private static List<Input> inputs(JsonObject op) {
        List<JsonValue> query = array(op, "query");
        List<JsonValue> path = array(op, "path_params");
        JsonObject body = op.get("body").orElse(null) instanceof JsonObject b ? b : null;
        boolean binary = body != null && body.get("ty").map(t -> t.toJson().equals("{\"builtin\":\"binary\"}")).orElse(false);
        List<Input> out = new ArrayList<>();
        List<JsonObject> optional = new ArrayList<>();
        for (JsonValue v : array((JsonObject) op.get("call").orElseThrow(), "inputs")) {
            JsonObject in = (JsonObject) v;
            String kind = text(in, "kind");
            int index = in.get("index").map(x -> (int) ((JsonNumber) x).longValueExact().orElseThrow()).orElse(0);
            if (kind.equals("path")) {
                out.add(new Input("path", (JsonObject) path.get(index), null));
            } else if (kind.equals("query")) {
                JsonObject f = (JsonObject) query.get(index);
                if (f.get("required").map(JsonBoolean.TRUE::equals).orElse(false)) {
                    out.add(new Input("query", f, null));
                } else {
                    optional.add(f);
                }
            } else if (body != null && !body.get("optional").map(JsonBoolean.TRUE::equals).orElse(false)) {
                out.add(new Input(binary ? "binary" : "body", body, null));
            }
        }
        if (!optional.isEmpty()) {
            out.add(new Input("query_object", null, optional));
        }
        if (body != null && body.get("optional").map(JsonBoolean.TRUE::equals).orElse(false)) {
            out.add(new Input("body", body, null));
        }
        return out;
    }

    /** The query class built from the step's optional query values, by their setters. */
    private static Object queryObject(Class<?> type, List<JsonObject> fields, Args a) {
        try {
            Object builder = type.getMethod("builder").invoke(null);
            for (JsonObject f : fields) {
                String wire = text(f, "name");
                JsonValue v = a.query.remove(wire);
                if (v == null) {
                    continue;
                }
                Method setter = find(builder, camel(wire), 1);
                if (setter == null) {
                    throw new RunnerError(type.getSimpleName() + " has no setter for `" + wire + "`");
                }
                setter.invoke(builder, convert(setter.getGenericParameterTypes()[0], v, "query." + wire));
            }
            return builder.getClass().getMethod("build").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new RunnerError("cannot build the " + type.getSimpleName() + ": " + e);
        }
    }

    /** A path value: a record reference from an id, {@code {external: ...}} or {@code {self: true}}. */
    private static Object pathValue(Type type, JsonValue v, String what) {
        Class<?> c = (Class<?>) type;
        if (v instanceof JsonObject o && o.size() == 1) {
            try {
                if (o.get("external").orElse(null) instanceof JsonString s) {
                    return c.getMethod("ofExternal", String.class).invoke(null, s.value());
                }
                if (JsonBoolean.TRUE.equals(o.get("self").orElse(null))) {
                    return c.getMethod("ofSelf").invoke(null);
                }
            } catch (ReflectiveOperationException e) {
                throw new RunnerError("`args." + what + "`: " + c.getSimpleName() + " cannot be " + Patterns.show(v));
            }
        }
        if (v instanceof JsonNumber n && c != long.class && c != int.class && c != Long.class && c != Integer.class) {
            return convert(type, JsonString.of(n.text()), what);
        }
        return convert(type, v, what);
    }

    /** A JSON argument as the Java type a parameter takes. */
    static Object convert(Type type, JsonValue v, String what) {
        try {
            return convertOrThrow(type, v);
        } catch (ClientException | ClassCastException | ReflectiveOperationException e) {
            throw new RunnerError("`args." + what + "` does not fit " + type.getTypeName() + ": " + e);
        }
    }

    private static Object convertOrThrow(Type type, JsonValue v) throws ReflectiveOperationException {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type item = p.getActualTypeArguments()[p.getActualTypeArguments().length - 1];
            if (List.class.isAssignableFrom(raw)) {
                List<Object> out = new ArrayList<>();
                for (JsonValue e : ((JsonArray) v).elements()) {
                    out.add(convertOrThrow(item, e));
                }
                return out;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonValue> e : ((JsonObject) v).members().entrySet()) {
                out.put(e.getKey(), convertOrThrow(item, e.getValue()));
            }
            return out;
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class) {
            return ((JsonString) v).value();
        }
        if (c == long.class || c == Long.class) {
            return ((JsonNumber) v).longValueExact().orElseThrow();
        }
        if (c == int.class || c == Integer.class) {
            return Math.toIntExact(((JsonNumber) v).longValueExact().orElseThrow());
        }
        if (c == boolean.class || c == Boolean.class) {
            return ((JsonBoolean) v).value();
        }
        if (c == BigDecimal.class) {
            return ((JsonNumber) v).bigDecimalValue();
        }
        if (c == OffsetDateTime.class) {
            return Dates.dateTime(((JsonString) v).value());
        }
        if (c == LocalDate.class) {
            return Dates.date(((JsonString) v).value());
        }
        if (JsonValue.class.isAssignableFrom(c)) {
            return v;
        }
        return named(c, v);
    }

    /** A generated type: its {@code fromJson}, or {@code of(String)} for ids and enums. */
    private static Object named(Class<?> c, JsonValue v) throws ReflectiveOperationException {
        try {
            Method fromJson = c.getMethod("fromJson", JsonValue.class);
            if (Modifier.isStatic(fromJson.getModifiers())) {
                return Calls.invoke(fromJson, null, new Object[] {v});
            }
        } catch (NoSuchMethodException e) {
            // an id or an enum: made from its text
        }
        String text = v instanceof JsonString s ? s.value() : v.toJson();
        return Calls.invoke(c.getMethod("of", String.class), null, new Object[] {text});
    }
}
