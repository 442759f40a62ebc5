package dev.inspection.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.inspection.client.runtime.JsonValue;

/**
 * A sandbox binary started for one set of flags (and a reverse proxy in front when the
 * scenario asks), reused by every scenario with the same flags; its test controls.
 */
final class Sandbox {
    private static final Pattern SERVING = Pattern.compile("(http://[0-9.]+:[0-9]+)");
    private static final ConcurrentHashMap<String, Sandbox> STARTED = new ConcurrentHashMap<>();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    final String origin;
    /** Where the controls go (the sandbox itself, behind any proxy). */
    private final String controls;
    private final List<Process> processes;

    private Sandbox(String origin, String controls, List<Process> processes) {
        this.origin = origin;
        this.controls = controls;
        this.processes = processes;
    }

    static Sandbox of(Path binary, List<String> args, boolean proxy) {
        return STARTED.computeIfAbsent(String.join("\u0000", args) + "|" + proxy, k -> start(binary, args, proxy));
    }

    static void stopAll() {
        STARTED.values().forEach(s -> s.processes.forEach(Process::destroy));
        STARTED.clear();
    }

    private static Sandbox start(Path binary, List<String> args, boolean proxy) {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--addr", "127.0.0.1:0"));
        command.addAll(args);
        List<Process> processes = new ArrayList<>();
        String origin = launch(command, processes);
        if (!proxy) {
            return new Sandbox(origin, origin, processes);
        }
        String to = origin.substring("http://".length());
        String front = launch(List.of(binary.toString(), "forward", "--to", to), processes);
        return new Sandbox(front, origin, processes);
    }

    /** Starts {@code command} and reads its origin from its first line. */
    private static String launch(List<String> command, List<Process> processes) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            processes.add(p);
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            Matcher m = line == null ? null : SERVING.matcher(line);
            if (m == null || !m.find()) {
                throw new RunnerError(String.join(" ", command) + " printed " + line);
            }
            // Keep reading, so the process never blocks on a full pipe.
            Thread drain = new Thread(() -> {
                try {
                    while (out.readLine() != null) {
                        // nothing: the lines are the sandbox's log
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
            drain.setDaemon(true);
            drain.start();
            return m.group(1);
        } catch (IOException e) {
            throw new RunnerError("cannot start " + command.get(0) + ": " + e.getMessage());
        }
    }

    /** A control request; it must answer 2xx. Gives the answer's JSON, or null for none. */
    JsonValue control(String method, String path, JsonValue body) {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body.toJson());
        HttpRequest request = HttpRequest.newBuilder(URI.create(controls + path)).method(method, publisher)
            .header("content-type", "application/json").timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> response;
        try {
            response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new RunnerError(method + " " + path + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RunnerError(method + " " + path + " was interrupted");
        }
        if (response.statusCode() / 100 != 2) {
            throw new RunnerError(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body().isBlank() ? null : JsonValue.parse(response.body());
    }
}
