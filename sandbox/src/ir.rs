//! The generator's IR (`generated/ir.json`): what the sandbox's routes and request checks
//! read (each operation's name, method, path, auth, query, body and listed statuses, and
//! the types a body is walked against), through the generator's own model, the
//! `inspection-ir` crate: the sandbox depends on the contract the generator writes, not on
//! the generator, and no mirror of it can drift.

use std::sync::{Arc, LazyLock};

pub use inspection_ir::*;

/// The IR a sandbox serves: the embedded one, or one a test builds from another spec.
pub type Ir = Api;

/// The IR as the generator last wrote it; `cargo xtask codegen --check` keeps it fresh.
pub(crate) const IR_JSON: &str = include_str!("../../generated/ir.json");

// The file is generated and checked in CI; a broken one is a build defect.
static EMBEDDED: LazyLock<Arc<Ir>> =
    LazyLock::new(|| Arc::new(parse(IR_JSON).expect("generated/ir.json is not the IR")));

/// The IR built into the sandbox (`generated/ir.json`).
pub fn embedded() -> Arc<Ir> {
    EMBEDDED.clone()
}

/// Reads an IR document (`cargo xtask codegen --dump-ir` prints one).
pub fn parse(text: &str) -> Result<Ir, String> {
    serde_json::from_str(text).map_err(|e| format!("not the generator's IR: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op<'a>(i: &'a Interface, name: &str) -> &'a Operation {
        i.operations.iter().find(|o| o.name == name).unwrap()
    }

    #[test]
    fn the_embedded_ir_reads() {
        let ir = embedded();
        let v3 = ir.interface("v3").unwrap();
        let create = op(v3, "create_unit");
        assert_eq!(
            (create.method, create.path.as_str()),
            (Method::POST, "/units")
        );
        assert!(create.lists(422) && !create.is_open());
        let TypeRef::Named(n) = create.json_body().unwrap() else {
            panic!("{create:?}")
        };
        let TypeKind::Object(unit) = &v3.ty(*n).kind else {
            panic!("{create:?}")
        };
        let reference = &unit.fields[0];
        assert_eq!(reference.name, "reference_number");
        assert!(reference.required && !reference.nullable);
        let legacy = ir.interface("legacy").unwrap();
        let log = op(legacy, "upload_device_log");
        assert_eq!(log.json_body(), None, "a binary body is not JSON");
        assert!(op(legacy, "authenticate").is_open());
        assert!(parse("{}").unwrap_err().contains("not the generator's IR"));
    }
}
