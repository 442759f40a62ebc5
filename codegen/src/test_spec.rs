//! A one-type spec the backends' unit tests load (`Unit`, read by `get_unit`), so each
//! test states only what it checks.

/// The spec's text.
pub const SPEC: &str = "interface:
  name: t
  title: T
  doc: A test interface.
  base_url: { placeholder: \"{base_url}\", example: \"https://example.test/v3\", doc: Root. }
  auth:
    api_key_headers: { doc: Keys., unauthorized_status: 401, headers: { k: { doc: Key. } } }
  versioning: One version.
types:
  Unit:
    object:
      doc: A unit.
      fields:
        id: { type: string, doc: Id., required: true }
operations:
  get_unit:
    doc: Get.
    method: GET
    path: /units/{unit_id}
    path_params:
      unit_id: { type: string, doc: Id., required: true }
    responses:
      - { status: 200, body: Unit, doc: The unit. }
";
