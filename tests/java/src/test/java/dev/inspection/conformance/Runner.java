package dev.inspection.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.inspection.client.runtime.ClientException;
import dev.inspection.client.runtime.ClientOptions;
import dev.inspection.client.runtime.JsonArray;
import dev.inspection.client.runtime.JsonBoolean;
import dev.inspection.client.runtime.JsonNull;
import dev.inspection.client.runtime.JsonNumber;
import dev.inspection.client.runtime.JsonObject;
import dev.inspection.client.runtime.JsonString;
import dev.inspection.client.runtime.JsonValue;
import dev.inspection.client.legacy.AuthenticateRequest;
import dev.inspection.client.v3.ApiKey;

/** A scenario run step by step with one flavour of client; a failure names the step. */
final class Runner {
    private final Calls calls;
    private final Sandbox sandbox;
    private final Scenarios.Scenario scenario;
    private final Flavour flavour;
    private final Events log = new Events();
    private final Map<String, JsonValue> vars = new HashMap<>();
    private final Set<String> secrets = new HashSet<>();
    private AutoCloseable client;
    private Listener listener;

    Runner(Calls calls, Sandbox sandbox, Scenarios.Scenario scenario, Flavour flavour) {
        this.calls = calls;
        this.sandbox = sandbox;
        this.scenario = scenario;
        this.flavour = flavour;
        vars.put("origin", JsonString.of(sandbox.origin));
    }

    void run() throws Exception {
        sandbox.control("POST", "/_sandbox/reset", null);
        if (scenario.json().get("script").orElse(null) instanceof JsonArray script && script.size() > 0) {
            sandbox.control("POST", "/_sandbox/script", script);
        }
        Map<String, String> credentials = credentials(scenario.client());
        for (String key : List.of("key_secret", "password")) {
            if (credentials.containsKey(key)) {
                secrets.add(credentials.get(key));
            }
        }
        try {
            client = newClient(credentials);
        } catch (ClientException e) {
            throw new RunnerError("cannot make the client before the first step: " + e);
        }
        try {
            List<JsonObject> steps = scenario.steps();
            for (int i = 0; i < steps.size(); i++) {
                JsonObject step = steps.get(i);
                String label = step.get("call").map(c -> "call " + ((JsonString) c).value())
                    .orElseGet(() -> "sandbox " + Patterns.show(step.get("sandbox").orElse(null)));
                try {
                    step(step);
                } catch (RunnerError e) {
                    throw new RunnerError("step " + (i + 1) + " (" + label + "): " + e.getMessage());
                }
            }
            Events.checkNoSecrets(log.take(), secrets);
            JsonValue pending = sandbox.control("GET", "/_sandbox/script", null);
            if (!(pending instanceof JsonObject p) || !Patterns.same(p.get("pending").orElse(null), JsonNumber.of(0))) {
                throw new RunnerError("canned answers were left unused at the end: " + Patterns.show(pending));
            }
        } finally {
            if (listener != null) {
                listener.close();
            }
            client.close();
        }
    }

    private static Map<String, String> credentials(JsonObject client) {
        Map<String, String> out = new HashMap<>();
        ((JsonObject) client.get("credentials").orElseThrow()).members().forEach((k, v) -> out.put(k, ((JsonString) v).value()));
        return out;
    }

    private ClientOptions options() {
        JsonObject c = scenario.client();
        ClientOptions.Builder b = ClientOptions.builder().hooks(log);
        if (c.get("rate_limit").orElse(null) instanceof JsonObject r) {
            b.rateLimit(ClientOptions.RateLimit.of((int) whole(r, "requests"), Duration.ofMillis(whole(r, "window_ms"))));
        } else {
            b.noRateLimit();
        }
        return b.maxAttempts((int) whole(c, "max_attempts"))
            .initialBackoff(Duration.ofMillis(whole(c, "initial_backoff_ms")))
            .maxBackoff(Duration.ofMillis(whole(c, "max_backoff_ms")))
            .timeout(Duration.ofMillis(whole(c, "timeout_ms")))
            .validateRequests(JsonBoolean.TRUE.equals(c.get("validate").orElse(null)))
            .maxPolls((int) whole(c, "max_polls"))
            .pollInterval(Duration.ofMillis(whole(c, "poll_interval_ms")))
            .maxResponseBytes(whole(c, "max_response_bytes"))
            .maxErrorBytes((int) whole(c, "max_error_bytes"))
            .maxEmptyPages((int) whole(c, "max_empty_pages"))
            .build();
    }

    private static long whole(JsonObject o, String key) {
        return Patterns.number(o.get(key).orElse(null), key).longValueExact();
    }

    /** A client with the scenario's settings and these credentials; a legacy one logs in. */
    private AutoCloseable newClient(Map<String, String> c) {
        if (scenario.iface().equals("v3")) {
            ApiKey key = ApiKey.of(c.getOrDefault("key_id", ""), c.getOrDefault("key_secret", ""));
            String base = sandbox.origin + "/v3";
            return flavour == Flavour.ASYNC ? new dev.inspection.client.v3.AsyncClient(base, key, options())
                : new dev.inspection.client.v3.Client(base, key, options());
        }
        String login = "{\"user\":{\"username\":" + JsonString.of(c.getOrDefault("username", "")).toJson()
            + ",\"password\":" + JsonString.of(c.getOrDefault("password", "")).toJson() + "}}";
        AuthenticateRequest body = AuthenticateRequest.fromJson(login);
        if (flavour == Flavour.ASYNC) {
            var made = new dev.inspection.client.legacy.AsyncClient(sandbox.origin, body, options());
            try {
                flavour.value(made.login());
            } catch (RuntimeException e) {
                made.close();
                throw e;
            }
            return made;
        }
        var made = new dev.inspection.client.legacy.Client(sandbox.origin, body, options());
        try {
            made.login();
        } catch (RuntimeException e) {
            made.close();
            throw e;
        }
        return made;
    }

    private void step(JsonObject step) throws Exception {
        Events.checkNoSecrets(log.take(), secrets);
        if (step.get("sandbox").isPresent()) {
            control(step.get("sandbox").get());
            return;
        }
        String call = ((JsonString) step.get("call").orElseThrow()).value();
        String mode = step.get("mode").map(m -> ((JsonString) m).value()).orElse("send");
        sandbox.control("DELETE", "/_sandbox/requests", null);
        Args args = new Args(step.get("args").map(a -> Patterns.fill(a, vars)).orElse(null));
        long started = System.nanoTime();
        Outcome outcome = dispatch(call, args, mode);
        double took = (System.nanoTime() - started) / 1e6;
        List<JsonObject> events = log.take();
        Events.checkNoSecrets(events, secrets);
        checkOutcome(step, outcome);
        if (step.get("min_ms").orElse(null) instanceof JsonNumber min && took < min.doubleValue()) {
            throw new RunnerError("took " + Math.round(took) + " ms, expected at least " + min.text() + " ms");
        }
        if (step.get("max_ms").orElse(null) instanceof JsonNumber max && took > max.doubleValue()) {
            throw new RunnerError("took " + Math.round(took) + " ms, expected at most " + max.text() + " ms");
        }
        if (step.get("expect_requests").orElse(null) instanceof JsonArray want) {
            JsonValue recorded = sandbox.control("GET", "/_sandbox/requests", null);
            List<JsonObject> got = new ArrayList<>();
            ((JsonArray) recorded).elements().forEach(r -> got.add((JsonObject) r));
            Patterns.checkRequests(((JsonArray) Patterns.fill(want, vars)).elements(), got);
        }
        if (step.get("expect_events").orElse(null) instanceof JsonArray want) {
            Events.check(((JsonArray) Patterns.fill(want, vars)).elements(), events);
        }
        if (step.get("save").orElse(null) instanceof JsonString save) {
            if (outcome.error() != null) {
                vars.put(save.value(), Results.describe(outcome.error()));
            } else if (outcome.result() != null) {
                vars.put(save.value(), outcome.result());
            }
        }
    }

    private void control(JsonValue control) {
        String request;
        JsonValue body = null;
        if (control instanceof JsonObject o) {
            request = ((JsonString) o.get("request").orElseThrow()).value();
            body = o.get("body").map(b -> Patterns.fill(b, vars)).orElse(null);
        } else {
            request = ((JsonString) control).value();
        }
        int space = request.indexOf(' ');
        if (space < 0) {
            throw new RunnerError("`sandbox` is `METHOD /_sandbox/...`");
        }
        sandbox.control(request.substring(0, space), request.substring(space + 1), body);
    }

    private Outcome dispatch(String call, Args args, String mode) throws Exception {
        if (call.equals("make_client") || (call.equals("login") && scenario.iface().equals("legacy"))) {
            Map<String, String> credentials = credentials(scenario.client());
            for (String key : List.copyOf(credentials.keySet())) {
                String given = call.equals("login") ? args.string(key) : args.optString(key);
                if (given != null) {
                    credentials.put(key, given);
                }
            }
            args.finish();
            for (String key : List.of("key_secret", "password")) {
                if (credentials.containsKey(key)) {
                    secrets.add(credentials.get(key));
                }
            }
            AutoCloseable made;
            try {
                made = newClient(credentials);
            } catch (ClientException e) {
                return Outcome.failed(e);
            }
            client.close();
            client = made;
            return Outcome.of(JsonNull.INSTANCE);
        }
        if (call.equals("listen")) {
            return listen(args);
        }
        if (call.equals("deliveries")) {
            return deliveries(args);
        }
        if (calls.isOperation(scenario.iface(), call)) {
            return calls.call(flavour, client, scenario.iface(), call, args, mode);
        }
        return presigned(call, args);
    }

    private Outcome presigned(String call, Args a) {
        switch (call) {
            case "fetch_presigned": {
                String url = a.string("url");
                a.finish();
                return Flavour.attempt(() -> flavour.value(Calls.invoke(method("fetchPresigned", 1), client, new Object[] {url})));
            }
            case "put_presigned": {
                String url = a.string("url");
                byte[] body = a.string("body_text").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                String type = a.optString("content_type");
                a.finish();
                return Flavour.attempt(() -> {
                    Object etag = flavour.value(Calls.invoke(method("putPresigned", 3), client, new Object[] {url, body, type}));
                    return JsonObject.of(Map.of("etag", etag == null ? JsonNull.INSTANCE : JsonString.of((String) etag)));
                });
            }
            case "put_parts": {
                List<String> urls = a.strings("urls");
                List<byte[]> parts = new ArrayList<>();
                a.strings("parts").forEach(p -> parts.add(p.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                String type = a.optString("content_type");
                JsonValue given = a.take("concurrency");
                int concurrency = given == null ? 1 : (int) Patterns.number(given, "concurrency").longValueExact();
                a.finish();
                return Flavour.attempt(() -> {
                    Object etags = flavour.value(Calls.invoke(method("putParts", 4), client,
                        new Object[] {urls, parts, type, concurrency}));
                    List<JsonValue> out = new ArrayList<>();
                    List<?> list = (List<?>) etags;
                    for (int i = 0; i < list.size(); i++) {
                        if (!(list.get(i) instanceof String etag)) {
                            throw new RunnerError("put_parts gave no ETag for part " + (i + 1));
                        }
                        out.add(JsonObject.of(Map.of("part_number", JsonNumber.of(i + 1), "etag", JsonString.of(etag))));
                    }
                    return JsonArray.of(out);
                });
            }
            default:
                throw new RunnerError("`" + call + "` is no " + scenario.iface() + " operation or client action");
        }
    }

    /** {@code {name, value}} of {@code args.<key>}, or null. */
    private static String[] header(Args a, String key) {
        JsonValue v = a.take(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof JsonObject o) || !(o.get("name").orElse(null) instanceof JsonString n)
                || !(o.get("value").orElse(null) instanceof JsonString w)) {
            throw new RunnerError("`args." + key + "` needs `name` and `value`");
        }
        return new String[] {n.value(), w.value()};
    }

    private Outcome listen(Args a) throws java.io.IOException {
        String[] header = header(a, "header");
        a.finish();
        if (listener != null) {
            throw new RunnerError("a scenario has one listener: `listen` came twice");
        }
        listener = new Listener();
        Map<String, JsonValue> registration = new java.util.LinkedHashMap<>();
        registration.put("interface", JsonString.of(scenario.iface()));
        registration.put("url", JsonString.of(listener.url));
        if (header != null) {
            registration.put("header", JsonObject.of(Map.of("name", JsonString.of(header[0]), "value", JsonString.of(header[1]))));
        }
        sandbox.control("POST", "/_sandbox/webhooks", JsonObject.of(registration));
        return Outcome.of(JsonObject.of(Map.of("url", JsonString.of(listener.url))));
    }

    private Outcome deliveries(Args a) throws InterruptedException {
        int count = (int) Patterns.number(a.take("count"), "count").longValueExact();
        JsonValue timeout = a.take("timeout_ms");
        long timeoutMs = timeout == null ? 5000 : Patterns.number(timeout, "timeout_ms").longValue();
        String[] verify = header(a, "verify");
        a.finish();
        if (listener == null) {
            throw new RunnerError("`deliveries` needs a `listen` step before it");
        }
        List<Listener.Received> came = listener.waitFor(count, timeoutMs);
        if (came.size() != count) {
            throw new RunnerError("expected " + count + " deliveries, the listener received " + came.size() + " within "
                + timeoutMs + " ms");
        }
        return Flavour.attempt(() -> {
            List<Object> events = new ArrayList<>();
            for (Listener.Received d : came) {
                if (verify != null) {
                    verifyHeader(d.headers(), verify[0], verify[1]);
                }
                events.add(scenario.iface().equals("v3") ? dev.inspection.client.v3.Webhooks.parseEvent(d.body())
                    : dev.inspection.client.legacy.Webhooks.parseEvent(d.body()));
            }
            return events;
        });
    }

    private void verifyHeader(Map<String, List<String>> headers, String name, String value) {
        if (scenario.iface().equals("v3")) {
            dev.inspection.client.v3.Webhooks.verify(headers, name, value);
        } else {
            dev.inspection.client.legacy.Webhooks.verify(headers, name, value);
        }
    }

    private java.lang.reflect.Method method(String name, int count) {
        for (java.lang.reflect.Method m : client.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == count) {
                return m;
            }
        }
        throw new RunnerError("the client has no " + name);
    }

    private void checkOutcome(JsonObject step, Outcome outcome) {
        JsonObject expect = step.get("expect").orElse(null) instanceof JsonObject e ? e : JsonObject.of(Map.of());
        Throwable error = outcome.error();
        JsonValue wanted = expect.get("error").orElse(null);
        if (error != null && wanted == null) {
            throw new RunnerError("failed: " + error + " (" + Results.describe(error).toJson() + ")");
        }
        if (error == null && wanted != null) {
            throw new RunnerError("expected an error matching " + Patterns.show(wanted) + ", got " + Patterns.show(outcome.result()));
        }
        if (error != null) {
            checkError((JsonObject) Patterns.fill(wanted, vars), error);
        }
        JsonValue result = outcome.result();
        if (expect.get("ok").isPresent()) {
            Patterns.check(Patterns.fill(expect.get("ok").get(), vars), result, "");
        }
        if (expect.get("equals").isPresent()) {
            JsonValue want = Patterns.fill(expect.get("equals").get(), vars);
            if (result == null || !Patterns.same(want, result)) {
                throw new RunnerError("expected exactly " + Patterns.show(want) + ", got " + Patterns.show(result));
            }
        }
        if (expect.get("count").orElse(null) instanceof JsonNumber n) {
            if (!(result instanceof JsonArray a) || a.size() != n.longValueExact().orElse(-1)) {
                throw new RunnerError("expected " + n.text() + " entries, got " + Patterns.show(result));
            }
        }
    }

    private static void checkError(JsonObject pattern, Throwable error) {
        Map<String, JsonValue> rest = new HashMap<>(pattern.members());
        List<String> excluded = words(rest.remove("text_excludes"));
        List<String> included = words(rest.remove("text_includes"));
        try {
            Patterns.check(JsonObject.of(rest), Results.describe(error), "the error");
        } catch (RunnerError e) {
            throw new RunnerError(e.getMessage() + " (the error: " + error + ")");
        }
        String shown = Results.text(error);
        for (String w : excluded) {
            if (shown.contains(w)) {
                throw new RunnerError("the error's text shows `" + w + "`: " + shown);
            }
        }
        for (String w : included) {
            if (!shown.contains(w)) {
                throw new RunnerError("the error's text does not show `" + w + "`: " + shown);
            }
        }
    }

    private static List<String> words(JsonValue listed) {
        List<String> out = new ArrayList<>();
        if (listed == null) {
            return out;
        }
        if (!(listed instanceof JsonArray a)) {
            throw new RunnerError("a list of strings, not " + Patterns.show(listed));
        }
        a.elements().forEach(w -> out.add(((JsonString) w).value()));
        return out;
    }
}
