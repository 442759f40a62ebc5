//! A filter value documented as "a time, or a range of times expressed as an array".

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};

/// An ISO 8601 time (records at or after it) or a `[from, to]` range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeOrRange {
    /// Records at or after this time.
    Since(DateTime<Utc>),
    /// Records between the two times: `[from, to]`.
    Between(DateTime<Utc>, DateTime<Utc>),
}

impl Serialize for TimeOrRange {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = |t: &DateTime<Utc>| crate::request::format_date_time(t);
        match self {
            TimeOrRange::Since(t) => serializer.serialize_str(&text(t)),
            TimeOrRange::Between(a, b) => [text(a), text(b)].serialize(serializer),
        }
    }
}

impl<'de> serde::Deserialize<'de> for TimeOrRange {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Wire {
            One(DateTime<Utc>),
            Two([DateTime<Utc>; 2]),
        }
        Ok(match Wire::deserialize(deserializer)? {
            Wire::One(t) => TimeOrRange::Since(t),
            Wire::Two([a, b]) => TimeOrRange::Between(a, b),
        })
    }
}

impl From<DateTime<Utc>> for TimeOrRange {
    fn from(t: DateTime<Utc>) -> Self {
        TimeOrRange::Since(t)
    }
}
