//! Where each element of a spec file is declared, for tools that point a maintainer at the
//! line to change (the sandbox's drift watch): the IR's `positions`, keyed as
//! [`inspection_ir::position_key`] spells them.

use std::collections::BTreeMap;

use serde_saphyr::Spanned;

use crate::ir::{Element, position_key};
use crate::spec::{self, OrderedMap};

/// Every declared type, field, enum value, union member and operation of `spec`, with the
/// line and column of its name.
pub fn positions(spec: &spec::SpecFile) -> BTreeMap<String, [u32; 2]> {
    let mut out = BTreeMap::new();
    let mut at = |element: Element, name: &Spanned<String>| {
        let place = name.referenced;
        out.entry(position_key(&element))
            .or_insert([place.line() as u32, place.column() as u32]);
    };
    for (name, def) in spec.types.iter() {
        let ty = name.value.as_str();
        at(Element::Type(ty), name);
        for (field, _) in field_maps(def).into_iter().flat_map(OrderedMap::iter) {
            at(Element::Field(ty, &field.value), field);
        }
        match def {
            spec::TypeDef::Enum(e) => {
                for (value, _) in e.values.iter() {
                    at(Element::Member(ty, &value.value), value);
                }
            }
            spec::TypeDef::Union(u) => {
                for (tag, _) in u.variants.iter() {
                    at(Element::Member(ty, &tag.value), tag);
                }
            }
            _ => {}
        }
    }
    for (name, _) in spec.operations.iter() {
        at(Element::Operation(&name.value), name);
    }
    out
}

/// The maps of fields a type declares: an object's own and its one-of variants', a union's
/// common fields.
fn field_maps(def: &spec::TypeDef) -> Vec<&OrderedMap<spec::FieldDef>> {
    match def {
        spec::TypeDef::Object(o) => {
            let variants = o.one_of.iter().flat_map(|g| g.variants.iter());
            std::iter::once(&o.fields)
                .chain(variants.map(|(_, v)| &v.fields))
                .collect()
        }
        spec::TypeDef::Union(u) => vec![&u.common_fields],
        _ => Vec::new(),
    }
}
