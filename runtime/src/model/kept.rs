//! The values a tagged union keeps aside when they come before its tag, and how a member
//! reads them once the tag is known. A scalar (the tag, an id, a label) is kept as read:
//! a string borrowed from the input where it has no escapes, so the member copies it once,
//! as it would from the input; anything else as raw JSON text, skimmed and read later.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::text::decode_text;

/// A property's value kept aside before the tag.
pub(crate) enum Kept<'de> {
    /// A string, borrowed from the input where it could be.
    Text(Cow<'de, str>),
    /// Any other value of a property read as a scalar (a number, `null`; an object or an
    /// array only when the service departs from the spec), or of a tag that is not a
    /// string.
    Value(Value),
    /// Any other property's JSON text, as sent.
    Raw(Box<RawValue>),
}

impl<'de> From<Scalar<'de>> for Kept<'de> {
    fn from(scalar: Scalar<'de>) -> Self {
        match scalar {
            Scalar::Text(text) => Kept::Text(text),
            Scalar::Other(value) => Kept::Value(value),
        }
    }
}

impl Kept<'_> {
    /// The value's JSON text.
    pub(crate) fn text(&self) -> Cow<'_, str> {
        match self {
            // A string and a `Value` always serialise.
            Kept::Text(text) => Cow::Owned(serde_json::to_string(text).unwrap_or_default()),
            Kept::Value(value) => Cow::Owned(value.to_string()),
            Kept::Raw(raw) => Cow::Borrowed(raw.get()),
        }
    }
}

/// A value read where a scalar is expected: a string as text, anything else as a `Value`.
pub(crate) enum Scalar<'de> {
    Text(Cow<'de, str>),
    Other(Value),
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;

        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Text(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Text(Cow::Owned(v.to_string())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Text(Cow::Owned(v)))
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Value::Bool(v)))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Value::from(v)))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Value::from(v)))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Value::from(v)))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Value::Null))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map)).map(Scalar::Other)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
                Value::deserialize(SeqAccessDeserializer::new(seq)).map(Scalar::Other)
            }
        }

        deserializer.deserialize_any(ScalarVisitor)
    }
}

/// Decodes a property kept aside before the tag. It is read apart from the input, so a
/// failure is explained here, with the JSON path inside it: the message starts with the
/// property and that path (`data[1]: ...`), which the client's decode joins to the path
/// it tracked up to the member.
///
/// A value that is not a string is read from its JSON text, as raw JSON is: `T` is then
/// instantiated for one more deserializer only (two, with the string's), which keeps the
/// generated crate's build from growing with every type a member holds.
pub(crate) fn decode_kept<T: DeserializeOwned, E: de::Error>(
    name: &str,
    kept: Kept<'_>,
) -> Result<T, E> {
    let (written, raw);
    let text = match kept {
        // A string has no path inside it.
        Kept::Text(text) => {
            let text = Text::<serde_json::Error>(text, PhantomData);
            return T::deserialize(text).map_err(|e| E::custom(format_args!("{name}: {e}")));
        }
        Kept::Value(value) => {
            written = value.to_string();
            written.as_str()
        }
        Kept::Raw(kept) => {
            raw = kept;
            raw.get()
        }
    };
    decode_text(text, name)
}

/// A kept string as a deserializer, read as JSON's own deserializer reads a string: a
/// string, an `Option`'s `Some`, a newtype's content (serde's `CowStrDeserializer` refuses
/// the last two).
struct Text<'a, E>(Cow<'a, str>, PhantomData<E>);

impl<'de, 'a, E: de::Error> Deserializer<'de> for Text<'a, E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.0 {
            Cow::Borrowed(text) => visitor.visit_str(text),
            Cow::Owned(text) => visitor.visit_string(text),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_enum(de::value::CowStrDeserializer::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Textbox,
        Radio,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(transparent)]
    struct FieldId(String);

    fn text(t: &str) -> Kept<'_> {
        Kept::Text(Cow::Borrowed(t))
    }

    fn read<T: DeserializeOwned>(kept: Kept<'_>) -> Result<T, String> {
        decode_kept::<T, serde_json::Error>("p", kept).map_err(|e| e.to_string())
    }

    #[test]
    fn a_kept_string_reads_as_every_type_a_string_fills() {
        assert_eq!(read::<String>(text("a")), Ok("a".to_string()));
        assert_eq!(
            read::<Option<Option<String>>>(text("a")),
            Ok(Some(Some("a".to_string())))
        );
        assert_eq!(read::<Kind>(text("radio")), Ok(Kind::Radio));
        assert_eq!(
            read::<Option<FieldId>>(Kept::Text(Cow::Owned("f_1".into()))),
            Ok(Some(FieldId("f_1".into())))
        );
        let err = read::<Kind>(text("dial")).unwrap_err();
        assert!(err.starts_with("p: unknown variant `dial`"), "{err}");
        let err = read::<i64>(text("7")).unwrap_err();
        assert!(err.starts_with("p: invalid type: string \"7\""), "{err}");
    }

    #[test]
    fn other_kept_values_read_from_their_text_with_the_path_inside() {
        assert_eq!(read::<Option<String>>(Kept::Value(Value::Null)), Ok(None));
        assert_eq!(read::<i64>(Kept::Value(Value::from(4))), Ok(4));
        let raw = RawValue::from_string(r#"[1,"x"]"#.to_string()).unwrap();
        let err = read::<Vec<i64>>(Kept::Raw(raw)).unwrap_err();
        assert!(err.starts_with("p[1]: invalid type: string \"x\""), "{err}");
        let value = serde_json::json!({"a": [true]});
        let err = read::<std::collections::BTreeMap<String, Vec<i64>>>(Kept::Value(value));
        assert!(
            err.as_ref()
                .unwrap_err()
                .starts_with("p.a[0]: invalid type: boolean"),
            "{err:?}"
        );
    }
}
