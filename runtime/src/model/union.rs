//! Tag dispatch for discriminated unions.
//!
//! A union member is captured as raw JSON, its tag is read, and only the variant that tag
//! names is decoded. So a bad member yields an error naming the tag and the failing
//! field, and a member with a tag this client does not know is kept byte for byte.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// A union member whose tag this version of the client does not know, kept whole.
///
/// It serialises back exactly as received, so a record read and written again loses
/// nothing. Like [`UnknownValue`](super::UnknownValue), it is opaque on purpose.
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
/// decoding) every other property. `Ok(None)` when the object has no such string.
pub fn read_tag(raw: &RawValue, tag: &str) -> Result<Option<String>, String> {
    struct TagVisitor<'t>(&'t str);

    impl<'de> Visitor<'de> for TagVisitor<'_> {
        type Value = Option<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an object with a `{}` property", self.0)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == self.0 && found.is_none() {
                    found = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(|v| match v {
                            serde_json::Value::String(s) => Some(s),
                            _ => None,
                        });
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_map(TagVisitor(tag))
        .map_err(|e| without_position(&e.to_string()))
}

/// Decodes `raw` as the variant for `tag_value`, naming the tag and the failing field's
/// path on error: ``object `checklist`: data[0].value: invalid type: ...``.
pub fn decode_variant<T: DeserializeOwned>(
    raw: &RawValue,
    tag: &str,
    tag_value: &str,
) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = without_position(&e.inner().to_string());
        if path == "." {
            format!("{tag} `{tag_value}`: {inner}")
        } else {
            format!("{tag} `{tag_value}`: {path}: {inner}")
        }
    })
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

/// serde_json appends ` at line L column C`, which means nothing to a reader of a nested
/// member; the JSON path replaces it.
pub(crate) fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
