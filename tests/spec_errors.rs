//! A malformed spec is refused with `file:line:col`, what is wrong and how to fix it;
//! never a panic.

// Only the spec text: not the rest of `support` (servers, clients), which these do not use.
#[path = "support/spec_text.rs"]
mod spec_text;

use spec_text::*;

#[test]
fn the_base_spec_is_valid() {
    let api = codegen::load_str("spec/t.yaml", &spec(UNIT, GET_UNIT)).unwrap();
    assert_eq!((api.types.len(), api.operations.len()), (1, 1));
}

#[test]
fn yaml_syntax_error() {
    let text = spec(UNIT, GET_UNIT).replace("method: GET", "method: GET: POST");
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:18:16: error: mapping values are not allowed in this context\n  \
         help: fix the YAML syntax at this place (indentation, quotes, brackets)"
    );
}

#[test]
fn unknown_key() {
    let text = spec(
        &UNIT.replace("doc: A unit.", "doc: A unit.\n      colour: red"),
        GET_UNIT,
    );
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:13:7: error: unknown field `colour`, expected one of doc, fields, \
         envelope, one_of, not_shown, source\n  \
         help: remove the key or correct its spelling (spec/spec.schema.json describes every key)"
    );
}

#[test]
fn unknown_type_name() {
    let text = spec(UNIT, &GET_UNIT.replace("body: Unit", "body: Untit"));
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:23:30: error: unknown type `Untit`\n  \
         help: did you mean `Unit`? Otherwise declare `Untit` under `types:` or use a builtin"
    );
}

#[test]
fn duplicate_operation_name() {
    let text = spec(UNIT, &format!("{GET_UNIT}{GET_UNIT}"));
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:24:3: error: operation `get_unit` is declared twice (first at 16:3)\n  \
         help: give each operation a unique name"
    );
}

#[test]
fn duplicate_operation_route() {
    let twin = GET_UNIT
        .replace("get_unit:", "fetch_unit:")
        .replace("{unit_id}", "{id}")
        .replace("unit_id:", "id:");
    let text = spec(UNIT, &format!("{GET_UNIT}{twin}"));
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:27:11: error: operation `fetch_unit` repeats GET /units/{id} of operation \
         `get_unit`\n  help: remove one of the two operations, or fix its method or path"
    );
}

/// Another method on the same path is fine, but not with its parameter named otherwise:
/// OpenAPI and the sandbox's router would take the two spellings for two clashing paths.
#[test]
fn one_path_with_two_spellings_of_its_parameter() {
    let patch = GET_UNIT.replace("get_unit:", "update_unit:");
    let same = spec(
        UNIT,
        &format!("{GET_UNIT}{}", patch.replace("GET", "PATCH")),
    );
    codegen::load_str("spec/t.yaml", &same).unwrap();
    let renamed = patch
        .replace("GET", "PATCH")
        .replace("{unit_id}", "{id}")
        .replace("unit_id:", "id:");
    let text = spec(UNIT, &format!("{GET_UNIT}{renamed}"));
    assert_eq!(
        error_for(&text),
        "spec/t.yaml:27:11: error: operation `update_unit` writes the path /units/{} as \
         /units/{id}, where operation `get_unit` writes /units/{unit_id}\n  help: name its \
         parameters as `get_unit` does: `/units/{unit_id}` (OpenAPI and routers take the two \
         for different paths that clash)"
    );
}

#[test]
fn union_variant_that_is_not_an_object() {
    let types = format!(
        "{UNIT}  Kind:
    enum: {{ doc: K., open: true, values: {{ a: A. }} }}
  Result:
    union:
      doc: R.
      tag: object
      variants:
        unit: {{ shape: Unit, doc: U. }}
        kind: {{ shape: Kind, doc: K. }}
"
    );
    assert_eq!(
        error_for(&spec(&types, GET_UNIT)),
        "spec/t.yaml:23:24: error: variant `kind` of union `Result` has shape `Kind`, which is an \
         enum, not an object\n  \
         help: a union variant carries an object: declare an `object:` type for its shape"
    );
}

#[test]
fn discriminator_value_listed_twice() {
    let types = format!(
        "{UNIT}  Result:
    union:
      doc: R.
      tag: object
      variants:
        unit: {{ shape: Unit, doc: U. }}
        unit: {{ shape: Unit, doc: Again. }}
"
    );
    assert_eq!(
        error_for(&spec(&types, GET_UNIT)),
        "spec/t.yaml:21:9: error: discriminator value `unit` is listed twice in union `Result` \
         (first at 20:9)\n  \
         help: each tag value selects one variant: remove one entry (several tag values may share \
         a shape, not the reverse)"
    );
}

#[test]
fn constraint_on_the_wrong_type() {
    let types = UNIT.replace(
        "required: true }",
        "required: true }\n        year: { type: integer, doc: Year., max_length: 4 }",
    );
    assert_eq!(
        error_for(&spec(&types, GET_UNIT)),
        "spec/t.yaml:15:56: error: `max_length` applies to strings, but field `year` is `integer`\n  \
         help: remove it, or use `min`/`max` for a number's range"
    );
}

#[test]
fn path_parameter_without_a_declaration() {
    let ops = GET_UNIT.replace(
        "path: /units/{unit_id}",
        "path: /units/{unit_id}/photos/{photo_id}",
    );
    assert_eq!(
        error_for(&spec(UNIT, &ops)),
        "spec/t.yaml:19:11: error: path parameter `{photo_id}` of operation `get_unit` has no \
         entry under `path_params`\n  \
         help: add `photo_id: { type: string, doc: ... }` under `path_params`, or fix the \
         placeholder's spelling"
    );
}

#[test]
fn declared_path_parameter_missing_from_the_path() {
    let ops = GET_UNIT.replace("path: /units/{unit_id}", "path: /units");
    assert_eq!(
        error_for(&spec(UNIT, &ops)),
        "spec/t.yaml:21:7: error: path parameter `unit_id` does not appear in path `/units`\n  \
         help: add `{unit_id}` to the path, or remove the parameter"
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let ops = GET_UNIT
        .replace("body: Unit", "body: Nope")
        .replace("path: /units/{unit_id}", "path: /units/{unit_id}/{x}");
    let message = error_for(&spec(UNIT, &ops));
    assert_eq!(message.matches(": error: ").count(), 2, "{message}");
    assert!(message.contains("unknown type `Nope`"), "{message}");
    assert!(message.contains("`{x}`"), "{message}");
}

#[test]
fn garbage_input_never_panics() {
    for text in [
        "",
        "[]",
        "interface: 3",
        "\u{0}",
        "types: {a: {b: c}}",
        ": : :",
        "- - -\n  x",
    ] {
        assert!(
            codegen::load_str("spec/t.yaml", text).is_err(),
            "{text:?} was accepted"
        );
    }
}

#[test]
fn duplicate_type_field_and_enum_value() {
    let twice = format!("{UNIT}{UNIT}");
    assert_eq!(
        first_line(&error_for(&spec(&twice, GET_UNIT))),
        "spec/t.yaml:15:3: error: type `Unit` is declared twice (first at 10:3)"
    );
    let field = UNIT.replace(
        "required: true }",
        "required: true }\n        id: { type: string, doc: Again. }",
    );
    assert_eq!(
        first_line(&error_for(&spec(&field, GET_UNIT))),
        "spec/t.yaml:15:9: error: field `id` is listed twice in this object (first at 14:9)"
    );
    let values = format!(
        "{UNIT}  Kind:\n    enum: {{ doc: K., open: false, values: {{ a: A., a: Again. }} }}\n"
    );
    assert_eq!(
        first_line(&error_for(&spec(&values, GET_UNIT))),
        "spec/t.yaml:16:52: error: value `a` is listed twice in this enum (first at 16:45)"
    );
}

#[test]
fn a_union_shape_that_repeats_the_tag() {
    let types = format!(
        "{}  Result:\n    union:\n      doc: R.\n      tag: id\n      variants:\n        unit: {{ shape: Unit, doc: U. }}\n",
        UNIT
    );
    assert_eq!(
        first_line(&error_for(&spec(&types, GET_UNIT))),
        "spec/t.yaml:20:24: error: shape `Unit` declares the union's tag `id` as a field"
    );
}

#[test]
fn page_outside_a_response_and_a_status_out_of_range() {
    let field = UNIT.replace("type: string, doc: Id.", "type: \"page<Unit>\", doc: Id.");
    assert_eq!(
        first_line(&error_for(&spec(&field, GET_UNIT))),
        "spec/t.yaml:14:21: error: `page<T>` is only allowed as a whole response body"
    );
    let status = GET_UNIT.replace("status: 200", "status: 700");
    assert_eq!(
        first_line(&error_for(&spec(UNIT, &status))),
        "spec/t.yaml:23:19: error: `700` is not an HTTP status"
    );
}

#[test]
fn names_that_collide_as_identifiers() {
    let fields = UNIT.replace(
        "required: true }",
        "required: true }\n        referenceNumber: { type: string, doc: A. }\n        reference_number: { type: string, doc: B. }",
    );
    assert_eq!(
        first_line(&error_for(&spec(&fields, GET_UNIT))),
        "spec/t.yaml:16:9: error: fields `referenceNumber` and `reference_number` both become `reference_number`"
    );
    let reserved = GET_UNIT.replace(
        "    responses:",
        "    query:\n      core: { type: string, doc: C. }\n    responses:",
    );
    assert_eq!(
        first_line(&error_for(&spec(UNIT, &reserved))),
        "spec/t.yaml:23:7: error: parameter `core` is named like the generated code's own `core`"
    );
    // Every builder method counts, in any case style (`sendStream` would be `send_stream`).
    for name in ["send", "sendStream", "pdf_to", "to_request", "pages"] {
        let taken = GET_UNIT.replace(
            "    responses:",
            &format!("    query:\n      {name}: {{ type: string, doc: C. }}\n    responses:"),
        );
        let error = error_for(&spec(UNIT, &taken));
        let first = first_line(&error);
        assert!(
            first.starts_with("spec/t.yaml:23:7: error: parameter `")
                && first.contains("is named like the generated code's own"),
            "{name}: {first}"
        );
    }
    // `content_type` is taken only where the body is binary (its builder's own setter).
    let binary = GET_UNIT.replace(
        "    responses:",
        "    body: { type: binary }\n    query:\n      content_type: { type: string, doc: C. }\n    responses:",
    );
    assert!(
        first_line(&error_for(&spec(UNIT, &binary)))
            .contains("parameter `content_type` is named like the generated code's own"),
        "{}",
        error_for(&spec(UNIT, &binary))
    );
    let json_body = binary.replace("body: { type: binary }", "body: { type: Unit }");
    assert!(codegen::load_str("spec/t.yaml", &spec(UNIT, &json_body)).is_ok());
    let empty = UNIT.replace(
        "        id: {",
        "        \"-\": { type: string, doc: Dash. }\n        id: {",
    );
    assert_eq!(
        first_line(&error_for(&spec(&empty, GET_UNIT))),
        "spec/t.yaml:14:9: error: field `-` gives no identifier (``)"
    );
}

#[test]
fn a_range_on_a_number_is_refused() {
    let types = UNIT.replace(
        "required: true }",
        "required: true }\n        weight: { type: number, doc: Kg., min: 0 }",
    );
    assert_eq!(
        first_line(&error_for(&spec(&types, GET_UNIT))),
        "spec/t.yaml:15:48: error: `min` applies to integers, but field `weight` is `number`"
    );
}
