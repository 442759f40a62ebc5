//! The generator's IR (`generated/ir.json`): what the sandbox's routes and request checks
//! read (each operation's name, method, path, auth, query, body and listed statuses, and
//! the types a body is walked against). The sandbox reads the IR rather than the `codegen`
//! crate, so it depends on the contract the generator writes, not on the generator.

use std::sync::{Arc, LazyLock};

use serde::Deserialize;

/// The IR as the generator last wrote it; `cargo xtask codegen --check` keeps it fresh.
pub(crate) const IR_JSON: &str = include_str!("../../generated/ir.json");

// The file is generated and checked in CI; a broken one is a build defect.
static EMBEDDED: LazyLock<Arc<Ir>> =
    LazyLock::new(|| Arc::new(Ir::parse(IR_JSON).expect("generated/ir.json is not the IR")));

/// The IR a sandbox serves: the embedded one, or one a test builds from another spec.
#[derive(Debug, Deserialize)]
pub struct Ir {
    pub interfaces: Vec<Interface>,
}

impl Ir {
    /// The IR built into the sandbox (`generated/ir.json`).
    pub fn embedded() -> Arc<Ir> {
        EMBEDDED.clone()
    }

    /// Reads an IR document (`cargo xtask codegen --dump-ir` prints one).
    pub fn parse(text: &str) -> Result<Ir, String> {
        serde_json::from_str(text).map_err(|e| format!("not the generator's IR: {e}"))
    }

    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }
}

#[derive(Debug, Deserialize)]
pub struct Interface {
    pub name: String,
    /// Statuses every operation of the interface may answer.
    pub errors: Vec<Status>,
    /// Indexed by the `named` of a type reference.
    pub types: Vec<TypeDef>,
    pub operations: Vec<Operation>,
}

impl Interface {
    /// Whether `op` may answer `status`, by its own list or the interface's.
    pub fn lists(&self, op: &Operation, status: u16) -> bool {
        op.lists(status) || self.errors.iter().any(|e| e.status == status)
    }

    pub fn ty(&self, id: usize) -> Option<&TypeDef> {
        self.types.get(id)
    }
}

#[derive(Debug, Deserialize)]
pub struct Status {
    pub status: u16,
}

#[derive(Debug, Deserialize)]
pub struct Operation {
    /// Its name, which the sandbox's handler tables are keyed by.
    pub name: String,
    pub method: Method,
    pub path: String,
    pub query: Vec<Param>,
    pub body: Option<Body>,
    /// Statuses this operation answers beyond the interface's.
    pub errors: Vec<Status>,
    pub manager_only: bool,
    /// `None` for the operations called before logging in; else the interface's auth.
    pub auth: AuthUse,
}

impl Operation {
    pub fn lists(&self, status: u16) -> bool {
        self.errors.iter().any(|e| e.status == status)
    }

    /// Whether it is called without the interface's credentials (a login).
    pub fn is_open(&self) -> bool {
        self.auth == AuthUse::None
    }

    /// The body's type when the body is JSON (a binary one, such as a device log, is taken
    /// as sent).
    pub fn json_body(&self) -> Option<&TypeRef> {
        let body = self.body.as_ref()?;
        let media = body.content_type.split(';').next().unwrap_or("").trim();
        let json = media == "application/json" || media.ends_with("+json");
        json.then_some(&body.ty)
    }
}

/// The methods the generator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Method {
    GET,
    POST,
    PUT,
    PATCH,
    DELETE,
}

/// Whether an operation needs its interface's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthUse {
    Required,
    None,
}

/// A query parameter: its type and the documented limits the sandbox holds it to.
#[derive(Debug, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: TypeRef,
    pub required: bool,
    pub constraints: Constraints,
}

#[derive(Debug, Default, Deserialize)]
pub struct Constraints {
    pub max_length: Option<u64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Deserialize)]
pub struct Body {
    pub ty: TypeRef,
    pub content_type: String,
}

/// A type expression: a builtin by name, a declared type by index, or a container.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRef {
    Builtin(String),
    Named(usize),
    Array(Box<TypeRef>),
    Map(Box<TypeRef>),
    /// The list envelope; answers only.
    Page(Box<TypeRef>),
    /// A query value sent as JSON text; the value itself is of the inner type.
    JsonEncoded(Box<TypeRef>),
}

#[derive(Debug, Deserialize)]
pub struct TypeDef {
    pub kind: Kind,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Object(Object),
    Enum(Enum),
    Union(Union),
    /// The JSON kinds a value may have: `string`, `integer`, `boolean`, `number`, `null`.
    ScalarUnion(Vec<String>),
    Id {},
    RecordRef {},
}

#[derive(Debug, Deserialize)]
pub struct Object {
    pub fields: Vec<Field>,
    pub one_of: Option<OneOf>,
}

#[derive(Debug, Deserialize)]
pub struct Field {
    pub name: String,
    pub ty: TypeRef,
    pub required: bool,
    pub nullable: bool,
}

/// Groups of fields of which exactly one is given (a task's assignee).
#[derive(Debug, Deserialize)]
pub struct OneOf {
    pub variants: Vec<OneOfVariant>,
}

#[derive(Debug, Deserialize)]
pub struct OneOfVariant {
    pub fields: Vec<Field>,
}

#[derive(Debug, Deserialize)]
pub struct Enum {
    pub values: Vec<EnumValue>,
}

#[derive(Debug, Deserialize)]
pub struct EnumValue {
    pub wire: String,
}

#[derive(Debug, Deserialize)]
pub struct Union {
    pub tag: String,
    pub variants: Vec<Variant>,
}

#[derive(Debug, Deserialize)]
pub struct Variant {
    pub tag_value: String,
    pub shape: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op<'a>(i: &'a Interface, name: &str) -> &'a Operation {
        i.operations.iter().find(|o| o.name == name).unwrap()
    }

    #[test]
    fn the_embedded_ir_reads() {
        let ir = Ir::embedded();
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
        let Kind::Object(unit) = &v3.ty(*n).unwrap().kind else {
            panic!("{create:?}")
        };
        let reference = &unit.fields[0];
        assert_eq!(reference.name, "reference_number");
        assert!(reference.required && !reference.nullable);
        let legacy = ir.interface("legacy").unwrap();
        let log = op(legacy, "upload_device_log");
        assert_eq!(log.json_body(), None, "a binary body is not JSON");
        assert!(op(legacy, "authenticate").is_open());
        assert!(
            Ir::parse("{}")
                .unwrap_err()
                .contains("not the generator's IR")
        );
    }
}
