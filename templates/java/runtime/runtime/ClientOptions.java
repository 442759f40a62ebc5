package {{ package }}.runtime;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a client behaves: pacing, retries, time limits, validation, polling and the limits on
 * what it reads. Immutable; {@link #builder()} starts from the defaults every client of the
 * service shares, {@link #toBuilder()} from these.
 */
public final class ClientOptions {
    /** The JSON answer size the client reads at most by default: 64 MiB. */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 64L * 1024 * 1024;

    private final RateLimit rateLimit;
    private final boolean documentedRateLimit;
    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration timeout;
    private final boolean validateRequests;
    private final int maxPolls;
    private final Duration pollInterval;
    private final long maxResponseBytes;
    private final int maxErrorBytes;
    private final int maxEmptyPages;
    private final Hooks hooks;
    private final String userAgent;
    private final HttpClient.Builder httpClient;
    private final boolean http2;

    private ClientOptions(Builder b) {
        this.rateLimit = b.rateLimit;
        this.documentedRateLimit = b.documentedRateLimit;
        this.maxAttempts = b.maxAttempts;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.timeout = b.timeout;
        this.validateRequests = b.validateRequests;
        this.maxPolls = b.maxPolls;
        this.pollInterval = b.pollInterval;
        this.maxResponseBytes = b.maxResponseBytes;
        this.maxErrorBytes = b.maxErrorBytes;
        this.maxEmptyPages = b.maxEmptyPages;
        this.hooks = b.hooks;
        this.userAgent = b.userAgent;
        this.httpClient = b.httpClient;
        this.http2 = b.http2;
    }

    /**
     * The defaults.
     *
     * @return options with every default
     */
    public static ClientOptions defaults() {
        return builder().build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these options.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.rateLimit = rateLimit;
        b.documentedRateLimit = documentedRateLimit;
        b.maxAttempts = maxAttempts;
        b.initialBackoff = initialBackoff;
        b.maxBackoff = maxBackoff;
        b.timeout = timeout;
        b.validateRequests = validateRequests;
        b.maxPolls = maxPolls;
        b.pollInterval = pollInterval;
        b.maxResponseBytes = maxResponseBytes;
        b.maxErrorBytes = maxErrorBytes;
        b.maxEmptyPages = maxEmptyPages;
        b.hooks = hooks;
        b.userAgent = userAgent;
        b.httpClient = httpClient;
        b.http2 = http2;
        return b;
    }

    /**
     * The client-side pacing, when set explicitly.
     *
     * @return the rate, or empty for the interface's documented one (see
     *     {@link #documentedRateLimit()}) or none
     */
    public Optional<RateLimit> rateLimit() {
        return Optional.ofNullable(rateLimit);
    }

    /**
     * Whether the client paces itself to the interface's documented quota (the default).
     *
     * @return true unless a rate was set or pacing turned off
     */
    public boolean documentedRateLimit() {
        return documentedRateLimit;
    }

    /**
     * Attempts in all, the first included.
     *
     * @return at least 1
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * The backoff before the first retry (doubling, with jitter).
     *
     * @return the backoff
     */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /**
     * The longest backoff, and the longest {@code Retry-After} the client waits out; a
     * longer one fails at once.
     *
     * @return the longest wait
     */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * The time for one attempt, the whole answer included.
     *
     * @return the time
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Whether documented limits are checked before sending.
     *
     * @return true by default
     */
    public boolean validateRequests() {
        return validateRequests;
    }

    /**
     * How often a 202 is asked again.
     *
     * @return the polls
     */
    public int maxPolls() {
        return maxPolls;
    }

    /**
     * The first wait between polls, unless {@code Retry-After} says otherwise (doubling).
     *
     * @return the interval
     */
    public Duration pollInterval() {
        return pollInterval;
    }

    /**
     * The largest success body read into memory.
     *
     * @return bytes
     */
    public long maxResponseBytes() {
        return maxResponseBytes;
    }

    /**
     * How much of an error body is read for its message.
     *
     * @return bytes
     */
    public int maxErrorBytes() {
        return maxErrorBytes;
    }

    /**
     * Empty pages in a row a walk accepts while the service still points onwards.
     *
     * @return the count
     */
    public int maxEmptyPages() {
        return maxEmptyPages;
    }

    /**
     * What is told of every attempt, retry, pause, page and failure.
     *
     * @return the hooks ({@link Hooks#NONE} by default)
     */
    public Hooks hooks() {
        return hooks;
    }

    /**
     * The {@code User-Agent} sent.
     *
     * @return the text
     */
    public String userAgent() {
        return userAgent;
    }

    /**
     * The HTTP client builder the client builds its connection pool from, when one was given.
     *
     * @return the builder
     */
    public Optional<HttpClient.Builder> httpClient() {
        return Optional.ofNullable(httpClient);
    }

    /**
     * Whether HTTP/2 may be negotiated (HTTP/1.1 otherwise).
     *
     * @return false by default
     */
    public boolean http2() {
        return http2;
    }

    /**
     * A client-side request rate: at most {@code requests} in any window of {@code window}.
     */
    public static final class RateLimit {
        private final int requests;
        private final Duration window;

        private RateLimit(int requests, Duration window) {
            this.requests = requests;
            this.window = window;
        }

        /**
         * A rate.
         *
         * @param requests the requests a window allows, at least 1
         * @param window the window, positive
         * @return the rate
         * @throws ConfigException for a count under 1 or a window that is not positive
         */
        public static RateLimit of(int requests, Duration window) {
            Objects.requireNonNull(window, "window");
            if (requests < 1 || window.isNegative() || window.isZero()) {
                throw new ConfigException("a rate limit needs at least 1 request in a positive window");
            }
            return new RateLimit(requests, window);
        }

        /**
         * The requests a window allows.
         *
         * @return the count
         */
        public int requests() {
            return requests;
        }

        /**
         * The window.
         *
         * @return the window
         */
        public Duration window() {
            return window;
        }

        @Override
        public String toString() {
            return requests + " requests per " + window;
        }
    }

    /** Builds {@link ClientOptions}; every setter returns the builder. */
    public static final class Builder {
        private RateLimit rateLimit;
        private boolean documentedRateLimit = true;
        private int maxAttempts = 4;
        private Duration initialBackoff = Duration.ofMillis(10);
        private Duration maxBackoff = Duration.ofSeconds(5);
        private Duration timeout = Duration.ofSeconds(10);
        private boolean validateRequests = true;
        private int maxPolls = 10;
        private Duration pollInterval = Duration.ofMillis(20);
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
        private int maxErrorBytes = 64 * 1024;
        private int maxEmptyPages = 10;
        private Hooks hooks = Hooks.NONE;
        private String userAgent = "inspection-client (java)";
        private HttpClient.Builder httpClient;
        private boolean http2;

        private Builder() {
        }

        /**
         * Paces the client to this rate instead of the interface's documented quota.
         *
         * @param rateLimit the rate
         * @return this builder
         */
        public Builder rateLimit(RateLimit rateLimit) {
            this.rateLimit = Objects.requireNonNull(rateLimit, "rateLimit");
            this.documentedRateLimit = false;
            return this;
        }

        /**
         * Turns client-side pacing off (a 429's pause still holds every request).
         *
         * @return this builder
         */
        public Builder noRateLimit() {
            this.rateLimit = null;
            this.documentedRateLimit = false;
            return this;
        }

        /**
         * Sets the attempts in all, the first included.
         *
         * @param maxAttempts at least 1
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = atLeast(maxAttempts, 1, "maxAttempts");
            return this;
        }

        /**
         * Sets the backoff before the first retry.
         *
         * @param initialBackoff not negative
         * @return this builder
         */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = notNegative(initialBackoff, "initialBackoff");
            return this;
        }

        /**
         * Sets the longest backoff and the longest {@code Retry-After} waited out.
         *
         * @param maxBackoff not negative
         * @return this builder
         */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = notNegative(maxBackoff, "maxBackoff");
            return this;
        }

        /**
         * Sets the time for one attempt, the whole answer included.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = notNegative(timeout, "timeout");
            if (timeout.isZero()) {
                throw new ConfigException("timeout must be positive");
            }
            return this;
        }

        /**
         * Turns the checks of documented limits before sending on or off.
         *
         * @param validateRequests whether to check
         * @return this builder
         */
        public Builder validateRequests(boolean validateRequests) {
            this.validateRequests = validateRequests;
            return this;
        }

        /**
         * Sets how often a 202 is asked again.
         *
         * @param maxPolls not negative
         * @return this builder
         */
        public Builder maxPolls(int maxPolls) {
            this.maxPolls = atLeast(maxPolls, 0, "maxPolls");
            return this;
        }

        /**
         * Sets the first wait between polls.
         *
         * @param pollInterval not negative
         * @return this builder
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = notNegative(pollInterval, "pollInterval");
            return this;
        }

        /**
         * Sets the largest success body read into memory.
         *
         * @param maxResponseBytes at least 1
         * @return this builder
         */
        public Builder maxResponseBytes(long maxResponseBytes) {
            if (maxResponseBytes < 1) {
                throw new ConfigException("maxResponseBytes must be at least 1");
            }
            this.maxResponseBytes = maxResponseBytes;
            return this;
        }

        /**
         * Sets how much of an error body is read for its message.
         *
         * @param maxErrorBytes not negative
         * @return this builder
         */
        public Builder maxErrorBytes(int maxErrorBytes) {
            this.maxErrorBytes = atLeast(maxErrorBytes, 0, "maxErrorBytes");
            return this;
        }

        /**
         * Sets the empty pages in a row a walk accepts while the service points onwards.
         *
         * @param maxEmptyPages not negative
         * @return this builder
         */
        public Builder maxEmptyPages(int maxEmptyPages) {
            this.maxEmptyPages = atLeast(maxEmptyPages, 0, "maxEmptyPages");
            return this;
        }

        /**
         * Sets what is told of every attempt, retry, pause, page and failure.
         *
         * @param hooks the hooks
         * @return this builder
         */
        public Builder hooks(Hooks hooks) {
            this.hooks = Objects.requireNonNull(hooks, "hooks");
            return this;
        }

        /**
         * Sets the {@code User-Agent}.
         *
         * @param userAgent the text
         * @return this builder
         */
        public Builder userAgent(String userAgent) {
            this.userAgent = Objects.requireNonNull(userAgent, "userAgent");
            return this;
        }

        /**
         * Builds the connection pool from this builder (a proxy, an {@code SSLContext} for a
         * corporate CA, an authenticator). The client sets its own executor (which it closes),
         * never follows redirects through it (it follows them itself, keeping credentials on
         * the base URL's origin) and asks for HTTP/1.1 unless {@link #http2(boolean)}.
         *
         * @param httpClient the builder
         * @return this builder
         */
        public Builder httpClient(HttpClient.Builder httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /**
         * Lets HTTP/2 be negotiated.
         *
         * @param http2 whether to
         * @return this builder
         */
        public Builder http2(boolean http2) {
            this.http2 = http2;
            return this;
        }

        /**
         * The options.
         *
         * @return the options
         */
        public ClientOptions build() {
            return new ClientOptions(this);
        }

        private static int atLeast(int value, int least, String name) {
            if (value < least) {
                throw new ConfigException(name + " must be at least " + least);
            }
            return value;
        }

        private static Duration notNegative(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isNegative()) {
                throw new ConfigException(name + " must not be negative");
            }
            return value;
        }
    }
}
