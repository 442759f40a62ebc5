//! A small valid spec for tests: one type (`Unit`, read by `get_unit`) that the backends'
//! unit tests load, so each test states only what it checks, and the frame the `tests`
//! crate splices its own types and operations into (through its `spec_text.rs`).

/// A spec of the interface `t` whose `types` and `operations` are spliced in at fixed
/// lines: types start on line 10, operations right after them.
pub fn spec(types: &str, operations: &str) -> String {
    format!(
        "interface:
  name: t
  title: T
  doc: A test interface.
  base_url: {{ placeholder: \"{{base_url}}\", example: \"https://example.test/v3\", doc: Root. }}
  auth:
    api_key_headers: {{ doc: Keys., unauthorized_status: 401, headers: {{ k: {{ doc: Key. }} }} }}
  versioning: One version.
types:
{types}operations:
{operations}"
    )
}

/// The type `Unit`, an object with a required `id`.
pub const UNIT: &str = "  Unit:
    object:
      doc: A unit.
      fields:
        id: { type: string, doc: Id., required: true }
";

/// The operation `get_unit`, reading a `Unit` by its id.
pub const GET_UNIT: &str = "  get_unit:
    doc: Get.
    method: GET
    path: /units/{unit_id}
    path_params:
      unit_id: { type: string, doc: Id., required: true }
    responses:
      - { status: 200, body: Unit, doc: The unit. }
";

/// The union `Shape`, told by its `form`, of one member `round` (the object `Round`).
pub const SHAPE: &str = "  Shape:
    union:
      doc: A shape.
      tag: form
      variants:
        round: { shape: Round, doc: Round. }
  Round:
    object:
      doc: A round shape.
      fields:
        radius: { type: integer, doc: The radius. }
";

/// The one-type spec: `Unit` and `get_unit`.
pub fn unit_spec() -> String {
    spec(UNIT, GET_UNIT)
}

/// The one-type spec loaded, and its types' names as a backend declares them.
#[cfg(test)]
pub fn unit_interface() -> (crate::ir::Interface, Vec<String>) {
    let interface = crate::load_str("spec/t.yaml", &unit_spec()).unwrap();
    (interface, vec!["Unit".to_string()])
}

/// A list of maps of integers: the nesting a backend's containers are tested on.
#[cfg(test)]
pub fn nested_containers() -> crate::ir::TypeRef {
    use crate::ir::{Builtin, TypeRef};
    TypeRef::Array(Box::new(TypeRef::Map(Box::new(TypeRef::Builtin(
        Builtin::Integer,
    )))))
}
