//! A tagged union's `Deserialize` in one pass: the properties before the tag are kept
//! aside, and once the tag names a member, that member's record reads them and then the
//! rest of the object straight from the input. A property every member reads as a scalar
//! (an id, a label, a constant) is kept as read (see `kept.rs`); any other as raw JSON
//! (skimmed, not decoded), as it may be large (a result's `data`).
//! A member that sends its tag first is read exactly once; capturing each member as raw
//! JSON first and decoding it again, as the unions did before, read every member's bytes
//! two or three times, and a nested member's more.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::kept::{Kept, Scalar, decode_kept};
use super::text::without_position;
use super::union::UnknownMember;
use super::visit::{Fields, Key, Live};

/// A union whose members a generated `member` reads from the object after its tag.
pub trait DecodeUnion<'de>: Sized {
    /// The union's name, for "expected union ResultField" when the JSON is not an object.
    const NAME: &'static str;
    /// The discriminating property.
    const TAG: &'static str;
    /// The properties every member that lists them reads as a scalar: kept as read when
    /// sent before the tag, rather than as raw JSON read twice.
    const SCALARS: &'static [&'static str];

    /// Reads the member `tag` names from the rest of the object; the properties back
    /// when this version knows no such member.
    fn member<F: Fields<'de>>(tag: &str, map: F) -> Result<Result<Self, F::Error>, F>;

    /// A member with a tag this version does not know (or none), kept whole by an open
    /// union; `None` from a closed one, which refuses it.
    fn unknown(member: UnknownMember) -> Option<Self>;

    /// The tag values this version knows, for the error of a closed union.
    fn known() -> &'static [&'static str];
}

/// `Deserialize::deserialize` of every generated tagged union.
pub fn decode_union<'de, D: Deserializer<'de>, T: DecodeUnion<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    struct UnionVisitor<T>(PhantomData<T>);

    impl<'de, T: DecodeUnion<'de>> Visitor<'de> for UnionVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an object with a `{}` property ({})", T::TAG, T::NAME)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut before: Vec<(Cow<'de, str>, Kept<'de>)> = Vec::new();
            while let Some(key) = map.next_key::<Key<'de>>()? {
                let value = if key.as_str() == T::TAG {
                    match map.next_value::<Scalar<'de>>()? {
                        Scalar::Text(tag) => Ok(tag),
                        Scalar::Other(other) => Err(Kept::Value(other)),
                    }
                } else if T::SCALARS.contains(&key.as_str()) {
                    Err(Kept::from(map.next_value::<Scalar<'de>>()?))
                } else {
                    Err(Kept::Raw(map.next_value()?))
                };
                let tag = match value {
                    Ok(tag) => tag,
                    // Not the tag, or a tag that is not a string: passed over, as a
                    // property of the member.
                    Err(kept) => {
                        before.push((key.into_cow(), kept));
                        continue;
                    }
                };
                let chained = Chained {
                    before: before.into_iter(),
                    value: None,
                    rest: Live(map),
                };
                return match T::member(&tag, chained) {
                    Ok(decoded) => decoded.map_err(|e| {
                        let inner = without_position(&e.to_string());
                        de::Error::custom(format_args!("{} `{tag}`: {inner}", T::TAG))
                    }),
                    Err(chained) => unknown::<T, A>(tag.into_owned(), chained),
                };
            }
            let raw = object_text(before.iter().map(|(k, v)| (&**k, v.text())));
            T::unknown(UnknownMember::new(String::new(), raw))
                .ok_or_else(|| de::Error::custom(format_args!("missing `{}` property", T::TAG)))
        }
    }

    deserializer.deserialize_map(UnionVisitor(PhantomData))
}

/// A member with a tag this version does not know: kept whole by an open union (its
/// properties in the order sent, each value as sent, or equal as JSON for those kept as
/// read: the tag and the members' shared scalars), refused by a closed one.
fn unknown<'de, T: DecodeUnion<'de>, A: MapAccess<'de>>(
    tag: String,
    chained: Chained<'de, A>,
) -> Result<T, A::Error> {
    let Chained {
        before,
        value: _,
        rest: Live(mut rest),
    } = chained;
    let mut entries: Vec<(Cow<'de, str>, Kept<'de>)> = before.collect();
    entries.push((Cow::Borrowed(T::TAG), Kept::Text(Cow::Owned(tag.clone()))));
    while let Some(key) = rest.next_key::<Key<'de>>()? {
        let value = rest.next_value::<Box<RawValue>>()?;
        entries.push((key.into_cow(), Kept::Raw(value)));
    }
    let raw = object_text(entries.iter().map(|(k, v)| (&**k, v.text())));
    let refused = || {
        let known = T::known().join(", ");
        de::Error::custom(format_args!(
            "unknown `{}` `{tag}`, expected one of: {known}",
            T::TAG
        ))
    };
    T::unknown(UnknownMember::new(tag.clone(), raw)).ok_or_else(refused)
}

/// The JSON text of an object with these properties and values' texts.
fn object_text<'a>(entries: impl Iterator<Item = (&'a str, Cow<'a, str>)>) -> Box<RawValue> {
    let mut text = String::from("{");
    for (i, (key, value)) in entries.enumerate() {
        if i > 0 {
            text.push(',');
        }
        // A string always serialises; its text is a valid JSON string.
        text.push_str(&serde_json::to_string(key).unwrap_or_default());
        text.push(':');
        text.push_str(&value);
    }
    text.push('}');
    // Valid JSON: each value's text was read as JSON, each key written by serde_json.
    RawValue::from_string(text).unwrap_or_else(|_| empty_object())
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_string()).unwrap_or_default()
}

/// The object's properties for a member: those kept aside before the tag, then the rest
/// as they stream by.
struct Chained<'de, A> {
    before: std::vec::IntoIter<(Cow<'de, str>, Kept<'de>)>,
    /// The property kept aside whose name was last handed out.
    value: Option<(Cow<'de, str>, Kept<'de>)>,
    rest: Live<A>,
}

impl<'de, A: MapAccess<'de>> Fields<'de> for Chained<'de, A> {
    type Error = A::Error;

    fn key(&mut self) -> Result<Option<Key<'de>>, A::Error> {
        match self.before.next() {
            Some((name, kept)) => {
                self.value = Some((name.clone(), kept));
                Ok(Some(Key::from(name)))
            }
            None => self.rest.key(),
        }
    }

    fn value<T: DeserializeOwned>(&mut self) -> Result<T, A::Error> {
        match self.value.take() {
            Some((name, kept)) => decode_kept(&name, kept),
            None => self.rest.value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::visit::{DecodeRecord, decode_record, field};
    use serde::Deserialize;
    use serde_json::{Map, Value, json};

    #[derive(Debug, PartialEq)]
    struct Circle {
        r: i64,
        name: Option<String>,
        extras: Map<String, Value>,
    }

    impl<'de> DecodeRecord<'de> for Circle {
        const NAME: &'static str = "Circle";
        const FIELDS: &'static [&'static str] = &["r", "name"];

        fn visit<F: Fields<'de>>(mut map: F) -> Result<Self, F::Error> {
            let (mut r, mut name) = (None, None);
            let mut extras = Map::new();
            while let Some(key) = map.key()? {
                match key.as_str() {
                    "r" => field(&mut r, "r", map.value())?,
                    "name" => field(&mut name, "name", map.value())?,
                    _ => key.keep(&mut extras, &mut map)?,
                }
            }
            Ok(Circle {
                r: r.unwrap_or_default(),
                name: name.unwrap_or_default(),
                extras,
            })
        }
    }

    impl<'de> Deserialize<'de> for Circle {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            decode_record(d)
        }
    }

    /// What the generator writes for an open union `{kind: circle}`.
    #[derive(Debug, PartialEq)]
    enum Shape {
        Circle(Circle),
        Unknown(UnknownMember),
    }

    impl<'de> DecodeUnion<'de> for Shape {
        const NAME: &'static str = "Shape";
        const TAG: &'static str = "kind";
        const SCALARS: &'static [&'static str] = &["name", "r"];

        fn member<F: Fields<'de>>(tag: &str, map: F) -> Result<Result<Self, F::Error>, F> {
            match tag {
                "circle" => Ok(Circle::visit(map).map(Shape::Circle)),
                _ => Err(map),
            }
        }

        fn unknown(member: UnknownMember) -> Option<Self> {
            Some(Shape::Unknown(member))
        }

        fn known() -> &'static [&'static str] {
            &["circle"]
        }
    }

    impl<'de> Deserialize<'de> for Shape {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            decode_union(d)
        }
    }

    fn read(text: &str) -> Result<Shape, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn the_tag_first_or_late_selects_the_member_with_every_property() {
        let want = Shape::Circle(Circle {
            r: 2,
            name: None,
            extras: Map::from_iter([("x".to_string(), json!([1, {"b": 2, "a": 1}]))]),
        });
        assert_eq!(
            read(r#"{"kind":"circle","r":2,"x":[1,{"b":2,"a":1}]}"#),
            Ok(want)
        );
        let Ok(Shape::Circle(late)) = read(r#"{"x":[1],"r":2,"kind":"circle"}"#) else {
            panic!("a late tag");
        };
        assert_eq!((late.r, &late.extras["x"]), (2, &json!([1])));
    }

    #[test]
    fn shared_scalars_before_the_tag_are_read_as_sent() {
        let Ok(Shape::Circle(c)) = read(r#"{"name":"c\u00e9","r":2,"x":{"a":1},"kind":"circle"}"#)
        else {
            panic!("scalars before the tag");
        };
        assert_eq!((c.r, c.name.as_deref()), (2, Some("cé")));
        assert_eq!(c.extras["x"], json!({"a": 1}));
        let Ok(Shape::Circle(c)) = read(r#"{"name":null,"kind":"circle"}"#) else {
            panic!("null before the tag");
        };
        assert_eq!(c.name, None);
        let err = read(r#"{"r":"big","kind":"circle"}"#).unwrap_err();
        assert!(
            err.starts_with("kind `circle`: r: invalid type: string \"big\", expected i64"),
            "{err}"
        );
        // A value that quotes serde_json's position words is not cut there.
        let err = read(r#"{"r":"meet at line 5","kind":"circle"}"#).unwrap_err();
        assert!(
            err.starts_with(
                "kind `circle`: r: invalid type: string \"meet at line 5\", expected i64"
            ),
            "{err}"
        );
        // A departure: an object where the members read a scalar keeps its path.
        let err = read(r#"{"name":{"first":[1]},"kind":"circle"}"#).unwrap_err();
        assert!(
            err.starts_with("kind `circle`: name: invalid type: map"),
            "{err}"
        );
        let Ok(Shape::Unknown(member)) = read(r#"{"name":"é\n","r":1.50,"kind":"square"}"#) else {
            panic!("an unknown member");
        };
        // Equal as JSON to what was sent: the scalars are written again.
        assert_eq!(
            member.raw_json(),
            r#"{"name":"é\n","r":1.5,"kind":"square"}"#
        );
    }

    #[test]
    fn an_unknown_member_keeps_its_properties_in_order_and_values_as_sent() {
        let text = r#"{"z": 1.50, "kind": "square", "a": {"y": 1, "b": [true]}}"#;
        let Ok(Shape::Unknown(member)) = read(text) else {
            panic!("an unknown member");
        };
        assert_eq!(member.tag(), "square");
        assert_eq!(
            member.raw_json(),
            r#"{"z":1.50,"kind":"square","a":{"y": 1, "b": [true]}}"#
        );
        let Ok(Shape::Unknown(untagged)) = read(r#"{"kind": 7, "r": 1}"#) else {
            panic!("a tag that is not a string");
        };
        assert_eq!(
            (untagged.tag(), untagged.raw_json()),
            ("", r#"{"kind":7,"r":1}"#)
        );
    }

    #[test]
    fn a_member_error_names_the_tag_and_a_non_object_is_refused() {
        let err = read(r#"{"kind":"circle","r":"big"}"#).unwrap_err();
        assert!(
            err.starts_with("kind `circle`: invalid type: string \"big\""),
            "{err}"
        );
        // A property read before the tag is named, with its path, in the message.
        let err = read(r#"{"r":[1],"kind":"circle"}"#).unwrap_err();
        assert!(
            err.starts_with("kind `circle`: r: invalid type: sequence"),
            "{err}"
        );
        let err = read("[1]").unwrap_err();
        assert!(
            err.contains("an object with a `kind` property (Shape)"),
            "{err}"
        );
    }
}
