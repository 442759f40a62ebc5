//! What every generated record shares: the properties the spec does not list, and record
//! envelopes that may also arrive bare.

use serde::de::{self, Deserializer};
use serde_json::{Map, Value};

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
                let (value, extras) = $crate::__private::enveloped(deserializer, $wire)?;
                Ok(Self {
                    $field: <$inner as ::serde::Deserialize>::deserialize(value)
                        .map_err(<D::Error as ::serde::de::Error>::custom)?,
                    $extras: extras,
                })
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
/// documented: the value of its `field` property and its other properties; an object
/// without that property is taken as the bare record, as if it had been wrapped.
pub fn enveloped<'de, D: Deserializer<'de>>(
    deserializer: D,
    field: &str,
) -> Result<(Value, Map<String, Value>), D::Error> {
    let mut map = <Map<String, Value> as de::Deserialize>::deserialize(deserializer)?;
    Ok(match map.remove(field) {
        Some(value) => (value, map),
        None => (Value::Object(map), Map::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Inner {
        id: String,
    }

    #[derive(Debug, PartialEq)]
    struct Envelope {
        location: Inner,
        extras: Map<String, Value>,
    }
    crate::impl_envelope!(Envelope {
        location: Inner = "location",
        extras
    });

    fn read(v: Value) -> Result<Envelope, serde_json::Error> {
        serde_json::from_value(v)
    }

    #[test]
    fn an_envelope_reads_wrapped_and_bare() {
        let want = Envelope {
            location: Inner { id: "4".into() },
            extras: Map::new(),
        };
        assert_eq!(read(json!({"location": {"id": "4"}})).unwrap(), want);
        assert_eq!(read(json!({"id": "4"})).unwrap(), want);
        // Beside the wrapped record, the envelope's own unlisted properties are kept.
        let wrapped = read(json!({"location": {"id": "4"}, "total": 1})).unwrap();
        assert_eq!(Value::Object(wrapped.extras), json!({"total": 1}));
        let err = read(json!({"name": "x"})).unwrap_err().to_string();
        assert!(err.contains("missing field `id`"), "{err}");
    }
}
