//! A generated record's `Serialize`: its properties written one by one into a JSON object,
//! a field the record does not have (`None`) left out, then the properties of its
//! exactly-one-of choice and those the spec does not list. serde's derive wrote the same,
//! but its proc macro (and syn) was in the build of every application using the client.

use serde::Serializer;
use serde::ser::{Serialize, SerializeMap};
use serde_json::{Map, Value};

/// What a record (or a choice of records) writes into the object that holds it.
pub trait EncodeFields {
    /// Writes the properties, in the order of the record's fields.
    fn encode_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
}

/// The properties a record keeps beyond its spec's, written as they were read.
impl EncodeFields for Map<String, Value> {
    fn encode_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        for (name, value) in self {
            map.serialize_entry(name, value)?;
        }
        Ok(())
    }
}

/// `Serialize::serialize` of every generated record: one JSON object.
pub fn encode_record<T: EncodeFields + ?Sized, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    value.encode_fields(&mut map)?;
    map.end()
}

/// Writes `value` as the property `name` when there is one (`Some`).
pub fn encode_present<M: SerializeMap, T: Serialize>(
    map: &mut M,
    name: &'static str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(value) => map.serialize_entry(name, value),
        None => Ok(()),
    }
}

/// `Serialize` for a generated record, one entry per field in the order of its fields:
/// `field(ident, "wire")` always written, `optional(ident, "wire")` written when `Some`,
/// `flatten(ident)` the properties of an exactly-one-of choice or of the unlisted
/// properties. A generic record (`Page<T>`) names its one item type parameter. With
/// `enum`, the exactly-one-of choice whose every variant holds a record: the chosen
/// record's properties.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_encode {
    (enum $ty:ident, [$($variant:ident),+ $(,)?]) => {
        impl ::serde::Serialize for $ty {
            fn serialize<__S: ::serde::Serializer>(
                &self,
                serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                $crate::__private::encode_record(self, serializer)
            }
        }

        impl $crate::__private::EncodeFields for $ty {
            fn encode_fields<__M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut __M,
            ) -> ::core::result::Result<(), __M::Error> {
                match self {
                    $(Self::$variant(record) => {
                        $crate::__private::EncodeFields::encode_fields(record, map)
                    })+
                }
            }
        }
    };
    ($ty:ident $(<$item:ident>)?, [$($kind:ident($($entry:tt)*)),* $(,)?]) => {
        impl$(<$item: ::serde::Serialize>)? ::serde::Serialize for $ty $(<$item>)? {
            fn serialize<__S: ::serde::Serializer>(
                &self,
                serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                $crate::__private::encode_record(self, serializer)
            }
        }

        impl$(<$item: ::serde::Serialize>)? $crate::__private::EncodeFields for $ty $(<$item>)? {
            fn encode_fields<__M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut __M,
            ) -> ::core::result::Result<(), __M::Error> {
                $($crate::impl_encode!(@$kind self, map, $($entry)*);)*
                ::core::result::Result::Ok(())
            }
        }
    };
    (@field $this:ident, $map:ident, $field:ident, $wire:literal) => {
        ::serde::ser::SerializeMap::serialize_entry($map, $wire, &$this.$field)?
    };
    (@optional $this:ident, $map:ident, $field:ident, $wire:literal) => {
        $crate::__private::encode_present($map, $wire, &$this.$field)?
    };
    (@flatten $this:ident, $map:ident, $field:ident) => {
        $crate::__private::EncodeFields::encode_fields(&$this.$field, $map)?
    };
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    /// What the generator writes for a record `{ id, note (optional), extras }` and a
    /// choice of two records.
    struct Note {
        id: String,
        note: Option<Option<String>>,
        choice: Choice,
        extras: Map<String, Value>,
    }
    crate::impl_encode!(
        Note,
        [
            field(id, "id"),
            optional(note, "the note"),
            flatten(choice),
            flatten(extras),
        ]
    );

    struct ByName {
        name: String,
    }
    crate::impl_encode!(ByName, [field(name, "name")]);

    struct ByNumber {
        number: i64,
        unit: Option<String>,
    }
    crate::impl_encode!(ByNumber, [field(number, "number"), optional(unit, "unit")]);

    enum Choice {
        Name(ByName),
        Number(ByNumber),
    }
    crate::impl_encode!(enum Choice, [Name, Number]);

    struct Page<T> {
        data: Vec<T>,
    }
    crate::impl_encode!(Page<T>, [field(data, "data")]);

    #[test]
    fn fields_in_order_absent_ones_left_out_then_the_choice_and_the_extras() {
        let note = Note {
            id: "n1".into(),
            note: None,
            choice: Choice::Name(ByName { name: "a".into() }),
            extras: Map::from_iter([("z".to_string(), json!([1]))]),
        };
        assert_eq!(
            serde_json::to_string(&note).unwrap(),
            r#"{"id":"n1","name":"a","z":[1]}"#
        );
        let note = Note {
            note: Some(None),
            choice: Choice::Number(ByNumber {
                number: 7,
                unit: Some("kg".into()),
            }),
            ..note
        };
        assert_eq!(
            serde_json::to_string(&note).unwrap(),
            r#"{"id":"n1","the note":null,"number":7,"unit":"kg","z":[1]}"#
        );
        let choice = Choice::Number(ByNumber {
            number: 1,
            unit: None,
        });
        assert_eq!(serde_json::to_value(&choice).unwrap(), json!({"number": 1}));
        let page = Page {
            data: vec![ByName { name: "b".into() }],
        };
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            json!({"data": [{"name": "b"}]})
        );
    }
}
