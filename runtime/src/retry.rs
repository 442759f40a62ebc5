//! When to try again, and how long to wait.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// Bounded retries with exponential backoff and jitter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Backoff before the first retry; doubled for each further one.
    pub initial_backoff: Duration,
    /// Longest backoff, and longest `Retry-After` honoured.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// `max_attempts` in all (the first included, at least 1), backing off from
    /// `initial_backoff`, doubling up to `max_backoff` (also the longest `Retry-After`
    /// waited out).
    pub fn new(max_attempts: u32, initial_backoff: Duration, max_backoff: Duration) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            initial_backoff,
            max_backoff,
        }
    }

    /// One attempt, never retried.
    pub fn never() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Backoff before retry number `retry` (1-based): half of the exponential step plus a
    /// random share of the other half, so clients that failed together spread out.
    pub fn backoff(&self, retry: u32) -> Duration {
        let step = self
            .initial_backoff
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16))
            .min(self.max_backoff);
        let half = step / 2;
        half + half.mul_f64(jitter())
    }
}

/// A number in [0, 1) that differs between calls and between processes.
fn jitter() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// `Retry-After` as delay-seconds or an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // More seconds than a u64 holds: as long as a wait can be.
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::MAX);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_grows_and_stays_bounded() {
        let p = RetryPolicy {
            max_attempts: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
        };
        let b1 = p.backoff(1);
        assert!(
            b1 >= Duration::from_millis(50) && b1 <= Duration::from_millis(100),
            "{b1:?}"
        );
        let b3 = p.backoff(3);
        assert!(
            b3 >= Duration::from_millis(200) && b3 <= Duration::from_millis(400),
            "{b3:?}"
        );
        assert!(p.backoff(30) <= Duration::from_millis(1000));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        let later = chrono::Utc::now() + chrono::Duration::seconds(30);
        let date = later.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        h.insert(RETRY_AFTER, HeaderValue::from_str(&date).unwrap());
        let d = retry_after(&h).unwrap();
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
        // The two obsolete forms a server may still send (RFC 9110, 5.6.7).
        let rfc850 = later.format("%A, %d-%b-%y %H:%M:%S GMT").to_string();
        h.insert(RETRY_AFTER, HeaderValue::from_str(&rfc850).unwrap());
        assert!(retry_after(&h).unwrap() > Duration::from_secs(27));
        let asctime = later.format("%a %b %e %H:%M:%S %Y").to_string();
        h.insert(RETRY_AFTER, HeaderValue::from_str(&asctime).unwrap());
        assert!(retry_after(&h).unwrap() > Duration::from_secs(27));
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }
}
