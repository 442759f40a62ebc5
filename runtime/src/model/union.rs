//! What discriminated unions share: the member kept whole when its tag is unknown, and
//! writing a member back with its tag. Generated unions read their members in one pass
//! (`tagged.rs`); a union with a member that is not a plain record (an envelope) reads it
//! the older way kept here: captured as raw JSON, its tag read, then only the variant that
//! tag names decoded.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::text::{decode_text, without_position};

/// A union member whose tag this version of the client does not know, kept whole.
///
/// It serialises back as received (its properties in the order sent, each value's text as
/// sent), so a record read and written again loses nothing. Like [`UnknownValue`](super::UnknownValue), it is opaque on purpose.
#[derive(Clone)]
pub struct UnknownMember {
    tag: String,
    raw: Box<RawValue>,
}

impl UnknownMember {
    /// Keeps `raw` under `tag`. Generated unions call this for tags they do not know.
    #[doc(hidden)]
    pub fn new(tag: String, raw: Box<RawValue>) -> Self {
        UnknownMember { tag, raw }
    }

    /// The tag value as the service sent it (empty when the member had no tag).
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The member's JSON text, exactly as received.
    pub fn raw_json(&self) -> &str {
        self.raw.get()
    }

    /// The member as a JSON value, for inspection.
    pub fn to_value(&self) -> serde_json::Value {
        // The text was valid JSON when it was captured; Null only if that ever changed.
        serde_json::from_str(self.raw.get()).unwrap_or(serde_json::Value::Null)
    }
}

impl fmt::Debug for UnknownMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnknownMember")
            .field("tag", &self.tag)
            .field("raw", &self.raw.get())
            .finish()
    }
}

impl PartialEq for UnknownMember {
    fn eq(&self, other: &Self) -> bool {
        self.tag == other.tag && self.raw.get() == other.raw.get()
    }
}

impl Serialize for UnknownMember {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Reads the string value of property `tag` of the JSON object `raw`, skipping (not
/// decoding) the properties before it and not reading past it. `Ok(None)` when the object
/// has no such string.
pub fn read_tag(raw: &RawValue, tag: &str) -> Result<Option<String>, String> {
    /// Stops at the first string-valued `tag`: `raw` was checked to be JSON when it was
    /// captured, so the rest need not be read. Stopping early makes serde_json report an
    /// unfinished object, which is why the tag is handed out through `found`, not returned.
    struct TagVisitor<'t> {
        tag: &'t str,
        found: &'t mut Option<String>,
    }

    impl<'de> Visitor<'de> for TagVisitor<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an object with a `{}` property", self.tag)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key != self.tag {
                    map.next_value::<IgnoredAny>()?;
                } else if let Some(serde_json::Value::String(value)) =
                    map.next_value::<Option<serde_json::Value>>()?
                {
                    *self.found = Some(value);
                    return Ok(());
                }
            }
            Ok(())
        }
    }

    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let read = de.deserialize_map(TagVisitor {
        tag,
        found: &mut found,
    });
    match (found, read) {
        (Some(value), _) => Ok(Some(value)),
        (None, Ok(())) => Ok(None),
        (None, Err(e)) => Err(without_position(&e.to_string())),
    }
}

/// Decodes `raw` as the variant for `tag_value`, naming the tag and the failing field's
/// path on error: ``object `checklist`: data[0].value: invalid type: ...``.
pub fn decode_variant<T: DeserializeOwned + super::Record>(
    raw: &RawValue,
    tag: &str,
    tag_value: &str,
) -> Result<T, String> {
    let mut value: T = decode_text::<_, serde_json::Error>(raw.get(), "")
        .map_err(|e| format!("{tag} `{tag_value}`: {e}"))?;
    // The tag is the union's, written back by `serialize_tagged`, not an unknown property.
    value.additional_properties_mut().remove(tag);
    Ok(value)
}

/// Captures a union member as raw JSON; the first step of every union's `Deserialize`.
pub fn capture<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Box<RawValue>, D::Error> {
    <Box<RawValue> as de::Deserialize>::deserialize(deserializer)
}

/// Writes `value` (an object) with the property `tag` set to `tag_value`.
pub fn serialize_tagged<S: Serializer, T: Serialize>(
    serializer: S,
    tag: &str,
    tag_value: &str,
    value: &T,
) -> Result<S::Ok, S::Error> {
    match serde_json::to_value(value).map_err(S::Error::custom)? {
        serde_json::Value::Object(mut map) => {
            map.insert(tag.to_string(), serde_json::Value::String(tag_value.into()));
            map.serialize(serializer)
        }
        _ => Err(S::Error::custom(format!(
            "union member `{tag_value}` did not serialise as an object"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Circle {
        r: i64,
        extras: serde_json::Map<String, serde_json::Value>,
    }
    crate::impl_decode!(Circle, extras, [(r, "r", value, required)]);
    crate::impl_record!(Circle, extras);

    #[test]
    fn a_captured_member_decodes_without_its_tag_or_names_its_failure() {
        let read = |json: &str| {
            decode_variant::<Circle>(&RawValue::from_string(json.into()).unwrap(), "kind", "c")
        };
        let circle = read(r#"{"kind":"c","r":2,"x":1}"#).unwrap();
        assert_eq!((circle.r, circle.extras.len()), (2, 1));
        assert_eq!(
            read(r#"{"kind":"c","r":"big"}"#).unwrap_err(),
            "kind `c`: r: invalid type: string \"big\", expected i64"
        );
        assert_eq!(
            read(r#"{"kind":"c"}"#).unwrap_err(),
            "kind `c`: missing field `r`"
        );
    }

    fn tag_of(json: &str) -> Result<Option<String>, String> {
        read_tag(&RawValue::from_string(json.to_string()).unwrap(), "type")
    }

    #[test]
    fn the_tag_is_found_wherever_it_is() {
        assert_eq!(
            tag_of(r#"{"type":"a","x":[1,{"y":2}]}"#),
            Ok(Some("a".into()))
        );
        assert_eq!(
            tag_of(r#"{"x":{"type":"inner"},"type":"b"}"#),
            Ok(Some("b".into()))
        );
        // The first string-valued tag counts; one that is not a string is passed over.
        assert_eq!(
            tag_of(r#"{"type":1,"type":"c","type":"d"}"#),
            Ok(Some("c".into()))
        );
        assert_eq!(tag_of(r#"{"type":"e","type":"f"}"#), Ok(Some("e".into())));
    }

    #[test]
    fn no_tag_is_none_and_a_non_object_is_an_error() {
        assert_eq!(tag_of(r#"{"x":1,"type":null}"#), Ok(None));
        assert_eq!(tag_of("{}"), Ok(None));
        let err = tag_of("[1]").unwrap_err();
        assert!(err.contains("an object with a `type` property"), "{err}");
    }
}
