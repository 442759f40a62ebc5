//! Which declared types the package reads, writes or checks outside their own methods, so
//! that a type's unexported reader, writer and check are written only where something
//! calls them (staticcheck refuses functions nothing calls). A record's are always used
//! (its `UnmarshalJSON`, `MarshalJSON` and `Validate` call them).

use std::collections::BTreeSet;

use crate::ir::{Input, Interface, Paging, TypeId, TypeKind, TypeRef};

#[derive(Default)]
pub struct Uses {
    pub read: BTreeSet<usize>,
    pub write: BTreeSet<usize>,
    pub check: BTreeSet<usize>,
}

impl Uses {
    /// The uses in `i`: its records' fields, its operations' values and answers, its
    /// lists' pages.
    pub fn of(i: &Interface) -> Self {
        let mut uses = Uses::default();
        for t in &i.types {
            if let TypeKind::Object(o) = &t.kind {
                for f in o.wire_fields() {
                    uses.mark(&f.ty, true, true, true);
                }
            }
        }
        if let Some(w) = &i.webhooks {
            uses.mark_id(w.event, true, false, false);
        }
        if let Some(c) = i.cursor_paging() {
            uses.mark_id(c.paging_type, true, true, false);
        }
        for op in &i.operations {
            for input in &op.call.inputs {
                let ty = match *input {
                    Input::Path { index } => &op.path_params[index].ty,
                    Input::Query { index } => &op.query[index].ty,
                    Input::Body => match op.json_body() {
                        Some(ty) => ty,
                        None => continue,
                    },
                };
                uses.mark(ty, false, true, true);
            }
            if let Some(p) = i.paging(op) {
                match p {
                    Paging::Cursor { item, .. } => uses.mark(item, true, false, false),
                    Paging::Links { envelope, .. } => uses.mark_id(envelope, true, false, false),
                }
                continue;
            }
            match &op.answer.kind {
                crate::ir::AnswerKind::Json { body, .. }
                | crate::ir::AnswerKind::Upsert { body } => uses.mark(body, true, false, false),
                _ => {}
            }
        }
        uses
    }

    fn mark(&mut self, ty: &TypeRef, read: bool, write: bool, check: bool) {
        match ty {
            TypeRef::Named(id) => self.mark_id(*id, read, write, check),
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::JsonEncoded(inner) => {
                self.mark(inner, read, write, check)
            }
            TypeRef::Builtin(_) | TypeRef::Page(_) => {}
        }
    }

    fn mark_id(&mut self, id: TypeId, read: bool, write: bool, check: bool) {
        let at = id.index();
        if read {
            self.read.insert(at);
        }
        if write {
            self.write.insert(at);
        }
        if check {
            self.check.insert(at);
        }
    }
}
