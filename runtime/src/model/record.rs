//! What every generated record shares: the properties the spec does not list, and record
//! envelopes that may also arrive bare.

use std::fmt;

use serde::de::{Deserialize, DeserializeOwned, Deserializer, Error as _, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::text::{decode_text, without_position};

/// A record that keeps the properties its spec does not list (`additional_properties`),
/// so that nothing the service sends is lost and a request can carry a property the spec
/// does not know yet.
pub trait Record {
    /// The properties the spec does not list, as sent (or to be sent).
    fn additional_properties(&self) -> &Map<String, Value>;
    /// The same, to change.
    fn additional_properties_mut(&mut self) -> &mut Map<String, Value>;
}

/// `impl Record` for a generated struct whose unlisted properties are in `$field`: one
/// line per record in the generated code instead of the same ten. With `$setter`, a
/// request body also gets that chainable method to send a property the spec does not list.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_record {
    ($ty:ty, $field:ident, $setter:ident) => {
        $crate::impl_record!($ty, $field);

        impl $ty {
            /// Sends a property this spec does not list yet: the service may accept new
            /// optional properties before the spec has them. A property the spec lists is
            /// refused by validation; set it with its own method.
            pub fn $setter(
                mut self,
                name: impl Into<String>,
                value: impl Into<::serde_json::Value>,
            ) -> Self {
                self.$field.insert(name.into(), value.into());
                self
            }
        }
    };
    ($ty:ty, $field:ident) => {
        impl $crate::Record for $ty {
            fn additional_properties(&self) -> &::serde_json::Map<String, ::serde_json::Value> {
                &self.$field
            }
            fn additional_properties_mut(
                &mut self,
            ) -> &mut ::serde_json::Map<String, ::serde_json::Value> {
                &mut self.$field
            }
        }
    };
}

/// `Deserialize` for a generated record envelope `$ty { $field: $inner, $extras }` whose
/// wrapping is inferred: read wrapped (`{"$wire": {...}}`) or bare (the record itself).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_envelope {
    ($ty:ident { $field:ident: $inner:ty = $wire:literal, $extras:ident }) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                let ($field, $extras) = $crate::__private::enveloped(
                    deserializer,
                    $wire,
                    <$inner as $crate::__private::DecodeRecord<'static>>::FIELDS,
                )?;
                Ok(Self { $field, $extras })
            }
        }
    };
}

impl<T: Record> Record for Box<T> {
    fn additional_properties(&self) -> &Map<String, Value> {
        (**self).additional_properties()
    }
    fn additional_properties_mut(&mut self) -> &mut Map<String, Value> {
        (**self).additional_properties_mut()
    }
}

/// Reads a record envelope (`{location: {...}}`) whose wrapping is inferred, not
/// documented: the record and the envelope's other properties. The object is the envelope
/// when it has the property `field` and no other that the record lists (`known`): a bare
/// record may hold a property named like its envelope, as a transaction its nested
/// `transaction`; otherwise it is the bare record, as if it had been wrapped. The record is
/// read from its own JSON text as sent, so its properties keep their order and their
/// values' text, and a failure names its path (`envelope `transaction`: transaction.count:
/// ...`, which the client's decode joins to the path it tracked).
pub fn enveloped<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
    field: &str,
    known: &[&str],
) -> Result<(T, Map<String, Value>), D::Error> {
    let fail = |e: serde_json::Error| {
        D::Error::custom(format_args!(
            "envelope `{field}`: {}",
            without_position(&e.to_string())
        ))
    };
    let raw = <Box<RawValue> as Deserialize>::deserialize(deserializer)?;
    let Entries(entries) = serde_json::from_str(raw.get()).map_err(fail)?;
    // The last of a repeated property counts, as it would in a `Map`.
    let at = entries.iter().rposition(|(k, _)| k == field);
    let listed = |k: &str| k != field && known.contains(&k);
    let Some(at) = at.filter(|_| !entries.iter().any(|(k, _)| listed(k))) else {
        return Ok((decode_text(raw.get(), "").map_err(fail)?, Map::new()));
    };
    let record = decode_text(entries[at].1.get(), field).map_err(fail)?;
    let mut extras = Map::new();
    for (key, value) in entries.iter().filter(|(k, _)| k != field) {
        let value = serde_json::from_str(value.get()).map_err(fail)?;
        extras.insert(key.clone(), value);
    }
    Ok((record, extras))
}

/// An object's properties, each value's JSON text as sent.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;

        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<'de>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }

        deserializer.deserialize_map(EntriesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A record holding a property named like its envelope, as a legacy transaction holds
    /// its nested `transaction`.
    #[derive(Debug, PartialEq)]
    struct Inner {
        id: String,
        count: Option<i64>,
        location: Option<Value>,
        extras: Map<String, Value>,
    }
    crate::impl_decode!(
        Inner,
        extras,
        [
            (id, "id", value, required),
            (count, "count", value, default),
            (location, "location", value, default),
        ]
    );

    #[derive(Debug, PartialEq)]
    struct Envelope {
        location: Inner,
        extras: Map<String, Value>,
    }
    crate::impl_envelope!(Envelope {
        location: Inner = "location",
        extras
    });

    fn read(text: &str) -> Result<Envelope, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    fn inner(id: &str, location: Option<Value>) -> Inner {
        Inner {
            id: id.into(),
            count: None,
            location,
            extras: Map::new(),
        }
    }

    #[test]
    fn an_envelope_reads_wrapped_and_bare() {
        let want = Envelope {
            location: inner("4", None),
            extras: Map::new(),
        };
        assert_eq!(read(r#"{"location": {"id": "4"}}"#), Ok(want));
        let bare = read(r#"{"id": "4", "x": [1]}"#).unwrap();
        assert_eq!(
            bare.location.extras,
            Map::from_iter([("x".into(), json!([1]))])
        );
        assert!(bare.extras.is_empty());
        // Beside the wrapped record, the envelope's own unlisted properties are kept.
        let wrapped = read(r#"{"location": {"id": "4"}, "total": 1}"#).unwrap();
        assert_eq!(Value::Object(wrapped.extras), json!({"total": 1}));
        let err = read(r#"{"name": "x"}"#).unwrap_err();
        assert!(
            err.starts_with("envelope `location`: missing field `id`"),
            "{err}"
        );
        let err = read("[1]").unwrap_err();
        assert!(err.contains("expected an object"), "{err}");
    }

    #[test]
    fn a_bare_record_holding_a_property_named_like_its_envelope_stays_bare() {
        let got = read(r#"{"location": {"id": "t1"}, "id": "t2", "count": 2}"#).unwrap();
        assert_eq!(
            got.location,
            Inner {
                count: Some(2),
                ..inner("t2", Some(json!({"id": "t1"})))
            }
        );
        assert!(got.extras.is_empty());
        // With no other property the record lists, it is the envelope.
        let wrapped = read(r#"{"location": {"id": "t1"}, "total": 3}"#).unwrap();
        assert_eq!(wrapped.location, inner("t1", None));
    }

    #[test]
    fn a_failure_inside_names_its_path_through_the_envelope() {
        let err = read(r#"{"location": {"id": "4", "count": "x"}}"#).unwrap_err();
        assert!(
            err.starts_with("envelope `location`: location.count: invalid type: string"),
            "{err}"
        );
        let err = read(r#"{"id": "4", "count": "x"}"#).unwrap_err();
        assert!(
            err.starts_with("envelope `location`: count: invalid type: string"),
            "{err}"
        );
    }
}
