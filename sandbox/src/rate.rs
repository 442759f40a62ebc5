//! The service's rate limit, per client address: a sliding window.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct RateLimiter {
    limit: Option<(usize, Duration)>,
    seen: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl RateLimiter {
    pub fn new(limit: Option<(u32, Duration)>) -> Self {
        RateLimiter {
            limit: limit.map(|(n, w)| (n as usize, w)),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Forgets every request counted so far.
    pub fn reset(&self) {
        crate::lock(&self.seen).clear();
    }

    /// `Ok` and counted, or how long until a request from `ip` is allowed again.
    pub fn check(&self, ip: IpAddr) -> Result<(), Duration> {
        let Some((n, window)) = self.limit else {
            return Ok(());
        };
        let now = Instant::now();
        let mut seen = crate::lock(&self.seen);
        let log = seen.entry(ip).or_default();
        while log
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            log.pop_front();
        }
        if log.len() < n {
            log.push_back(now);
            Ok(())
        } else {
            let oldest = log.front().copied().unwrap_or(now);
            Err((oldest + window).saturating_duration_since(now))
        }
    }
}
