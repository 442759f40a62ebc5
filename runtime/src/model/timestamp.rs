//! Date-times as the service may send them. Both interface documents say ISO 8601 in UTC,
//! not which of its forms, so a response is read tolerantly: with or without an offset (none means UTC),
//! with or without fractional seconds, `T`, `t` or a space between date and time, and a
//! bare date (midnight UTC). Requests always send RFC 3339 with `Z`.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// Parses an ISO 8601 date-time (or date) as an instant in UTC.
pub fn parse_date_time(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
        return Ok(dt.with_timezone(&Utc));
    }
    // An offset without a colon (`+0200`) or without seconds.
    for format in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%dT%H:%M%z"] {
        if let Ok(dt) = DateTime::parse_from_str(&text.replace(['t', ' '], "T"), format) {
            return Ok(dt.with_timezone(&Utc));
        }
    }
    let local = text.replace(['t', ' '], "T");
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(&local, format) {
            return Ok(naive.and_utc());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(date.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    Err(format!("expected an ISO 8601 date-time, got `{text}`"))
}

/// A date-time read tolerantly (any ISO 8601 form the service may send, as above).
pub struct Tolerant(DateTime<Utc>);

impl Tolerant {
    /// The instant read.
    pub fn get(self) -> DateTime<Utc> {
        self.0
    }

    /// The instant of an optional date-time, as generated records hold it.
    pub fn opt(t: Option<Tolerant>) -> Option<DateTime<Utc>> {
        t.map(Tolerant::get)
    }
}

impl<'de> Deserialize<'de> for Tolerant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Tolerant;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an ISO 8601 date-time string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Tolerant, E> {
                parse_date_time(v).map(Tolerant).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> String {
        parse_date_time(text).unwrap().to_rfc3339()
    }

    #[test]
    fn every_iso_form_the_service_may_send_is_read_as_utc() {
        let noon = "2016-05-23T12:00:00+00:00";
        assert_eq!(at("2016-05-23T12:00:00Z"), noon);
        assert_eq!(at("2016-05-23T12:00:00.000Z"), noon);
        assert_eq!(at("2016-05-23T12:00:00"), noon, "no offset is UTC");
        assert_eq!(at("2016-05-23 12:00:00"), noon);
        assert_eq!(at("2016-05-23t12:00:00z"), noon);
        assert_eq!(at("2016-05-23T12:00"), noon);
        assert_eq!(at("2016-05-23T14:00:00+02:00"), noon);
        assert_eq!(at("2016-05-23T14:00:00+0200"), noon);
        assert_eq!(
            at("2016-05-23T12:00:00.123456"),
            "2016-05-23T12:00:00.123456+00:00"
        );
        assert_eq!(at("2016-05-23"), "2016-05-23T00:00:00+00:00");
    }

    #[test]
    fn what_is_not_a_date_time_is_refused_by_name() {
        for bad in [
            "",
            "yesterday",
            "2016-13-01T00:00:00Z",
            "2016-05-23T25:00:00",
        ] {
            let err = parse_date_time(bad).unwrap_err();
            assert!(err.contains(bad), "{err}");
        }
    }
}
