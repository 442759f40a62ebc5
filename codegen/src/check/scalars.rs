//! Named scalars: a builtin with its limits declared once under `scalars:` and used as the
//! whole type of many fields. A field whose type names one is checked and resolved as a
//! field of the builtin with those limits, so the IR (and every backend) sees plain fields.

use heck::ToUpperCamelCase;
use serde_saphyr::Spanned;

use super::Checker;
use crate::ir::Builtin;
use crate::spec::{self, OrderedMap};

/// The builtins a scalar may name: those limits apply to.
const BASES: &[&str] = &["string", "url", "integer", "int32", "int64", "number"];

impl Checker<'_> {
    /// Keeps the scalars for the fields to come: each named in UpperCamelCase, neither a
    /// builtin nor a declared type, over a builtin that limits apply to.
    pub(super) fn declare_scalars(
        &mut self,
        scalars: &OrderedMap<spec::ScalarDef>,
        types: &OrderedMap<spec::TypeDef>,
    ) {
        self.unique_keys(scalars, "scalar", "list of scalars");
        for (name, def) in scalars.iter() {
            let taken = types.iter().any(|(t, _)| t.value == name.value);
            if let Some(problem) = scalar_name_problem(&name.value, taken) {
                self.error(name, problem.0, problem.1);
                continue;
            }
            if !BASES.contains(&def.ty.value.as_str()) {
                self.error(
                    &def.ty,
                    format!(
                        "the scalar `{}` is a `{}`, which takes no limits",
                        name.value,
                        super::clip(&def.ty.value)
                    ),
                    format!("make it one of {}", BASES.join(", ")),
                );
                continue;
            }
            self.scalars
                .entry(name.value.clone())
                .or_insert_with(|| def.clone());
        }
    }

    /// `f` with its scalar's builtin and limits, when its type names a scalar (`None`
    /// otherwise). A limit the field restates is refused at the field: the scalar is the
    /// one place it is written.
    pub(super) fn with_scalar(&mut self, f: &spec::FieldDef) -> Option<spec::FieldDef> {
        let scalar = self.scalars.get(&f.ty.value)?.clone();
        let name = f.ty.value.clone();
        let mut merged = f.clone();
        merged.ty = scalar.ty.clone();
        merged.max_length = self.take(&name, "max_length", &f.max_length, &scalar.max_length);
        merged.length = self.take(&name, "length", &f.length, &scalar.length);
        merged.min = self.take(&name, "min", &f.min, &scalar.min);
        merged.max = self.take(&name, "max", &f.max, &scalar.max);
        merged.chars = self.take(&name, "chars", &f.chars, &scalar.chars);
        Some(merged)
    }

    /// The field's limit, or else its scalar's; both is an error at the field's.
    fn take<T: Clone>(
        &mut self,
        scalar: &str,
        key: &str,
        field: &Option<Spanned<T>>,
        declared: &Option<Spanned<T>>,
    ) -> Option<Spanned<T>> {
        if let (Some(at), Some(_)) = (field, declared) {
            self.error(
                at,
                format!("`{key}` is the scalar `{scalar}`'s already"),
                format!("remove it here, or give the field another type than `{scalar}`"),
            );
        }
        field.clone().or_else(|| declared.clone())
    }
}

/// Why a scalar's name is refused (the message and its help), if it is.
fn scalar_name_problem(name: &str, is_a_type: bool) -> Option<(String, String)> {
    let shown = super::clip(name);
    if Builtin::from_name(name).is_some() {
        return Some((
            format!("scalar name `{shown}` is a builtin type"),
            "name it after what its values are, such as `Vin`".into(),
        ));
    }
    if is_a_type {
        return Some((
            format!("`{shown}` is declared under `types:` too"),
            "a name is a scalar or a type, not both: rename one".into(),
        ));
    }
    if name.to_upper_camel_case() != name || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Some((
            format!("scalar name `{shown}` is not UpperCamelCase"),
            format!("rename it `{}`", name.to_upper_camel_case()),
        ));
    }
    None
}
