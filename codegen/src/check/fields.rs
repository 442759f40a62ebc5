//! Fields of records and parameters, and the constraints each may carry.

use serde_saphyr::Spanned;

use crate::ir::{self, TypeRef};
use crate::spec::{self, OrderedMap};

use super::type_expr::Position;
use super::{Checker, Kind};

impl<'a> Checker<'a> {
    /// The fields of a record: each name once, each a distinct identifier.
    pub(super) fn fields(&mut self, fields: &OrderedMap<spec::FieldDef>) -> Vec<ir::Field> {
        let names: Vec<&Spanned<String>> = fields.iter().map(|(k, _)| k).collect();
        self.identifiers(&names, "field", &[]);
        self.fields_at(fields, Position::Field)
    }

    pub(super) fn fields_at(
        &mut self,
        fields: &OrderedMap<spec::FieldDef>,
        position: Position,
    ) -> Vec<ir::Field> {
        self.unique_keys(fields, "field", "object");
        fields
            .iter()
            .filter_map(|(name, f)| self.field(name, f, position))
            .collect()
    }

    fn field(
        &mut self,
        name: &Spanned<String>,
        f: &spec::FieldDef,
        position: Position,
    ) -> Option<ir::Field> {
        let with_scalar = self.with_scalar(f);
        let f = with_scalar.as_ref().unwrap_or(f);
        let ty = self.type_expr(&f.ty, position)?;
        let constraints = self.constraints(name, f, &ty);
        Some(ir::Field {
            name: name.value.clone(),
            doc: f.doc.clone(),
            ty,
            required: f.required,
            nullable: f.nullable,
            sensitive: f.sensitive,
            constraints,
            not_shown: f.not_shown.clone(),
            source: f.source,
        })
    }

    /// Checks that each constraint fits the field's type.
    fn constraints(
        &mut self,
        name: &Spanned<String>,
        f: &spec::FieldDef,
        ty: &TypeRef,
    ) -> ir::Constraints {
        self.misplaced_constraints(name, f, ty);
        self.field_range(name, f);
        constraint_values(f)
    }

    /// Each constraint set on a type it does not apply to: lengths and `chars` on
    /// strings, `min`/`max` on integers, item counts on arrays.
    fn misplaced_constraints(&mut self, name: &Spanned<String>, f: &spec::FieldDef, ty: &TypeRef) {
        let is_string = self.is_string(ty);
        // Ranges are checked as whole numbers: `number` fields take none.
        let is_number = matches!(ty, TypeRef::Builtin(b) if b.is_integer());
        let is_array = matches!(ty, TypeRef::Array(_));
        let shown = &f.ty.value;
        let field = &name.value;

        let misplaced =
            |cx: &mut Self, at: serde_saphyr::Location, key: &str, fits: &str, fix: &str| {
                cx.error_at(
                    at,
                    format!("`{key}` applies to {fits}, but field `{field}` is `{shown}`"),
                    fix.to_string(),
                );
            };
        for (key, at) in [("max_length", &f.max_length), ("length", &f.length)] {
            if let Some(at) = at
                && !is_string
            {
                misplaced(
                    self,
                    at.referenced,
                    key,
                    "strings",
                    "remove it, or use `min`/`max` for a number's range",
                );
            }
        }
        if let Some(at) = &f.chars
            && !is_string
        {
            misplaced(self, at.referenced, "chars", "strings", "remove it");
        }
        for (key, at) in [("min", &f.min), ("max", &f.max)] {
            if let Some(at) = at
                && !is_number
            {
                misplaced(
                    self,
                    at.referenced,
                    key,
                    "integers",
                    "remove it, or use `max_length`/`length` for a string",
                );
            }
        }
        for (key, at) in [("max_items", &f.max_items), ("min_items", &f.min_items)] {
            if let Some(at) = at
                && !is_array
            {
                misplaced(self, at.referenced, key, "arrays", "remove it");
            }
        }
    }

    /// Whether `ty` is written as a string, so takes lengths and `chars`: a string-like
    /// builtin, an id or a record reference.
    fn is_string(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Builtin(b) => b.is_string_like(),
            TypeRef::Named(n) => matches!(self.kind_of(*n), Some(Kind::Id | Kind::RecordRef)),
            _ => false,
        }
    }

    /// `min` is not greater than `max`.
    fn field_range(&mut self, name: &Spanned<String>, f: &spec::FieldDef) {
        if let (Some(min), Some(max)) = (&f.min, &f.max)
            && min.value > max.value
        {
            self.error(
                min,
                format!(
                    "`min` {} is greater than `max` {} on field `{}`",
                    min.value, max.value, name.value
                ),
                "swap or correct the bounds",
            );
        }
    }
}

fn constraint_values(f: &spec::FieldDef) -> ir::Constraints {
    ir::Constraints {
        max_length: f.max_length.as_ref().map(|s| s.value),
        length: f.length.as_ref().map(|s| s.value),
        min: f.min.as_ref().map(|s| s.value),
        max: f.max.as_ref().map(|s| s.value),
        chars: f.chars.as_ref().map(|c| ir::CharRule {
            allow: c.value.allow,
            forbid: c.value.forbid.clone(),
        }),
        max_items: f.max_items.as_ref().map(|s| s.value),
        min_items: f.min_items.as_ref().map(|s| s.value),
    }
}
