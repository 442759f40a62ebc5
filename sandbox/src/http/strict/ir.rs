//! The generator's IR (`generated/ir.json`), embedded at build time and read once: only
//! what checking a request body needs (types, and each operation's method, path, body
//! and listed statuses). The sandbox reads the IR rather than the `codegen` crate, so it
//! depends on the contract the generator writes, not on the generator.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

/// The IR as the generator last wrote it; `cargo xtask codegen --check` keeps it fresh.
pub(super) const IR_JSON: &str = include_str!("../../../../generated/ir.json");

static IR: LazyLock<Ir> = LazyLock::new(|| Ir::parse(IR_JSON));

/// The embedded IR.
pub fn ir() -> &'static Ir {
    &IR
}

#[derive(Debug)]
pub struct Ir {
    interfaces: Vec<Interface>,
    /// (interface, method, path template) to the operation's index in its interface.
    routes: HashMap<(String, String, String), usize>,
}

impl Ir {
    fn parse(text: &str) -> Ir {
        #[derive(Deserialize)]
        struct Document {
            interfaces: Vec<Interface>,
        }
        // The file is generated and checked in CI; a broken one is a build defect.
        let doc: Document = serde_json::from_str(text).expect("generated/ir.json is not the IR");
        let mut routes = HashMap::new();
        for i in &doc.interfaces {
            for (n, op) in i.operations.iter().enumerate() {
                let key = (i.name.clone(), op.method.clone(), op.path.clone());
                routes.insert(key, n);
            }
        }
        Ir {
            interfaces: doc.interfaces,
            routes,
        }
    }

    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }

    /// The operation of `interface` at `method` and `path` (a template such as
    /// `/units/{unit_id}`, as the router matched it).
    pub fn operation(&self, interface: &str, method: &str, path: &str) -> Option<&Operation> {
        let key = (interface.to_string(), method.to_string(), path.to_string());
        let n = *self.routes.get(&key)?;
        self.interface(interface).map(|i| &i.operations[n])
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
    pub method: String,
    pub path: String,
    pub query: Vec<Param>,
    pub body: Option<Body>,
    /// Statuses this operation answers beyond the interface's.
    pub errors: Vec<Status>,
    pub manager_only: bool,
}

impl Operation {
    pub fn lists(&self, status: u16) -> bool {
        self.errors.iter().any(|e| e.status == status)
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

    #[test]
    fn the_embedded_ir_reads_and_finds_operations_by_route() {
        let ir = ir();
        let op = ir.operation("v3", "POST", "/units").unwrap();
        assert!(op.lists(422));
        let v3 = ir.interface("v3").unwrap();
        let TypeRef::Named(n) = op.json_body().unwrap() else {
            panic!("{op:?}")
        };
        let Kind::Object(unit) = &v3.ty(*n).unwrap().kind else {
            panic!("{op:?}")
        };
        let reference = &unit.fields[0];
        assert_eq!(reference.name, "reference_number");
        assert!(reference.required && !reference.nullable);
        let log = ir
            .operation("legacy", "POST", "/api/devices/{dev_id}/log")
            .unwrap();
        assert_eq!(log.json_body(), None, "a binary body is not JSON");
        assert!(ir.operation("v3", "GET", "/nowhere").is_none());
    }
}
