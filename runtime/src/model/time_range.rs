//! A filter value documented as "a time, or a range of times expressed as an array".

use chrono::{DateTime, Utc};
use std::fmt;

use serde::de::{self, IntoDeserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

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
        deserializer.deserialize_any(TimeOrRangeVisitor)
    }
}

/// A time as a string, or two in an array; each read as chrono reads a `DateTime<Utc>`.
struct TimeOrRangeVisitor;

impl<'de> Visitor<'de> for TimeOrRangeVisitor {
    type Value = TimeOrRange;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a date-time, or an array of two")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TimeOrRange, E> {
        DateTime::<Utc>::deserialize(v.into_deserializer()).map(TimeOrRange::Since)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TimeOrRange, A::Error> {
        let mut next = |at: usize| {
            seq.next_element::<DateTime<Utc>>()?
                .ok_or_else(|| de::Error::invalid_length(at, &self))
        };
        let (from, to) = (next(0)?, next(1)?);
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(TimeOrRange::Between(from, to))
    }
}

impl From<DateTime<Utc>> for TimeOrRange {
    fn from(t: DateTime<Utc>) -> Self {
        TimeOrRange::Since(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_or_a_range_of_two_reads_and_writes_back() {
        let read =
            |text: &str| serde_json::from_str::<TimeOrRange>(text).map_err(|e| e.to_string());
        let since = read(r#""2026-03-02T10:00:00Z""#).unwrap();
        let t = "2026-03-02T10:00:00Z".parse::<DateTime<Utc>>().unwrap();
        assert_eq!(since, TimeOrRange::Since(t));
        let between = read(r#"["2026-03-02T10:00:00Z","2026-03-03T10:00:00+02:00"]"#).unwrap();
        let TimeOrRange::Between(from, to) = between else {
            panic!("a range: {between:?}");
        };
        assert_eq!(
            (from, to.to_rfc3339()),
            (t, "2026-03-03T08:00:00+00:00".into())
        );
        assert_eq!(
            serde_json::to_string(&between).unwrap(),
            r#"["2026-03-02T10:00:00Z","2026-03-03T08:00:00Z"]"#
        );
        for (text, says) in [
            (r#"["2026-03-02T10:00:00Z"]"#, "invalid length 1"),
            (
                r#"["2026-03-02T10:00:00Z","2026-03-02T10:00:00Z","x"]"#,
                "invalid length 3",
            ),
            ("3", "expected a date-time, or an array of two"),
            (r#""yesterday""#, "input contains invalid characters"),
        ] {
            let err = read(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
