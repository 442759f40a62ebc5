//! A tagged union's `Deserialize` in one pass: the properties before the tag are kept
//! aside as raw JSON (skimmed, not decoded), and once the tag names a member, that
//! member's record reads them and then the rest of the object straight from the input.
//! A member that sends its tag first is read exactly once; capturing each member as raw
//! JSON first and decoding it again, as the unions did before, read every member's bytes
//! two or three times, and a nested member's more.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::union::{UnknownMember, without_position};
use super::visit::{Fields, Key, Live};

/// A union whose members a generated `member` reads from the object after its tag.
pub trait DecodeUnion<'de>: Sized {
    /// The union's name, for "expected union ResultField" when the JSON is not an object.
    const NAME: &'static str;
    /// The discriminating property.
    const TAG: &'static str;

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
            let mut before: Vec<(Cow<'de, str>, Box<RawValue>)> = Vec::new();
            while let Some(key) = map.next_key::<Key<'de>>()? {
                let value = map.next_value::<Box<RawValue>>()?;
                let tag = match key.as_str() == T::TAG {
                    true => serde_json::from_str::<String>(value.get()).ok(),
                    false => None,
                };
                let Some(tag) = tag else {
                    // Not the tag, or a tag that is not a string: passed over, as a
                    // property of the member.
                    before.push((key.into_cow(), value));
                    continue;
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
                    Err(chained) => unknown::<T, A>(tag, value, chained),
                };
            }
            let raw = object_text(before.iter().map(|(k, v)| (&**k, v.get())));
            T::unknown(UnknownMember::new(String::new(), raw))
                .ok_or_else(|| de::Error::custom(format_args!("missing `{}` property", T::TAG)))
        }
    }

    deserializer.deserialize_map(UnionVisitor(PhantomData))
}

/// A member with a tag this version does not know: kept whole by an open union (its
/// properties in the order sent, each value as sent), refused by a closed one.
fn unknown<'de, T: DecodeUnion<'de>, A: MapAccess<'de>>(
    tag: String,
    tag_value: Box<RawValue>,
    chained: Chained<'de, A>,
) -> Result<T, A::Error> {
    let Chained {
        before,
        value: _,
        rest: Live(mut rest),
    } = chained;
    let mut entries: Vec<(Cow<'de, str>, Box<RawValue>)> = before.collect();
    entries.push((Cow::Borrowed(T::TAG), tag_value));
    while let Some(key) = rest.next_key::<Key<'de>>()? {
        let value = rest.next_value::<Box<RawValue>>()?;
        entries.push((key.into_cow(), value));
    }
    let raw = object_text(entries.iter().map(|(k, v)| (&**k, v.get())));
    let refused = || {
        let known = T::known().join(", ");
        de::Error::custom(format_args!(
            "unknown `{}` `{tag}`, expected one of: {known}",
            T::TAG
        ))
    };
    T::unknown(UnknownMember::new(tag.clone(), raw)).ok_or_else(refused)
}

/// The JSON text of an object with these properties, each value's text as it was sent.
fn object_text<'a>(entries: impl Iterator<Item = (&'a str, &'a str)>) -> Box<RawValue> {
    let mut text = String::from("{");
    for (i, (key, value)) in entries.enumerate() {
        if i > 0 {
            text.push(',');
        }
        // A string always serialises; its text is a valid JSON string.
        text.push_str(&serde_json::to_string(key).unwrap_or_default());
        text.push(':');
        text.push_str(value);
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
    before: std::vec::IntoIter<(Cow<'de, str>, Box<RawValue>)>,
    /// The property kept aside whose name was last handed out.
    value: Option<(Cow<'de, str>, Box<RawValue>)>,
    rest: Live<A>,
}

impl<'de, A: MapAccess<'de>> Fields<'de> for Chained<'de, A> {
    type Error = A::Error;

    fn key(&mut self) -> Result<Option<Key<'de>>, A::Error> {
        match self.before.next() {
            Some((name, raw)) => {
                self.value = Some((name.clone(), raw));
                Ok(Some(Key::from(name)))
            }
            None => self.rest.key(),
        }
    }

    fn value<T: DeserializeOwned>(&mut self) -> Result<T, A::Error> {
        match self.value.take() {
            Some((name, raw)) => decode_kept(&name, &raw),
            None => self.rest.value(),
        }
    }
}

/// Decodes a property kept aside before the tag. Its text is read apart from the input,
/// so a failure is explained here, by reading it again to find the JSON path: the message
/// starts with the property and that path (`data[1]: ...`), which the client's decode
/// joins to the path it tracked up to the member.
fn decode_kept<T: DeserializeOwned, E: de::Error>(name: &str, raw: &RawValue) -> Result<T, E> {
    if let Ok(value) = serde_json::from_str(raw.get()) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let err = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    let inner = without_position(&err.inner().to_string());
    let path = err.path().to_string();
    Err(E::custom(match path.as_str() {
        "." => format!("{name}: {inner}"),
        p if p.starts_with('[') => format!("{name}{p}: {inner}"),
        p => format!("{name}.{p}: {inner}"),
    }))
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
        extras: Map<String, Value>,
    }

    impl<'de> DecodeRecord<'de> for Circle {
        const NAME: &'static str = "Circle";

        fn visit<F: Fields<'de>>(mut map: F) -> Result<Self, F::Error> {
            let mut r = None;
            let mut extras = Map::new();
            while let Some(key) = map.key()? {
                match key.as_str() {
                    "r" => field(&mut r, "r", map.value())?,
                    _ => key.keep(&mut extras, &mut map)?,
                }
            }
            Ok(Circle {
                r: r.unwrap_or_default(),
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
