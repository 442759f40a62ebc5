//! The sandbox's clock: real time plus an offset tests can advance (share links expire,
//! timestamps move), without touching the real time that rate limiting runs on.

use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

#[derive(Debug, Default)]
pub struct Clock {
    offset: Mutex<Duration>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        let offset = *crate::lock(&self.offset);
        let now = Utc::now()
            .checked_add_signed(offset)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        // Whole milliseconds, as the service's timestamps have.
        DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
    }

    /// Back to real time.
    pub fn reset(&self) {
        *crate::lock(&self.offset) = Duration::zero();
    }

    pub fn advance(&self, by: Duration) {
        let mut offset = crate::lock(&self.offset);
        *offset = offset.checked_add(&by).unwrap_or(*offset);
    }
}
