//! A value documented as "a date or a date-time" (a task's `due_by`).

use std::fmt;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An ISO 8601 date (`2026-03-01`) or date-time (`2026-03-01T17:00:00Z`), kept as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateOrDateTime {
    /// A calendar date.
    Date(NaiveDate),
    /// An instant, in UTC.
    DateTime(DateTime<Utc>),
}

impl DateOrDateTime {
    /// Parses either form; a date-time with an offset is converted to UTC.
    pub fn parse(text: &str) -> Result<Self, String> {
        if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
            return Ok(DateOrDateTime::DateTime(dt.with_timezone(&Utc)));
        }
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(DateOrDateTime::Date)
            .map_err(|_| format!("expected an ISO 8601 date or date-time, got `{text}`"))
    }
}

impl From<NaiveDate> for DateOrDateTime {
    fn from(d: NaiveDate) -> Self {
        DateOrDateTime::Date(d)
    }
}

impl From<DateTime<Utc>> for DateOrDateTime {
    fn from(dt: DateTime<Utc>) -> Self {
        DateOrDateTime::DateTime(dt)
    }
}

impl fmt::Display for DateOrDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DateOrDateTime::Date(d) => write!(f, "{}", d.format("%Y-%m-%d")),
            DateOrDateTime::DateTime(dt) => {
                f.write_str(&dt.to_rfc3339_opts(SecondsFormat::AutoSi, true))
            }
        }
    }
}

impl Serialize for DateOrDateTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DateOrDateTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DateOrDateTime;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ISO 8601 date or date-time string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DateOrDateTime, E> {
                DateOrDateTime::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_round_trip() {
        for text in [
            "2026-03-01",
            "2026-03-01T17:00:00Z",
            "2026-03-01T17:00:00.250Z",
        ] {
            let v = DateOrDateTime::parse(text).unwrap();
            assert_eq!(v.to_string(), text);
        }
        let shifted = DateOrDateTime::parse("2026-03-01T19:00:00+02:00").unwrap();
        assert_eq!(shifted.to_string(), "2026-03-01T17:00:00Z");
        assert!(DateOrDateTime::parse("March 1st").is_err());
    }
}
