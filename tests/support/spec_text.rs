//! A small valid spec to splice constructs into, and readers of the diagnostics a
//! refused one gets (for the spec_errors and spec_rules tests).
#![allow(dead_code)] // each test file uses a different part of the support module

/// A small valid spec; `types` and `operations` are spliced in at fixed lines (types start
/// on line 10, operations right after them).
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

pub const UNIT: &str = "  Unit:
    object:
      doc: A unit.
      fields:
        id: { type: string, doc: Id., required: true }
";

pub const GET_UNIT: &str = "  get_unit:
    doc: Get.
    method: GET
    path: /units/{unit_id}
    path_params:
      unit_id: { type: string, doc: Id., required: true }
    responses:
      - { status: 200, body: Unit, doc: The unit. }
";

pub fn error_for(text: &str) -> String {
    match codegen::load_str("spec/t.yaml", text) {
        Ok(_) => panic!("the spec was accepted:\n{text}"),
        Err(diagnostics) => diagnostics.to_string(),
    }
}

pub fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// The message of the first problem, and that it points at a real place.
pub fn first_message(text: &str) -> String {
    let all = error_for(text);
    let first = first_line(&all);
    let (place, message) = first
        .split_once(": error: ")
        .expect("file:line:col: error: message");
    let mut parts = place.rsplitn(3, ':');
    let (col, line) = (parts.next().unwrap(), parts.next().unwrap());
    assert!(
        line.parse::<u32>().unwrap() > 0 && col.parse::<u32>().unwrap() > 0,
        "{first}"
    );
    assert!(all.contains("\n  help: "), "{all}");
    message.to_string()
}
