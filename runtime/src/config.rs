//! Client settings.

use std::time::Duration;

use crate::retry::RetryPolicy;

/// How a client paces its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pacing {
    /// The interface's documented quota (v3: 100 requests per 10 s); no pacing for an
    /// interface that documents none.
    Documented,
    /// No pacing (only `Retry-After` pauses).
    Off,
    /// At most `requests` per `window` (the window already padded, see
    /// [`Config::rate_limit`]).
    Limit {
        /// Requests allowed in one window.
        requests: u32,
        /// The time the requests are counted over.
        window: Duration,
    },
}

/// What an interface documents, applied to every setting a [`Config`] leaves to it.
#[derive(Debug, Clone, Copy)]
pub struct InterfaceDefaults {
    /// Requests per window (unpadded), if the interface documents a quota.
    pub rate_limit: Option<(u32, Duration)>,
    /// `Accept` of requests that name none.
    pub accept: &'static str,
    /// The JSON property of error bodies that holds the message.
    pub error_message_field: &'static str,
}

/// Everything a client can be tuned with; every setter returns the changed config.
/// Whatever is left unset follows the interface the client is for (its documented rate
/// limit, its versioned `Accept`), so `Config::default()` is a correct start for every
/// client, never one with pacing or the legacy `Accept` silently off.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// How requests are paced; the interface's documented quota by default.
    pub pacing: Pacing,
    /// How failed attempts are retried (4 attempts in all by default).
    pub retry: RetryPolicy,
    /// Total time for one attempt, body included.
    pub timeout: Duration,
    /// Time to open a connection (10 s by default).
    pub connect_timeout: Duration,
    /// Check documented limits before sending (on by default).
    pub validate_requests: bool,
    /// How many times to ask again while the service answers 202 (still preparing).
    pub max_polls: u32,
    /// Wait between polls (doubled each time, up to `retry.max_backoff`), unless the
    /// service sends `Retry-After`.
    pub poll_interval: Duration,
    /// The JSON property of error bodies that holds the message; `None`: the interface's.
    pub error_message_field: Option<&'static str>,
    /// `Accept` of requests that name none; `None`: the interface's (the legacy interface
    /// requires a versioned one).
    pub default_accept: Option<&'static str>,
    /// The `User-Agent` sent (`inspection-client/<version>` by default).
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
    /// Your own changes to the HTTP client (a proxy, no proxy, extra root certificates,
    /// pool settings), applied before the client's rules; see [`Config::http`].
    pub http: Option<HttpSetup>,
    /// Hosts (not loopback) the client may reach over plain `http://`, credentials and
    /// all; see [`Config::danger_plain_http_to`]. Empty by default.
    pub plain_http_hosts: Vec<String>,
    /// Pacers this client shares with others (see [`Config::share_pacing`]); `None`: a
    /// pacer of its own, shared only by its clones.
    pub shared_pacing: Option<crate::SharedPacing>,
}

/// The environment variable `name` of a client's `from_env`: missing or not UTF-8 is an
/// `Error::Config` naming the variable, never its value.
pub fn env_var(name: &str) -> Result<String, crate::Error> {
    std::env::var(name).map_err(|_| {
        crate::Error::Config(format!(
            "the environment variable {name} is not set (or not UTF-8)"
        ))
    })
}

/// A change to `reqwest::ClientBuilder`, made by [`Config::http`].
#[derive(Clone)]
pub struct HttpSetup(
    std::sync::Arc<dyn Fn(reqwest::ClientBuilder) -> reqwest::ClientBuilder + Send + Sync>,
);

impl HttpSetup {
    pub(crate) fn apply(&self, builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
        (self.0)(builder)
    }
}

impl std::fmt::Debug for HttpSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HttpSetup(..)")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pacing: Pacing::Documented,
            retry: RetryPolicy::default(),
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            validate_requests: true,
            max_polls: 10,
            poll_interval: Duration::from_millis(500),
            error_message_field: None,
            default_accept: None,
            user_agent: concat!("inspection-client/", env!("CARGO_PKG_VERSION")).to_string(),
            max_response_bytes: 64 << 20,
            max_error_bytes: 64 << 10,
            max_empty_pages: 10,
            http: None,
            plain_http_hosts: Vec::new(),
            shared_pacing: None,
        }
    }
}

impl Config {
    /// Allows plain `http://` to `host` (a sandbox in a container network, e.g.
    /// `sandbox` for `http://sandbox:8080/v3`): the credentials then cross that network
    /// unencrypted. Only the named host; every other non-loopback host still needs https.
    pub fn danger_plain_http_to(mut self, host: impl Into<String>) -> Self {
        self.plain_http_hosts.push(host.into());
        self
    }

    /// Customises the HTTP client: `setup` gets the `reqwest::ClientBuilder` and returns it
    /// changed, e.g. `|b| b.proxy(reqwest::Proxy::all("http://proxy:3128")?)` (keep the
    /// `Result` outside), `|b| b.no_proxy()`, `|b| b.add_root_certificate(cert)`. The
    /// system proxy (`HTTPS_PROXY`, ...) is used unless changed. The client applies its own
    /// rules afterwards, which `setup` cannot undo: redirects only within the base URL's
    /// origin, no `Referer`, and the timeouts of this config.
    pub fn http(
        mut self,
        setup: impl Fn(reqwest::ClientBuilder) -> reqwest::ClientBuilder + Send + Sync + 'static,
    ) -> Self {
        self.http = Some(HttpSetup(std::sync::Arc::new(setup)));
        self
    }

    /// Paces the client to `requests` per `window` (the service's quota, e.g. 200 per 10 s
    /// once raised). The window is taken 0.2 % and 20 ms longer, a margin for the two
    /// clocks' rates and for network jitter.
    pub fn rate_limit(mut self, requests: u32, window: Duration) -> Self {
        self.pacing = Pacing::Limit {
            requests,
            window: padded(window),
        };
        self
    }

    /// Paces this client together with every other client given the same `pacing` and
    /// the same base URL, whatever their credentials: the service counts its quota per
    /// client address, so clients of several companies in one process share one pace, take
    /// turns request by request, and a 429 met by one holds back all. The first client
    /// made for a base URL sets the pace.
    pub fn share_pacing(mut self, pacing: crate::SharedPacing) -> Self {
        self.shared_pacing = Some(pacing);
        self
    }

    /// Turns pacing off: requests go out as they are made, pausing only for `Retry-After`.
    pub fn no_pacing(mut self) -> Self {
        self.pacing = Pacing::Off;
        self
    }

    /// This config with every setting it leaves to the interface taken from `defaults`.
    pub fn for_interface(mut self, defaults: &InterfaceDefaults) -> Self {
        if self.pacing == Pacing::Documented {
            self.pacing = match defaults.rate_limit {
                Some((requests, window)) => Pacing::Limit {
                    requests,
                    window: padded(window),
                },
                None => Pacing::Off,
            };
        }
        self.default_accept.get_or_insert(defaults.accept);
        self.error_message_field
            .get_or_insert(defaults.error_message_field);
        self
    }

    /// The pacing limit in force, if any (`Documented` paces nothing until
    /// [`Config::for_interface`] resolves it).
    pub fn pacing_limit(&self) -> Option<(u32, Duration)> {
        match self.pacing {
            Pacing::Limit { requests, window } => Some((requests, window)),
            Pacing::Documented | Pacing::Off => None,
        }
    }

    /// `Accept` of requests that name none.
    pub fn accept(&self) -> &'static str {
        self.default_accept.unwrap_or("application/json")
    }

    /// The JSON property of error bodies that holds the message.
    pub fn message_field(&self) -> &'static str {
        self.error_message_field.unwrap_or("errors")
    }

    /// How failed attempts are retried.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Attempts per request, the first included (at least 1); the rest of the retry
    /// policy stays as it is.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.retry.max_attempts = attempts.max(1);
        self
    }

    /// Total time for one attempt, body included.
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

    /// How many times to ask again while the service answers 202 (still preparing).
    pub fn max_polls(mut self, polls: u32) -> Self {
        self.max_polls = polls;
        self
    }

    /// The JSON property of error bodies that holds the message, instead of the
    /// interface's (`errors`).
    pub fn error_message_field(mut self, field: &'static str) -> Self {
        self.error_message_field = Some(field);
        self
    }

    /// `Accept` of requests that name none, instead of the interface's
    /// (`application/json; version=1` for the legacy interface).
    pub fn default_accept(mut self, accept: &'static str) -> Self {
        self.default_accept = Some(accept);
        self
    }

    /// The first wait between polls (doubled each time) when the service sends no
    /// `Retry-After`.
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

/// The window with its margin: 0.2 % for the two clocks' rates (far more than clocks
/// drift), and 20 ms for network jitter, which does not grow with the window. A sliding
/// log repeats its first window's pace in every later one, so the margin is paid once per
/// window: 2 % cost a long export 2 % of its speed. Saturates rather than overflowing for
/// windows near `Duration::MAX`.
fn padded(window: Duration) -> Duration {
    Duration::try_from_secs_f64(window.as_secs_f64() * 1.002).map_or(Duration::MAX, |w| {
        w.saturating_add(Duration::from_millis(20))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGACY: InterfaceDefaults = InterfaceDefaults {
        rate_limit: None,
        accept: "application/json; version=1",
        error_message_field: "error",
    };
    const V3: InterfaceDefaults = InterfaceDefaults {
        rate_limit: Some((100, Duration::from_secs(10))),
        accept: "application/json",
        error_message_field: "errors",
    };

    #[test]
    fn a_default_config_takes_the_interfaces_defaults() {
        let v3 = Config::default().for_interface(&V3);
        assert_eq!(
            v3.pacing_limit(),
            Some((100, Duration::from_millis(10_040)))
        );
        let legacy = Config::default().for_interface(&LEGACY);
        assert_eq!(legacy.accept(), "application/json; version=1");
        assert_eq!(legacy.message_field(), "error");
        assert_eq!(legacy.pacing_limit(), None);
    }

    #[test]
    fn what_the_user_set_wins() {
        let c = Config::default()
            .no_pacing()
            .default_accept("application/json")
            .for_interface(&LEGACY);
        assert_eq!((c.pacing, c.accept()), (Pacing::Off, "application/json"));
        let c = Config::default()
            .rate_limit(200, Duration::from_secs(10))
            .for_interface(&V3);
        assert_eq!(c.pacing_limit().map(|l| l.0), Some(200));
        let huge = Config::default().rate_limit(1, Duration::MAX);
        assert_eq!(huge.pacing_limit(), Some((1, Duration::MAX)));
    }
}
