//! Declared types: their names, then each kind's own checks (objects, enums, unions,
//! scalar unions, ids, record refs) and the common fields unions give their shapes.

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use serde_saphyr::Spanned;

use crate::ir::{self, Builtin};
use crate::spec::{self, OrderedMap};

use super::names::{place, repeated};
use super::{Checker, Kind};

impl<'a> Checker<'a> {
    pub(super) fn declare_types(&mut self, types: &OrderedMap<spec::TypeDef>) {
        self.kinds = vec![None; types.iter().count()];
        for (index, ((name, def), first)) in types.iter().zip(repeated(types)).enumerate() {
            if let Some(first) = first {
                self.error(
                    name,
                    format!(
                        "type `{}` is declared twice (first at {})",
                        name.value,
                        place(first)
                    ),
                    "give each type a unique name, or merge the two declarations",
                );
                continue;
            }
            if Builtin::from_name(&name.value).is_some() {
                self.error(
                    name,
                    format!("type name `{}` is a builtin type", name.value),
                    "choose another name for the declared type",
                );
            } else if !name.value.starts_with(|c: char| c.is_ascii_alphabetic()) {
                // A type names a class or struct in every language: `3d` names none.
                self.error(
                    name,
                    format!(
                        "type name `{}` does not start with a letter",
                        super::clip(&name.value)
                    ),
                    "start it with a letter, e.g. `Item3d`",
                );
            } else if name.value.to_upper_camel_case() != name.value {
                self.error(
                    name,
                    format!("type name `{}` is not UpperCamelCase", name.value),
                    format!("rename it `{}`", name.value.to_upper_camel_case()),
                );
            }
            let kind = match def {
                spec::TypeDef::Object(_) => Kind::Object,
                spec::TypeDef::Enum(_) => Kind::Enum,
                spec::TypeDef::Union(_) => Kind::Union,
                spec::TypeDef::ScalarUnion(_) => Kind::ScalarUnion,
                spec::TypeDef::Id(_) => Kind::Id,
                spec::TypeDef::RecordRef(_) => Kind::RecordRef,
            };
            // Types are converted in declaration order, so the index is the IR's.
            let id = u32::try_from(index).unwrap_or(u32::MAX);
            self.ids.insert(name.value.clone(), ir::TypeId(id));
            self.kinds[index] = Some(kind);
        }
    }

    pub(super) fn type_def(&mut self, name: &Spanned<String>, def: &spec::TypeDef) -> ir::TypeDef {
        let (doc, kind) = match def {
            spec::TypeDef::Object(o) => (o.doc.clone(), ir::TypeKind::Object(self.object(o))),
            spec::TypeDef::Enum(e) => (e.doc.clone(), ir::TypeKind::Enum(self.enumeration(e))),
            spec::TypeDef::Union(u) => (
                u.doc.clone(),
                ir::TypeKind::Union(self.union(&name.value, u)),
            ),
            spec::TypeDef::ScalarUnion(s) => {
                let mut kinds = Vec::new();
                for k in &s.of {
                    if kinds.contains(&k.value) {
                        self.error(
                            k,
                            format!("`{:?}` is listed twice in `of`", k.value).to_lowercase(),
                            "list each JSON kind once",
                        );
                    }
                    kinds.push(k.value);
                }
                if kinds.len() < 2 {
                    self.error(
                        name,
                        format!("scalar union `{}` needs at least two kinds", name.value),
                        "list two or more kinds under `of`, or use the builtin type directly",
                    );
                }
                (s.doc.clone(), ir::TypeKind::ScalarUnion(kinds))
            }
            spec::TypeDef::Id(i) => (
                i.doc.clone(),
                ir::TypeKind::Id {
                    max_length: i.max_length,
                    accepts_integers: i.accepts_integers,
                },
            ),
            spec::TypeDef::RecordRef(r) => {
                match self.kind_named(&r.id_type.value) {
                    Some(Kind::Id) => {}
                    Some(other) => self.error(
                        &r.id_type,
                        format!(
                            "`id_type` of `{}` is `{}`, which is {}, not an id",
                            name.value,
                            r.id_type.value,
                            other.describe()
                        ),
                        "name an `id:` type",
                    ),
                    None => self.unknown_type(&r.id_type, &r.id_type.value),
                }
                (
                    r.doc.clone(),
                    ir::TypeKind::RecordRef(ir::RecordRef {
                        id_type: self.id_of(&r.id_type.value),
                        external: r.external,
                        self_keyword: r.self_keyword.clone(),
                        source: r.source,
                    }),
                )
            }
        };
        ir::TypeDef {
            name: name.value.clone(),
            doc,
            kind,
            usage: ir::Usage::default(),
        }
    }

    fn object(&mut self, o: &spec::ObjectDef) -> ir::Object {
        let fields = self.fields(&o.fields);
        let one_of = o.one_of.as_ref().map(|one| {
            let mut names: BTreeMap<String, ()> =
                fields.iter().map(|f| (f.name.clone(), ())).collect();
            let mut variants = Vec::new();
            self.unique_keys(&one.variants, "variant", "one_of");
            for (vname, v) in one.variants.iter() {
                let vfields = self.fields(&v.fields);
                for ((fname, _), f) in v.fields.iter().zip(&vfields) {
                    if names.insert(f.name.clone(), ()).is_some() {
                        self.error(
                            fname,
                            format!("field `{}` is declared twice in this object", f.name),
                            "each field name may appear once across the object and its one_of",
                        );
                    }
                }
                variants.push(ir::OneOfVariant {
                    name: vname.value.clone(),
                    doc: v.doc.clone(),
                    fields: vfields,
                });
            }
            if variants.len() < 2 {
                self.error(
                    &one.name,
                    "a one_of needs at least two variants",
                    "add variants, or make the fields ordinary fields",
                );
            }
            self.one_of_types(one);
            ir::OneOf {
                name: one.name.value.clone(),
                type_name: one.type_name.value.clone(),
                doc: one.doc.clone(),
                variants,
            }
        });
        if let Some(env) = &o.envelope {
            self.envelope(o, env);
        }
        ir::Object {
            fields,
            envelope: o.envelope.as_ref().map(|e| e.value.clone()),
            one_of,
            not_shown: o.not_shown.clone(),
            source: o.source,
        }
    }

    /// An envelope names a required field of its object whose type is an object (the record).
    fn envelope(&mut self, o: &spec::ObjectDef, env: &Spanned<String>) {
        let Some(f) = o.fields.get(&env.value) else {
            self.error(
                env,
                format!(
                    "`envelope` names `{}`, which is not a field of this object",
                    env.value
                ),
                "name the field that holds the record",
            );
            return;
        };
        if o.fields.entries.len() != 1 || o.one_of.is_some() {
            self.error(
                env,
                "an envelope object holds only its record field",
                "move the other fields into the record, or drop `envelope`",
            );
        }
        if !f.required || f.nullable {
            self.error(
                env,
                format!(
                    "the envelope field `{}` must be required and not nullable",
                    env.value
                ),
                "an envelope always holds its record",
            );
        }
        if self.kind_named(&f.ty.value) != Some(Kind::Object) {
            self.error(
                env,
                format!(
                    "the envelope field `{}` is `{}`, not an object",
                    env.value, f.ty.value
                ),
                "an envelope holds a record (an object type)",
            );
        }
    }

    fn enumeration(&mut self, e: &spec::EnumDef) -> ir::Enum {
        self.unique_keys(&e.values, "value", "enum");
        let mut idents: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for (value, _) in e.values.iter() {
            let ident = value.value.to_upper_camel_case();
            if let Some(prev) = idents.get(&ident)
                && prev.value != value.value
            {
                let msg = format!(
                    "enum values `{}` and `{}` map to the same identifier `{ident}`",
                    prev.value, value.value
                );
                self.error(value, msg, "rename one of the values");
            }
            if e.open {
                self.catch_all_member(value, "a value of an open enum");
            }
            idents.insert(ident, value);
        }
        ir::Enum {
            open: e.open,
            values: e
                .values
                .iter()
                .map(|(k, doc)| ir::EnumValue {
                    wire: k.value.clone(),
                    doc: doc.clone(),
                })
                .collect(),
            not_shown: e.not_shown.clone(),
        }
    }

    fn union(&mut self, name: &str, u: &spec::UnionDef) -> ir::Union {
        let mut variants = Vec::new();
        // Members become variants (Rust) and classes (Python) named after the tag value.
        let mut idents: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for (tag_value, _) in u.variants.iter() {
            let ident = tag_value.value.to_upper_camel_case();
            match idents.get(&ident) {
                Some(prev) if prev.value != tag_value.value => {
                    let msg = format!(
                        "union members `{}` and `{}` map to the same identifier `{ident}`",
                        prev.value, tag_value.value
                    );
                    self.error(tag_value, msg, "rename one of the tag values");
                }
                _ => {
                    idents.insert(ident, tag_value);
                }
            }
        }
        for ((tag_value, v), first) in u.variants.iter().zip(repeated(&u.variants)) {
            if let Some(first) = first {
                self.error(
                    tag_value,
                    format!(
                        "discriminator value `{}` is listed twice in union `{name}` (first at {})",
                        tag_value.value,
                        place(first)
                    ),
                    "each tag value selects one variant: remove one entry (several tag values may share a shape, not the reverse)",
                );
                continue;
            }
            self.catch_all_member(tag_value, "a union member");
            match self.kind_named(&v.shape.value) {
                Some(Kind::Object) => {}
                Some(other) => self.error(
                    &v.shape,
                    format!(
                        "variant `{}` of union `{name}` has shape `{}`, which is {}, not an object",
                        tag_value.value,
                        v.shape.value,
                        other.describe()
                    ),
                    "a union variant carries an object: declare an `object:` type for its shape",
                ),
                None => self.unknown_type(&v.shape, &v.shape.value),
            }
            variants.push(ir::Variant {
                tag_value: tag_value.value.clone(),
                shape: self.id_of(&v.shape.value),
                doc: v.doc.clone(),
            });
        }
        if variants.is_empty() {
            self.error(
                &u.tag,
                format!("union `{name}` has no variants"),
                "list its variants by tag value",
            );
        }
        ir::Union {
            tag: u.tag.value.clone(),
            variants,
            open: false, // decided by `ir::resolve` from where the union is used
        }
    }

    /// Gives each union shape the union's common fields (first), and checks that a shape
    /// neither repeats the tag nor serves two unions with different common fields.
    pub(super) fn merge_common_fields(
        &mut self,
        specs: &OrderedMap<spec::TypeDef>,
        types: &mut [ir::TypeDef],
    ) {
        let mut owner: BTreeMap<String, String> = BTreeMap::new();
        for (uname, def) in specs.iter() {
            let spec::TypeDef::Union(u) = def else {
                continue;
            };
            let common = self.fields(&u.common_fields);
            for (_, v) in u.variants.iter() {
                let shape_name = &v.shape.value;
                if let Some(prev) = owner.get(shape_name) {
                    if prev != &uname.value {
                        let msg = format!(
                            "shape `{shape_name}` is used by unions `{prev}` and `{}`",
                            uname.value
                        );
                        self.error(&v.shape, msg, "declare a separate shape per union");
                        continue;
                    }
                    continue; // another tag value of the same union shares this shape
                }
                owner.insert(shape_name.clone(), uname.value.clone());
                let Some(shape) = types.iter_mut().find(|t| &t.name == shape_name) else {
                    continue;
                };
                let ir::TypeKind::Object(obj) = &mut shape.kind else {
                    continue;
                };
                if let Some(f) = obj.fields.iter().find(|f| f.name == u.tag.value) {
                    let msg = format!(
                        "shape `{shape_name}` declares the union's tag `{}` as a field",
                        f.name
                    );
                    self.error(
                        &v.shape,
                        msg,
                        "remove the field from the shape: the union reads and writes the tag",
                    );
                }
                for c in common.iter().rev() {
                    if obj.fields.iter().any(|f| f.name == c.name) {
                        let msg = format!(
                            "shape `{shape_name}` repeats the common field `{}` of union `{}`",
                            c.name, uname.value
                        );
                        self.error(&v.shape, msg, "remove it from the shape");
                    } else {
                        obj.fields.insert(0, c.clone());
                    }
                }
            }
        }
    }
}
