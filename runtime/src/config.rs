//! Client settings.

use std::time::Duration;

use crate::retry::RetryPolicy;

/// Everything a client can be tuned with. Generated clients start from the spec's
/// defaults (the documented rate limit); every setter returns the changed config.
#[derive(Debug, Clone)]
pub struct Config {
    /// Requests per window the client paces itself to; `None` turns pacing off.
    pub rate_limit: Option<(u32, Duration)>,
    pub retry: RetryPolicy,
    /// Total time for one attempt, body included.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Check documented limits before sending (on by default).
    pub validate_requests: bool,
    /// How many times to ask again while the service answers 202 (still preparing).
    pub max_polls: u32,
    /// Wait between polls (doubled each time, up to `retry.max_backoff`), unless the
    /// service sends `Retry-After`.
    pub poll_interval: Duration,
    /// The JSON property of error bodies that holds the message.
    pub error_message_field: &'static str,
    /// `Accept` of requests that name none (an interface may require a versioned one).
    pub default_accept: &'static str,
    pub user_agent: String,
    /// The largest success body read into memory (64 MiB); a larger one is
    /// `Error::TooLarge`, with no more than this read. Downloads written to a writer
    /// (`Core::download`, `Core::fetch_presigned_to`) have no limit.
    pub max_response_bytes: u64,
    /// How much of an error body is read for its message (64 KiB); the rest is dropped.
    pub max_error_bytes: usize,
    /// Empty pages in a row a walk accepts while the service still points to a next one
    /// (10); one more ends the walk with `Error::PagingStalled`.
    pub max_empty_pages: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            rate_limit: None,
            retry: RetryPolicy::default(),
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            validate_requests: true,
            max_polls: 10,
            poll_interval: Duration::from_millis(500),
            error_message_field: "errors",
            default_accept: "application/json",
            user_agent: concat!("inspection-client/", env!("CARGO_PKG_VERSION")).to_string(),
            max_response_bytes: 64 << 20,
            max_error_bytes: 64 << 10,
            max_empty_pages: 10,
        }
    }
}

impl Config {
    /// Paces the client to `requests` per `window` (the service's quota, e.g. 200 per 10 s
    /// once raised). The margin of 2 % absorbs clock and network jitter.
    pub fn rate_limit(mut self, requests: u32, window: Duration) -> Self {
        // Saturates rather than overflowing for windows near `Duration::MAX`.
        let padded =
            Duration::try_from_secs_f64(window.as_secs_f64() * 1.02).unwrap_or(Duration::MAX);
        self.rate_limit = Some((requests, padded));
        self
    }

    pub fn no_pacing(mut self) -> Self {
        self.rate_limit = None;
        self
    }

    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.retry.max_attempts = attempts.max(1);
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Turns client-side validation on or off (for when the service relaxes a limit
    /// before the spec catches up).
    pub fn validate_requests(mut self, on: bool) -> Self {
        self.validate_requests = on;
        self
    }

    pub fn max_polls(mut self, polls: u32) -> Self {
        self.max_polls = polls;
        self
    }

    /// The JSON property of error bodies that holds the message (`errors`).
    pub fn error_message_field(mut self, field: &'static str) -> Self {
        self.error_message_field = field;
        self
    }

    /// `Accept` of requests that name none (`application/json; version=1`).
    pub fn default_accept(mut self, accept: &'static str) -> Self {
        self.default_accept = accept;
        self
    }

    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The largest success body read into memory (see the field).
    pub fn max_response_bytes(mut self, bytes: u64) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How much of an error body is kept for its message.
    pub fn max_error_bytes(mut self, bytes: usize) -> Self {
        self.max_error_bytes = bytes;
        self
    }

    /// Empty pages in a row a walk accepts before it fails as stalled.
    pub fn max_empty_pages(mut self, pages: u32) -> Self {
        self.max_empty_pages = pages;
        self
    }
}
