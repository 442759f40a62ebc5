//! The parts of a generated record's `Deserialize`. The generator writes, per record, one
//! pass over the object that matches each key against the fields the record knows and keeps
//! the others in its `additional_properties`. serde's `#[serde(flatten)]` would keep them
//! too, but it buffers every property and reads the whole record through its map path,
//! which made a typed decode slower than an untyped `serde_json::Value`.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// `Deserialize` for a generated record: one line per field in the generated code,
/// `(field, "wire", read, finish)`, where `read` is how the value is read (`value`, or
/// `null_as_empty`, `present`, `date_time`, `date_time_opt`, `date_time_present`, see
/// [`read_value!`](crate::read_value)) and `finish` what an absent property gives
/// (`required`: an error naming it; `default`). An exactly-one-of group is gathered from
/// its properties, then read as its choice type. A generic record (`Page<T>`) names its
/// one item type parameter. A record without unlisted properties (the variant of an
/// exactly-one-of choice) names `_` for them: any other property is read and dropped.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_decode {
    ($ty:ident $(<$item:ident>)?, _, $($rest:tt)*) => {
        $crate::impl_decode!(@impl $ty $(<$item>)?, [], $($rest)*);
    };
    ($ty:ident $(<$item:ident>)?, $extras:ident, $($rest:tt)*) => {
        $crate::impl_decode!(@impl $ty $(<$item>)?, [$extras], $($rest)*);
    };
    (
        @impl $ty:ident $(<$item:ident>)?,
        [$($extras:ident)?],
        [$(($field:ident, $wire:literal, $read:ident, $finish:ident)),* $(,)?]
        $(, one_of($group:ident, $group_ty:ty, [$($group_key:literal),+ $(,)?]))?
        $(,)?
    ) => {
        impl<'de $(, $item: ::serde::de::DeserializeOwned)?> ::serde::Deserialize<'de>
            for $ty $(<$item>)?
        {
            fn deserialize<__D: ::serde::Deserializer<'de>>(
                deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                $crate::__private::decode_record(deserializer)
            }
        }

        impl<'de $(, $item: ::serde::de::DeserializeOwned)?> $crate::__private::DecodeRecord<'de>
            for $ty $(<$item>)?
        {
            const NAME: &'static str = stringify!($ty);
            const FIELDS: &'static [&'static str] = &[$($wire,)* $($($group_key,)+)?];

            fn visit<__F: $crate::__private::Fields<'de>>(
                mut map: __F,
            ) -> ::core::result::Result<Self, __F::Error> {
                $(let mut $field = None;)*
                $(let mut $group = ::serde_json::Map::new();)?
                let mut __extras = ::serde_json::Map::new();
                while let ::core::option::Option::Some(key) = map.key()? {
                    match key.as_str() {
                        $($wire => $crate::__private::field(
                            &mut $field,
                            $wire,
                            $crate::read_value!($read, map),
                        )?,)*
                        $($($group_key)|+ => key.keep(&mut $group, &mut map)?,)?
                        _ => key.keep(&mut __extras, &mut map)?,
                    }
                }
                ::core::result::Result::Ok(Self {
                    $($field: $crate::read_value!(@$finish $field, $wire),)*
                    $($group: <$group_ty as ::serde::Deserialize>::deserialize(
                        ::serde_json::Value::Object($group),
                    )
                    .map_err(<__F::Error as ::serde::de::Error>::custom)?,)?
                    $($extras: __extras,)?
                })
            }
        }
    };
}

/// How [`impl_decode!`](crate::impl_decode) reads one field's value from `$map` (a
/// `Result` of what the field holds), and what an absent property gives.
#[doc(hidden)]
#[macro_export]
macro_rules! read_value {
    (value, $map:ident) => {
        $map.value()
    };
    // A response's collection: `null` reads as empty.
    (null_as_empty, $map:ident) => {
        $map.value::<::core::option::Option<_>>()
            .map(::core::option::Option::unwrap_or_default)
    };
    // May be absent or null: a present property is `Some`, `null` included.
    (present, $map:ident) => {
        $map.value().map(::core::option::Option::Some)
    };
    // A response's date-times, read in any ISO 8601 form the service may send.
    (date_time, $map:ident) => {
        $map.value().map($crate::__private::Tolerant::get)
    };
    (date_time_opt, $map:ident) => {
        $map.value().map($crate::__private::Tolerant::opt)
    };
    (date_time_present, $map:ident) => {
        $map.value()
            .map(|t| ::core::option::Option::Some($crate::__private::Tolerant::opt(t)))
    };
    (@required $field:ident, $wire:literal) => {
        $crate::__private::required($field, $wire)?
    };
    (@default $field:ident, $wire:literal) => {
        $field.unwrap_or_default()
    };
}

/// A record that a generated visitor reads from a JSON object.
pub trait DecodeRecord<'de>: Sized {
    /// The record's name, for "expected struct Unit" when the JSON is not an object.
    const NAME: &'static str;
    /// The properties the record lists (its fields' and its one-of choice's), by which a
    /// bare record is told from its envelope.
    const FIELDS: &'static [&'static str];

    /// Reads the record from the object's properties.
    fn visit<F: Fields<'de>>(map: F) -> Result<Self, F::Error>;
}

/// The properties of an object as a generated record reads them: those of a union
/// member may come partly from properties kept aside before its tag (see `tagged.rs`).
/// Every generated type owns its data, hence `DeserializeOwned` values.
pub trait Fields<'de> {
    /// The input's error.
    type Error: de::Error;

    /// The next property's name, `None` at the end of the object.
    fn key(&mut self) -> Result<Option<Key<'de>>, Self::Error>;

    /// The value of the property whose name `key` just gave.
    fn value<T: DeserializeOwned>(&mut self) -> Result<T, Self::Error>;
}

/// An object's properties as the input yields them.
pub struct Live<A>(pub A);

impl<'de, A: MapAccess<'de>> Fields<'de> for Live<A> {
    type Error = A::Error;

    fn key(&mut self) -> Result<Option<Key<'de>>, A::Error> {
        self.0.next_key()
    }

    fn value<T: DeserializeOwned>(&mut self) -> Result<T, A::Error> {
        self.0.next_value()
    }
}

/// `Deserialize::deserialize` of every generated record.
pub fn decode_record<'de, D: Deserializer<'de>, T: DecodeRecord<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    struct RecordVisitor<T>(PhantomData<T>);

    impl<'de, T: DecodeRecord<'de>> Visitor<'de> for RecordVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "struct {}", T::NAME)
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::visit(Live(map))
        }
    }

    deserializer.deserialize_map(RecordVisitor(PhantomData))
}

/// A property name, borrowed from the input when it has no escapes: most keys name a known
/// field and are only compared, so they are never copied.
pub struct Key<'de>(Cow<'de, str>);

impl<'de> Key<'de> {
    /// The name, to match against the record's fields.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name, borrowed from the input where it could be.
    pub fn into_cow(self) -> Cow<'de, str> {
        self.0
    }

    /// Keeps an unlisted property: its value is read as JSON into `extras`.
    pub fn keep<F: Fields<'de>>(
        self,
        extras: &mut Map<String, Value>,
        map: &mut F,
    ) -> Result<(), F::Error> {
        let value = map.value::<Value>()?;
        extras.insert(self.0.into_owned(), value);
        Ok(())
    }
}

impl<'de> From<Cow<'de, str>> for Key<'de> {
    fn from(name: Cow<'de, str>) -> Self {
        Key(name)
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a property name")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Stores a field's value the first time its property is seen; a second time is an
/// error, as with serde's derive.
pub fn field<T, E: de::Error>(
    slot: &mut Option<T>,
    name: &'static str,
    value: Result<T, E>,
) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value?);
    Ok(())
}

/// A field the spec promises: its absence is an error naming it.
pub fn required<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the generator writes for a record `{ id (required), note (optional) }`.
    #[derive(Debug, PartialEq)]
    struct Note {
        id: String,
        note: Option<String>,
        extras: Map<String, Value>,
    }

    impl<'de> Deserialize<'de> for Note {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            decode_record(deserializer)
        }
    }

    impl<'de> DecodeRecord<'de> for Note {
        const NAME: &'static str = "Note";
        const FIELDS: &'static [&'static str] = &["id", "note"];

        fn visit<F: Fields<'de>>(mut map: F) -> Result<Self, F::Error> {
            let (mut id, mut note) = (None, None);
            let mut extras = Map::new();
            while let Some(key) = map.key()? {
                match key.as_str() {
                    "id" => field(&mut id, "id", map.value())?,
                    "note" => field(&mut note, "note", map.value())?,
                    _ => key.keep(&mut extras, &mut map)?,
                }
            }
            Ok(Note {
                id: required(id, "id")?,
                note: note.unwrap_or_default(),
                extras,
            })
        }
    }

    #[test]
    fn known_keys_fill_fields_and_the_rest_are_kept() {
        let text = r#"{"z":1,"id":"n1","a\"b":[2],"note":null,"m":{"k":3}}"#;
        let n: Note = serde_json::from_str(text).unwrap();
        assert_eq!((n.id.as_str(), n.note), ("n1", None));
        let keys: Vec<&str> = n.extras.keys().map(String::as_str).collect();
        assert_eq!(keys, ["a\"b", "m", "z"]);
        assert_eq!(n.extras["m"], json!({"k": 3}));
    }

    #[test]
    fn a_missing_or_repeated_field_and_a_non_object_are_errors_naming_them() {
        let err = |text: &str| serde_json::from_str::<Note>(text).unwrap_err().to_string();
        assert!(err(r#"{"note":"x"}"#).contains("missing field `id`"));
        assert!(err(r#"{"id":"a","id":"b"}"#).contains("duplicate field `id`"));
        assert!(err(r#"{"id":1}"#).contains("invalid type: integer `1`"));
        assert!(err("[1]").contains("expected struct Note"));
    }
}
