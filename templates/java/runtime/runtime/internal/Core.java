package {{ package }}.runtime.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import {{ package }}.runtime.ApiException;
import {{ package }}.runtime.AuthenticationException;
import {{ package }}.runtime.BadRequestException;
import {{ package }}.runtime.ClientException;
import {{ package }}.runtime.ClientOptions;
import {{ package }}.runtime.ConfigException;
import {{ package }}.runtime.ConflictException;
import {{ package }}.runtime.DecodeException;
import {{ package }}.runtime.ForeignOriginException;
import {{ package }}.runtime.JsonException;
import {{ package }}.runtime.JsonValue;
import {{ package }}.runtime.NotFoundException;
import {{ package }}.runtime.NotReadyException;
import {{ package }}.runtime.PermissionDeniedException;
import {{ package }}.runtime.RateLimitException;
import {{ package }}.runtime.RequestTimeoutException;
import {{ package }}.runtime.ServerException;
import {{ package }}.runtime.TooLargeException;
import {{ package }}.runtime.TransportException;
import {{ package }}.runtime.UnprocessableEntityException;
import {{ package }}.runtime.Upserted;
import {{ package }}.runtime.ValidationException;
import {{ package }}.runtime.Violation;

/**
 * The non-blocking core both clients of an interface share: sends each request with
 * pacing, credentials, retries, a deadline on the whole answer, redirects on the base URL's
 * origin and 202 polling, and reads the answers. Waits are scheduled, never slept, so the
 * blocking client is this core's futures awaited, and the async client is these futures.
 * Not part of the client's API.
 */
public final class Core implements AutoCloseable {
    private static final int MAX_REDIRECTS = 5;
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    final URI base;
    private final String baseText;
    final InterfaceInfo info;
    private final Auth auth;
    final ClientOptions options;
    final Reporter reporter;
    private final Pacer pacer;
    final ScheduledExecutorService scheduler;
    private final ExecutorService executor;
    private final HttpClient http;
    private final Token token;

    /**
     * A core for the service at {@code baseUrl}.
     *
     * @param baseUrl https (plain http for loopback hosts only)
     * @param info the interface
     * @param auth the credentials
     * @param options the options
     * @throws ConfigException for a base URL it cannot use
     */
    public Core(String baseUrl, InterfaceInfo info, Auth auth, ClientOptions options) {
        this.base = Origins.secureBase(baseUrl);
        String text = base.toString();
        this.baseText = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        this.info = info;
        this.auth = auth;
        this.options = options;
        this.reporter = new Reporter(options.hooks());
        int n = CLIENTS.incrementAndGet();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("inspection-client-" + n + "-timer"));
        this.executor = Executors.newCachedThreadPool(daemon("inspection-client-" + n + "-http"));
        ClientOptions.RateLimit limit = options.documentedRateLimit() ? info.rateLimit : options.rateLimit().orElse(null);
        this.pacer = new Pacer(limit, scheduler);
        HttpClient.Builder builder = options.httpClient().orElseGet(HttpClient::newBuilder);
        builder.executor(executor).followRedirects(HttpClient.Redirect.NEVER);
        if (!options.http2()) {
            builder.version(HttpClient.Version.HTTP_1_1);
        }
        this.http = builder.build();
        this.token = auth.logsIn() ? new Token() : null;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops the client's threads; calls in flight fail. */
    @Override
    public void close() {
        executor.shutdownNow();
        scheduler.shutdownNow();
    }

    @Override
    public String toString() {
        return info.name + " at " + Origins.origin(base);
    }

    /**
     * Whether documented limits are checked before sending.
     *
     * @return the option
     */
    public boolean validates() {
        return options.validateRequests();
    }

    /**
     * Throws the violations found, if any.
     *
     * @param violations what the checks found
     * @throws ValidationException listing them all
     */
    public static void raise(List<Violation> violations) {
        if (!violations.isEmpty()) {
            throw new ValidationException(violations);
        }
    }

    // ------------------------------------------------------------------ calls

    /**
     * Sends {@code call} and reads its JSON answer.
     *
     * @param <T> the answer's type
     * @param call the request
     * @param decoder reads the answer
     * @return the answer
     */
    public <T> CompletableFuture<T> json(Call call, Wire.Reader<T> decoder) {
        return tracked(call, t -> send(call, t).thenApply(raw -> decode(raw, decoder)));
    }

    /**
     * Sends an upsert: {@code created} for a 201, not for a 200.
     *
     * @param <T> the record's type
     * @param call the request
     * @param decoder reads the record
     * @return the answer
     */
    public <T> CompletableFuture<Upserted<T>> upsert(Call call, Wire.Reader<T> decoder) {
        return tracked(call, t -> send(call, t).thenApply(raw -> new Upserted<>(raw.status == 201, decode(raw, decoder))));
    }

    /**
     * Sends {@code call} and gives its body (a PDF), at most {@code maxResponseBytes}.
     *
     * @param call the request
     * @return the bytes
     */
    public CompletableFuture<byte[]> bytes(Call call) {
        return tracked(call, t -> send(call, t).thenApply(raw -> raw.body));
    }

    /**
     * Sends {@code call} and writes its body (a PDF) to {@code out} as it arrives, in
     * bounded memory whatever its size ({@code maxResponseBytes} does not apply); gives the
     * bytes written. A body that breaks off is not asked again: {@code out} holds what came.
     *
     * @param call the request
     * @param out where the body goes (not closed)
     * @return the bytes written
     */
    public CompletableFuture<Long> download(Call call, java.io.OutputStream out) {
        return tracked(call, t -> {
            t.sink = out;
            return send(call, t).thenApply(raw -> t.written.get());
        });
    }

    /**
     * GETs a pre-signed URL with no credentials, writing the body to {@code out} as it
     * arrives, in bounded memory whatever its size.
     *
     * @param url the link
     * @param out where the body goes (not closed)
     * @return the bytes written
     */
    public CompletableFuture<Long> fetchPresignedTo(String url, java.io.OutputStream out) {
        return download(presigned("GET", url), out);
    }

    /**
     * Sends {@code call}, whose answer has no body worth reading.
     *
     * @param call the request
     * @return completes when answered
     */
    public CompletableFuture<Void> empty(Call call) {
        return tracked(call, t -> send(call, t).thenApply(raw -> null));
    }

    /**
     * Logs in now (token auth), replacing any token; other auth needs nothing.
     *
     * @return completes when logged in
     */
    public CompletableFuture<Void> login() {
        if (token == null) {
            return CompletableFuture.completedFuture(null);
        }
        return token.renew(token.generation());
    }

    /** One page of a walk: its JSON, and the attempt that fetched it. */
    CompletableFuture<Page> page(Call call) {
        return tracked(call, t -> send(call, t).thenApply(raw -> new Page(parse(raw), t.attempt, raw.status)));
    }

    /** A fetched page, read as JSON. */
    static final class Page {
        final JsonValue json;
        final int attempt;
        final int status;

        Page(JsonValue json, int attempt, int status) {
            this.json = json;
            this.attempt = attempt;
            this.status = status;
        }
    }

    /**
     * GETs a pre-signed URL with no credentials; paced, retried; at most
     * {@code maxResponseBytes}.
     *
     * @param url the link
     * @return the bytes
     */
    public CompletableFuture<byte[]> fetchPresigned(String url) {
        Call call = presigned("GET", url);
        return tracked(call, t -> send(call, t).thenApply(raw -> raw.body));
    }

    /**
     * PUTs bytes to a pre-signed URL with no credentials, retried; gives the storage's ETag.
     *
     * @param url the link
     * @param body the bytes
     * @param contentType their media type, or {@code null}
     * @return the ETag, or {@code null} when the storage sent none
     */
    public CompletableFuture<String> putPresigned(String url, byte[] body, String contentType) {
        Call call = presigned("PUT", url);
        call.body = body.clone();
        call.contentType = contentType;
        return tracked(call, t -> send(call, t).thenApply(raw -> raw.headers.firstValue("etag").orElse(null)));
    }

    /**
     * PUTs a body streamed from {@code body} (opened again for a retry) with its length, as
     * pre-signed storage wants it (it refuses chunked bodies); memory stays bounded whatever
     * the size.
     *
     * @param url the link
     * @param body opens the bytes, each time from their start
     * @param length how many bytes it gives
     * @param contentType their media type, or {@code null}
     * @return the ETag, or {@code null} when the storage sent none
     */
    public CompletableFuture<String> putPresigned(String url, java.util.function.Supplier<java.io.InputStream> body,
            long length, String contentType) {
        Call call = presigned("PUT", url);
        call.stream = body;
        call.length = length;
        call.contentType = contentType;
        return tracked(call, t -> send(call, t).thenApply(raw -> raw.headers.firstValue("etag").orElse(null)));
    }

    /**
     * PUTs each part to its pre-signed URL, at most {@code concurrency} at a time, each paced
     * and retried; gives the ETags in part order.
     *
     * @param urls one per part
     * @param parts the parts' bytes
     * @param contentType their media type, or {@code null}
     * @param concurrency parts in flight at most, at least 1
     * @return the ETags
     */
    public CompletableFuture<List<String>> putParts(List<String> urls, List<byte[]> parts, String contentType,
            int concurrency) {
        if (urls.size() != parts.size()) {
            return CompletableFuture.failedFuture(new ConfigException(
                "put_parts needs one URL per part: " + urls.size() + " URLs, " + parts.size() + " parts"));
        }
        if (concurrency < 1) {
            return CompletableFuture.failedFuture(new ConfigException("put_parts needs a concurrency of at least 1"));
        }
        String[] etags = new String[parts.size()];
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<CompletableFuture<Void>> lanes = new ArrayList<>();
        for (int lane = 0; lane < Math.min(concurrency, parts.size()); lane++) {
            lanes.add(partsFrom(next, urls, parts, contentType, etags));
        }
        return CompletableFuture.allOf(lanes.toArray(new CompletableFuture<?>[0]))
            .thenApply(x -> java.util.Arrays.asList(etags));
    }

    /** One lane of {@link #putParts}: the next part not yet taken, until none is left. */
    private CompletableFuture<Void> partsFrom(java.util.concurrent.atomic.AtomicInteger next, List<String> urls,
            List<byte[]> parts, String contentType, String[] etags) {
        int i = next.getAndIncrement();
        if (i >= parts.size()) {
            return CompletableFuture.completedFuture(null);
        }
        return putPresigned(urls.get(i), parts.get(i), contentType).thenCompose(etag -> {
            etags[i] = etag;
            return partsFrom(next, urls, parts, contentType, etags);
        });
    }

    private Call presigned(String method, String url) {
        URI target = Origins.presigned(url);
        String shown = Origins.withoutQuery(target);
        Operation op = new Operation(method.equals("GET") ? "fetch_presigned" : "put_presigned", method, shown, "*/*",
            false, true, null);
        Call call = new Call(op);
        call.url = target;
        call.presigned = true;
        return call;
    }

    // ------------------------------------------------------------------ the machinery

    /** One call's state: its last attempt's number and the exchange in flight. */
    static final class Track {
        volatile int attempt;
        volatile CompletableFuture<?> inflight;
        /** Where a download's body goes, and how much of it went there. */
        java.io.OutputStream sink;
        final java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        /** The caller's stream's failure, which ends the call (it is no failure of the service). */
        final java.util.concurrent.atomic.AtomicReference<IOException> sinkFailed = new java.util.concurrent.atomic.AtomicReference<>();
    }

    /**
     * Runs one call: cancelling the future it gives cancels the exchange in flight; an
     * error after at least one attempt is reported.
     */
    private <T> CompletableFuture<T> tracked(Call call, java.util.function.Function<Track, CompletableFuture<T>> body) {
        Track t = new Track();
        CompletableFuture<T> result = new CompletableFuture<>();
        CompletableFuture<T> work;
        try {
            work = body.apply(t);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return result;
        }
        work.whenComplete((v, e) -> {
            if (e == null) {
                result.complete(v);
                return;
            }
            Throwable cause = unwrap(e);
            if (t.attempt > 0 && !(cause instanceof CancellationException)) {
                reporter.error(call.op, cause, t.attempt);
            }
            result.completeExceptionally(cause);
        });
        result.whenComplete((v, e) -> {
            if (e instanceof CancellationException) {
                CompletableFuture<?> f = t.inflight;
                if (f != null) {
                    f.cancel(true);
                }
                work.cancel(true);
            }
        });
        return result;
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private CompletableFuture<Raw> send(Call call, Track t) {
        if (!call.op.poll) {
            return execute(call, t);
        }
        return poll(call, t, 1, options.pollInterval().toNanos());
    }

    private CompletableFuture<Raw> poll(Call call, Track t, int polls, long interval) {
        return execute(call, t).thenCompose(raw -> {
            if (raw.status != 202) {
                return CompletableFuture.completedFuture(raw);
            }
            Duration asked = Retries.retryAfter(raw.headers, info.retryAfterHeader);
            long max = options.maxBackoff().toNanos();
            boolean tooLong = asked != null && asked.compareTo(options.maxBackoff()) > 0;
            if (polls > options.maxPolls() || tooLong) {
                String why = tooLong
                    ? "it asked to wait " + Retries.seconds(asked) + " s, longer than the client waits"
                    : "still preparing after " + polls + " requests";
                throw new NotReadyException(call.op + " is not ready: " + why, polls, tooLong ? asked : null);
            }
            long wait = Math.min(asked != null ? asked.toNanos() : interval, max);
            reporter.pause(call.op, "poll", wait);
            return Delays.after(scheduler, wait).thenCompose(x -> poll(call, t, polls + 1, Math.min(interval * 2, max)));
        });
    }

    /** What an attempt came to, when it is not an answer: a failure on the way. */
    private static final class Failure {
        final String kind;
        final String detail;

        Failure(String kind, String detail) {
            this.kind = kind;
            this.detail = detail;
        }
    }

    /** An attempt loop's state. */
    private static final class Attempts {
        int tries = 1;
        int attempt = 1;
        boolean renewed;
        boolean heldByRetry;
        int seen;
    }

    private CompletableFuture<Raw> execute(Call call, Track t) {
        return loop(call, t, new Attempts());
    }

    private CompletableFuture<Raw> loop(Call call, Track t, Attempts a) {
        boolean withToken = token != null && !call.op.anonymous && !call.presigned;
        CompletableFuture<Void> ready = withToken ? token.ensure() : CompletableFuture.completedFuture(null);
        return ready.thenCompose(x -> {
            a.seen = withToken ? token.generation() : 0;
            return pacer.acquire(onWait(call, a.heldByRetry));
        }).thenCompose(x -> attempt(call, a.attempt, t)).thenCompose(outcome -> {
            if (outcome instanceof Raw raw) {
                return CompletableFuture.completedFuture(raw);
            }
            if (t.written.get() > 0) {
                // Part of the document is in the caller's stream: asking again would write it twice.
                throw new TransportException(call.op + ": the download broke off after " + t.written.get() + " bytes");
            }
            int failed = a.attempt;
            a.attempt++;
            if (outcome instanceof ApiException e && e.status() == 401 && withToken && !a.renewed) {
                a.renewed = true;
                a.heldByRetry = false;
                return token.renew(a.seen).thenCompose(y -> loop(call, t, a));
            }
            long[] retry = retryIn(call, outcome, a.tries, a.tries < maxAttempts());
            String reason = outcome instanceof ApiException ? "status"
                : outcome instanceof Failure f && f.kind.equals("timeout") ? "timeout" : "connection";
            Integer status = outcome instanceof ApiException e ? e.status() : null;
            reporter.retry(call.op, failed, reason, status, retry[1], retry[2] == 1);
            a.heldByRetry = retry[0] < retry[1];
            a.tries++;
            return Delays.after(scheduler, retry[0]).thenCompose(y -> loop(call, t, a));
        });
    }

    private int maxAttempts() {
        return options.maxAttempts();
    }

    private BiConsumer<Long, Boolean> onWait(Call call, boolean heldByRetry) {
        if (!reporter.pauses()) {
            return null;
        }
        return (nanos, held) -> {
            if (!(held && heldByRetry)) {
                reporter.pause(call.op, "rate_limit", nanos);
            }
        };
    }

    /**
     * How to wait before the next attempt: {sleep here, the wait to report, 1 when it is the
     * service's Retry-After}; or throws the error that ends the call. A 429 is retried for
     * any method, after its Retry-After, and pauses every request meanwhile; a 5xx, a timeout
     * or a broken connection only for idempotent methods; a refused connection for any.
     */
    private long[] retryIn(Call call, Object outcome, int tries, boolean mayRetry) {
        long wait = Retries.backoff(tries, options.initialBackoff(), options.maxBackoff()).toNanos();
        boolean idempotent = Retries.idempotent(call.op.method);
        if (outcome instanceof ApiException e) {
            if (e.status() == info.limitStatus || e.status() == 429) {
                Duration asked = e.retryAfter().orElse(null);
                if (asked != null && asked.compareTo(options.maxBackoff()) > 0) {
                    throw e;
                }
                long hold = Math.min(asked != null ? asked.toNanos() : wait, options.maxBackoff().toNanos());
                pacer.pauseFor(hold);
                if (mayRetry) {
                    return new long[] {0, hold, asked != null ? 1 : 0};
                }
                throw e;
            }
            if (e.status() >= 500 && idempotent && mayRetry) {
                return new long[] {wait, wait, 0};
            }
            throw e;
        }
        if (outcome instanceof Failure f) {
            if (mayRetry && (f.kind.equals("refused") || idempotent)) {
                return new long[] {wait, wait, 0};
            }
            if (f.kind.equals("timeout")) {
                throw new RequestTimeoutException(call.op + " had no whole answer within "
                    + options.timeout().toMillis() + " ms");
            }
            throw new TransportException(scrub(call.op + ": " + f.detail));
        }
        throw (RuntimeException) outcome;
    }

    /** One attempt, same-origin redirects included, within the attempt's time in all. */
    private CompletableFuture<Object> attempt(Call call, int attempt, Track t) {
        long started = System.nanoTime();
        long deadline = started + options.timeout().toNanos();
        t.attempt = attempt;
        URI url = call.uri(baseText);
        reporter.request(call.op, attempt, url);
        return hop(call, call.op.method, url, call.body, 0, started, deadline, attempt, t);
    }

    private CompletableFuture<Object> hop(Call call, String method, URI url, byte[] body, int hops, long started,
            long deadline, int attempt, Track t) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return CompletableFuture.completedFuture(new Failure("timeout", "no whole answer in time"));
        }
        HttpRequest request;
        try {
            request = request(call, method, url, body, left);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new ConfigException(scrub("cannot send " + call.op + ": " + e.getMessage())));
        }
        long limit = options.maxResponseBytes();
        int errorLimit = options.maxErrorBytes();
        CompletableFuture<HttpResponse<Bodies.Read>> exchange = http.sendAsync(request, info -> {
            int status = info.statusCode();
            if (status >= 300 && status < 400 && info.headers().firstValue("location").isPresent()) {
                return HttpResponse.BodySubscribers.replacing(new Bodies.Read(new byte[0], false));
            }
            boolean success = status >= 200 && status < 300;
            if (success && t.sink != null && !(status == 202 && call.op.poll)) {
                return Bodies.streaming(t.sink, t.written, t.sinkFailed);
            }
            return Bodies.limited(success ? limit : errorLimit);
        });
        t.inflight = exchange;
        boolean[] timedOut = {false};
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                timedOut[0] = true;
                exchange.cancel(true);
            }, left, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            exchange.cancel(true);
            return CompletableFuture.failedFuture(new ConfigException("the client is closed"));
        }
        return exchange.<CompletableFuture<Object>>handle((response, error) -> {
            timer.cancel(false);
            if (error != null && t.sinkFailed.get() != null) {
                return CompletableFuture.failedFuture(new TransportException(call.op
                    + ": writing the download to its stream failed: " + t.sinkFailed.get().getMessage(), t.sinkFailed.get()));
            }
            if (error != null) {
                Throwable cause = unwrap(error);
                if (timedOut[0] || cause instanceof HttpTimeoutException && !(cause instanceof HttpConnectTimeoutException)) {
                    return CompletableFuture.completedFuture(new Failure("timeout", "no whole answer in time"));
                }
                if (cause instanceof CancellationException c) {
                    return CompletableFuture.failedFuture(c);
                }
                return CompletableFuture.completedFuture(classify(cause));
            }
            return answered(call, method, url, response, hops, started, deadline, attempt, t);
        }).thenCompose(f -> f);
    }

    private static Failure classify(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof ConnectException || c instanceof HttpConnectTimeoutException) {
                return new Failure("refused", "cannot connect: " + describe(cause));
            }
        }
        return new Failure("network", "the request failed: " + describe(cause));
    }

    private static String describe(Throwable e) {
        List<String> parts = new ArrayList<>();
        for (Throwable c = e; c != null && parts.size() < 4; c = c.getCause()) {
            String m = c.getMessage();
            parts.add(m == null || m.isBlank() ? c.getClass().getSimpleName() : m);
        }
        return Origins.stripQueries(String.join(": ", parts));
    }

    private CompletableFuture<Object> answered(Call call, String method, URI url, HttpResponse<Bodies.Read> response,
            int hops, long started, long deadline, int attempt, Track t) {
        int status = response.statusCode();
        HttpHeaders headers = response.headers();
        String requestId = headers.firstValue("x-request-id").orElse(null);
        java.util.Optional<String> location = headers.firstValue("location");
        if (status >= 300 && status < 400 && location.isPresent()) {
            URI target;
            try {
                target = url.resolve(location.get().trim());
            } catch (IllegalArgumentException e) {
                reporter.response(call.op, attempt, status, started, requestId);
                return CompletableFuture.failedFuture(
                    new ForeignOriginException(call.op + " was redirected to an unreadable Location", "an unreadable Location", "redirect"));
            }
            if (!call.presigned && !Origins.sameOrigin(target, base)) {
                reporter.response(call.op, attempt, status, started, requestId);
                String origin = Origins.origin(target);
                return CompletableFuture.failedFuture(new ForeignOriginException(
                    call.op + " was redirected to " + origin + ", another origin: credentials are never sent there", origin, "redirect"));
            }
            if (hops >= MAX_REDIRECTS) {
                reporter.response(call.op, attempt, status, started, requestId);
                return CompletableFuture.failedFuture(new TransportException(call.op + ": more than " + MAX_REDIRECTS + " redirects"));
            }
            boolean toGet = status == 303 || ((status == 301 || status == 302) && method.equals("POST"));
            String next = toGet ? "GET" : method;
            byte[] nextBody = toGet ? null : call.body;
            return pacer.acquire(onWait(call, false))
                .thenCompose(x -> hop(call, next, target, nextBody, hops + 1, started, deadline, attempt, t));
        }
        reporter.response(call.op, attempt, status, started, requestId);
        Bodies.Read read = response.body();
        if (status >= 200 && status < 300) {
            if (read.over) {
                return CompletableFuture.failedFuture(new TooLargeException(call.op + " answered more than "
                    + options.maxResponseBytes() + " bytes, the client's maxResponseBytes", options.maxResponseBytes()));
            }
            return CompletableFuture.completedFuture(new Raw(status, headers, read.bytes));
        }
        return CompletableFuture.completedFuture(apiError(call, status, headers, read.bytes, requestId));
    }

    private HttpRequest request(Call call, String method, URI url, byte[] body, long leftNanos) {
        HttpRequest.BodyPublisher publisher = call.stream != null && body == null && method.equals(call.op.method)
            ? HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(call.stream), call.length)
            : body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body);
        HttpRequest.Builder b = HttpRequest.newBuilder(url).method(method, publisher).timeout(Duration.ofNanos(leftNanos));
        if (!call.presigned) {
            String accept = call.op.accept != null ? call.op.accept
                : info.defaultAccept != null ? info.defaultAccept : "application/json";
            b.header("Accept", accept);
            b.header("User-Agent", options.userAgent());
        }
        if ((body != null || call.stream != null) && call.contentType != null) {
            b.header("Content-Type", call.contentType);
        }
        if (!call.op.anonymous && !call.presigned) {
            for (Map.Entry<String, String> h : auth.headers) {
                b.header(h.getKey(), h.getValue());
            }
            if (token != null && token.value != null) {
                b.header(auth.tokenHeader, auth.tokenScheme.isEmpty() ? token.value : auth.tokenScheme + " " + token.value);
            }
        }
        return b.build();
    }

    private ApiException apiError(Call call, int status, HttpHeaders headers, byte[] body, String requestId) {
        String message = scrub(Retries.errorMessage(body, info.errorField == null ? "errors" : info.errorField));
        Duration retryAfter = Retries.retryAfter(headers, info.retryAfterHeader);
        StringBuilder text = new StringBuilder().append(call.op).append(" answered ").append(status);
        if (message != null) {
            text.append(": ").append(message);
        }
        if (call.op.hint != null && (status == 401 || status == 403)) {
            text.append(" (").append(call.op.hint).append(')');
        }
        String m = text.toString();
        if (status == 400) {
            return new BadRequestException(m, status, message, retryAfter, requestId);
        }
        if (status == 401) {
            return new AuthenticationException(m, status, message, retryAfter, requestId);
        }
        if (status == 403) {
            return new PermissionDeniedException(m, status, message, retryAfter, requestId);
        }
        if (status == 404) {
            return new NotFoundException(m, status, message, retryAfter, requestId);
        }
        if (status == 409) {
            return new ConflictException(m, status, message, retryAfter, requestId);
        }
        if (status == 422) {
            return new UnprocessableEntityException(m, status, message, retryAfter, requestId);
        }
        if (status == 429 || status == info.limitStatus) {
            return new RateLimitException(m, status, message, retryAfter, requestId);
        }
        if (status >= 500) {
            return new ServerException(m, status, message, retryAfter, requestId);
        }
        return new ApiException(m, status, message, retryAfter, requestId);
    }

    // ------------------------------------------------------------------ answers

    private JsonValue parse(Raw raw) {
        if (raw.body.length == 0) {
            throw new DecodeException("the answer (" + raw.status + ") is empty, not JSON", raw.status, "$", null);
        }
        try {
            return JsonValue.parse(raw.body);
        } catch (JsonException e) {
            throw decodeError(raw.status, e);
        }
    }

    private <T> T decode(Raw raw, Wire.Reader<T> decoder) {
        JsonValue json = parse(raw);
        try {
            return Wire.read(json, decoder);
        } catch (JsonException e) {
            throw decodeError(raw.status, e);
        }
    }

    /** Reads {@code json} as a page's type, the error one of the answer with {@code status}. */
    <T> T decodePage(JsonValue json, int status, Wire.Reader<T> decoder) {
        try {
            return Wire.read(json, decoder);
        } catch (JsonException e) {
            throw decodeError(status, e);
        }
    }

    private DecodeException decodeError(int status, JsonException e) {
        String path = e.path() != null ? e.path() : "$";
        // The reader's message may quote a value the service echoed: scrubbed, and not chained.
        return new DecodeException(scrub("the answer (" + status + ") does not fit: " + e.getMessage()), status, path, null);
    }

    /** Every secret this core holds now, replaced in {@code text}. */
    String scrub(String text) {
        List<String> secrets = new ArrayList<>(auth.secrets);
        if (token != null && token.value != null) {
            secrets.add(token.value);
        }
        return Secrets.scrub(text, secrets);
    }

    // ------------------------------------------------------------------ token login

    /** The token of a login: logged in lazily, and again on a 401, one login at a time. */
    private final class Token {
        volatile String value;
        private int generation;
        private CompletableFuture<Void> pending;

        synchronized int generation() {
            return generation;
        }

        CompletableFuture<Void> ensure() {
            return value != null ? CompletableFuture.completedFuture(null) : renew(generation());
        }

        /** Logs in unless another request already did since generation {@code seen}. */
        synchronized CompletableFuture<Void> renew(int seen) {
            if (generation != seen && value != null) {
                return CompletableFuture.completedFuture(null);
            }
            if (pending != null) {
                return pending;
            }
            CompletableFuture<Void> login = logIn().thenAccept(this::set);
            pending = login;
            login.whenComplete((v, e) -> {
                synchronized (this) {
                    pending = null;
                }
            });
            return login;
        }

        private synchronized void set(String token) {
            value = token;
            generation++;
        }
    }

    private CompletableFuture<String> logIn() {
        Call call = auth.login.get();
        return tracked(call, t -> send(call, t).thenApply(raw -> {
            JsonValue json = parse(raw);
            String found;
            try {
                found = auth.token.read(json);
            } catch (JsonException e) {
                throw decodeError(raw.status, e);
            }
            if (!Secrets.headerSafe(found) || found.isEmpty()) {
                String field = auth.tokenPath.startsWith("$.") ? auth.tokenPath.substring(2) : auth.tokenPath;
                throw new DecodeException("the login's token (" + field + ") cannot be sent in a header: it must be "
                    + "visible ASCII (the value is not shown)", raw.status, auth.tokenPath, null);
            }
            return found;
        }));
    }
}
