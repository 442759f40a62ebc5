//! A malformed spec is refused with `file:line:col`, what is wrong and how to fix it;
//! never a panic.

/// A small valid spec; `types` and `operations` are spliced in at fixed lines (types start
/// on line 10, operations right after them).
fn spec(types: &str, operations: &str) -> String {
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

const UNIT: &str = "  Unit:
    object:
      doc: A unit.
      fields:
        id: { type: string, doc: Id., required: true }
";

const GET_UNIT: &str = "  get_unit:
    doc: Get.
    method: GET
    path: /units/{unit_id}
    path_params:
      unit_id: { type: string, doc: Id., required: true }
    responses:
      - { status: 200, body: Unit, doc: The unit. }
";

fn error_for(text: &str) -> String {
    match codegen::load_str("spec/t.yaml", text) {
        Ok(_) => panic!("the spec was accepted:\n{text}"),
        Err(diagnostics) => diagnostics.to_string(),
    }
}

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

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
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

/// Whatever is accepted also generates: no spec makes the generator panic.
#[test]
fn accepted_specs_always_generate() {
    let odd = [
        spec(UNIT, GET_UNIT),
        spec(&UNIT.replace("        id: {", "        \"3d\": { type: string, doc: D. }\n        type: { type: string, doc: T. }\n        id: {"), GET_UNIT),
        spec(&format!("{UNIT}  E:\n    enum: {{ doc: E., open: true, values: {{ \"3d\": D., self: S. }} }}\n"), GET_UNIT),
    ];
    for text in odd {
        let interface = codegen::load_str("spec/t.yaml", &text).unwrap();
        let api = codegen::ir::Api::new(vec![interface]);
        codegen::generate(&api).unwrap();
    }
}

/// The message of the first problem, and that it points at a real place.
fn first_message(text: &str) -> String {
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

/// Every other check of `check.rs`, one case each: what it refuses and the message it gives.
#[test]
fn every_other_check_names_the_problem() {
    let with_types = |extra: &str| spec(&format!("{UNIT}{extra}"), GET_UNIT);
    let with_interface = |extra: &str, ops: &str| {
        spec(UNIT, ops).replace(
            "  versioning: One version.\n",
            &format!("{extra}  versioning: One version.\n"),
        )
    };
    let paginated = GET_UNIT.replace("    responses:", "    paginated: true\n    responses:");
    let cases: Vec<(String, &str)> = vec![
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: Test\n"), "interface name `Test` is not snake_case"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: class\n"), "interface name `class` cannot name a module in typescript"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: runtime\n"), "interface name `runtime` cannot name a module in rust"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: lib\n"), "interface name `lib` cannot name a module in rust"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: lambda\n"), "interface name `lambda` cannot name a module in python"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: 3d\n"), "interface name `3d` does not start with a letter"),
        (
            with_interface("  webhooks: { doc: D., event: Unit }\n", GET_UNIT),
            "the webhook event `Unit` is an object, not a union",
        ),
        (
            with_interface("  webhooks: { doc: D., event: Evnt }\n", GET_UNIT),
            "unknown type `Evnt`",
        ),
        (with_types("  url:\n    id: { doc: X. }\n"), "type name `url` is a builtin type"),
        (with_types("  unit_kind:\n    id: { doc: X. }\n"), "type name `unit_kind` is not UpperCamelCase"),
        (with_types("  3d:\n    id: { doc: X. }\n"), "type name `3d` does not start with a letter"),
        (with_types("  V:\n    scalar_union: { doc: V., of: [string] }\n"), "scalar union `V` needs at least two kinds"),
        (with_types("  V:\n    scalar_union: { doc: V., of: [string, string] }\n"), "`string` is listed twice in `of`"),
        (
            with_types("  T:\n    object:\n      doc: T.\n      one_of:\n        name: who\n        type_name: Who\n        doc: W.\n        variants:\n          user: { doc: U., fields: { u: { type: string, doc: U., required: true } } }\n"),
            "a one_of needs at least two variants",
        ),
        (
            with_types("  E:\n    enum: { doc: E., open: false, values: { a_b: A., aB: B. } }\n"),
            "enum values `a_b` and `aB` map to the same identifier `AB`",
        ),
        (
            with_types("  E:\n    enum: { doc: E., open: true, values: { unknown: U. } }\n"),
            "an open enum cannot have a value named `unknown`",
        ),
        (
            with_types("  R1:\n    union: { doc: R., tag: kind, variants: { u: { shape: Unit, doc: U. } } }\n  R2:\n    union: { doc: R., tag: kind, variants: { u: { shape: Unit, doc: U. } } }\n"),
            "shape `Unit` is used by unions `R1` and `R2`",
        ),
        (
            with_types("  R:\n    union: { doc: R., tag: kind, common_fields: { id: { type: string, doc: I. } }, variants: { u: { shape: Unit, doc: U. } } }\n"),
            "shape `Unit` repeats the common field `id` of union `R`",
        ),
        (with_types("  R:\n    union: { doc: R., tag: kind, variants: {} }\n"), "union `R` has no variants"),
        (
            with_types("  N:\n    object: { doc: N., fields: { n: { type: integer, doc: N., min: 5, max: 1 } } }\n"),
            "`min` 5 is greater than `max` 1 on field `n`",
        ),
        (
            with_types("  N:\n    object: { doc: N., fields: { n: { type: \"json<Unit>\", doc: N. } } }\n"),
            "`json<T>` is only allowed as a whole query parameter type",
        ),
        (
            with_types("  N:\n    object: { doc: N., fields: { n: { type: binary, doc: N. } } }\n"),
            "`binary` is only a whole request or response body",
        ),
        (
            with_types("  R:\n    record_ref: { doc: R., id_type: Unit }\n"),
            "`id_type` of `R` is `Unit`, which is an object, not an id",
        ),
        (spec(UNIT, &GET_UNIT.replace("get_unit:", "getUnit:")), "operation name `getUnit` is not snake_case"),
        (
            spec(UNIT, &GET_UNIT.replace("path: /units/{unit_id}", "path: units/{unit_id}")),
            "path `units/{unit_id}` does not start with `/`",
        ),
        (
            spec(UNIT, &GET_UNIT.replace("path: /units/{unit_id}", "path: \"/units/{unit_id\"")),
            "path `/units/{unit_id` is malformed: a `{` is never closed",
        ),
        (spec(UNIT, &paginated), "operation `get_unit` is paginated, but the interface declares no `pagination`"),
        (
            spec(UNIT, &GET_UNIT.replace("    responses:", "    errors: { \"abc\": Nope. }\n    responses:")),
            "`abc` is not an HTTP status",
        ),
        (
            spec(UNIT, GET_UNIT).replace(
                "    api_key_headers: { doc: Keys., unauthorized_status: 401, headers: { k: { doc: Key. } } }",
                "    token_login: { doc: D., login_operation: log_in, token_field: t, header: Authorization, scheme: Token }",
            ),
            "login operation `log_in` is not declared",
        ),
        (
            with_interface(
                "  pagination:\n    cursor: { doc: P., page_param: page, per_page_param: n, max_per_page: 9, items_field: data, paging_field: paging, paging_type: Unit, next_url_field: next }\n",
                GET_UNIT,
            ),
            "paging type `Unit` has no field `next`",
        ),
        (
            with_interface(
                "  pagination:\n    links: { doc: P., links_field: links, after_param: a, before_param: b, limit_param: l, max_limit: 9 }\n",
                &paginated,
            ),
            "links-paginated operation `get_unit` names no `items_field`",
        ),
        (
            spec(&format!("{UNIT}  K:\n    enum: {{ doc: K., open: true, values: {{ a: A. }} }}\n"), GET_UNIT).replace(
                "  versioning: One version.\n",
                "  pagination:\n    cursor: { doc: P., page_param: page, per_page_param: n, max_per_page: 9, items_field: data, paging_field: paging, paging_type: K }\n  versioning: One version.\n",
            ),
            "paging type `K` is an enum, not an object",
        ),
        (
            with_types("  T:\n    object:\n      doc: T.\n      fields: { u: { type: string, doc: U. } }\n      one_of:\n        name: who\n        type_name: Who\n        doc: W.\n        variants:\n          a: { doc: A., fields: { u: { type: string, doc: U., required: true } } }\n          b: { doc: B., fields: { v: { type: string, doc: V., required: true } } }\n"),
            "field `u` is declared twice in this object",
        ),
        (
            spec(UNIT, &GET_UNIT.replace("body: Unit", "body: \"array<Unit\"")),
            "`array<Unit` is not a type expression: `array<` is never closed with `>`",
        ),
        (
            with_interface(
                "  pagination:\n    cursor: { doc: P., page_param: page, per_page_param: n, max_per_page: 9, items_field: data, paging_field: paging, paging_type: Unit }\n",
                &paginated,
            ),
            "operation `get_unit` is paginated but no response is a `page<T>`",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(first_message(&text), expected, "for the spec:\n{text}");
    }
}

#[test]
fn a_collision_is_reported_once() {
    let ops = GET_UNIT.replace(
        "    responses:",
        "    query:\n      referenceNumber: { type: string, doc: A. }\n      reference_number: { type: string, doc: B. }\n    responses:",
    );
    let message = error_for(&spec(UNIT, &ops));
    assert_eq!(message.matches(": error: ").count(), 1, "{message}");
}

/// Inputs a fuzzer finds: a type nested thousands deep is refused at its place (never a
/// stack overflow), and a name of 200,000 characters is reported quickly and shown clipped.
#[test]
fn pathological_type_expressions_get_a_clear_diagnostic() {
    let deep = format!("{}Unit{}", "array<".repeat(5000), ">".repeat(5000));
    let text = spec(
        &format!(
            "{UNIT}  N:\n    object: {{ doc: N., fields: {{ n: {{ type: \"{deep}\", doc: N. }} }} }}\n"
        ),
        GET_UNIT,
    );
    let message = error_for(&text);
    assert!(message.starts_with("spec/t.yaml:"), "{message}");
    assert!(message.contains("nests deeper than 16 levels"), "{message}");
    assert!(
        message.len() < 1_000,
        "the message shows the expression clipped"
    );

    let long = "A".repeat(200_000);
    let text = spec(
        &format!(
            "{UNIT}  N:\n    object: {{ doc: N., fields: {{ n: {{ type: {long}, doc: N. }} }} }}\n"
        ),
        GET_UNIT,
    );
    let message = error_for(&text);
    assert!(
        message.contains("unknown type `AAAA") && message.contains("(200000 characters)"),
        "{}",
        &message[..200]
    );
    assert!(message.len() < 2_000);
}

/// A repeated key of a record is reported where it repeats, never at 0:0.
#[test]
fn a_repeated_top_level_key_has_its_place() {
    let text = format!(
        "{}types:\n  Other:\n    id: {{ doc: X. }}\n",
        spec(UNIT, GET_UNIT)
    );
    let line = text.lines().count() - 2;
    let message = error_for(&text);
    assert!(
        message.starts_with(&format!(
            "spec/t.yaml:{line}:1: error: duplicate field `types`"
        )),
        "{message}"
    );
}

/// Found by the fuzzer: a login whose answer lacks the token field was accepted, and the
/// clients had no token to read.
#[test]
fn a_login_must_answer_its_token_field() {
    let legacy = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/legacy.yaml"),
    )
    .unwrap();
    let text = legacy.replacen("token_field: auth_token", "token_field: token", 1);
    let message = error_for(&text);
    assert!(
        message.contains(
            "error: login operation `authenticate` must take a body and answer a record with the field `token`"
        ),
        "{message}"
    );
}

/// A header name with a space or a colon could not be sent (the Rust client would fail
/// when it is built): refused where it is written.
#[test]
fn a_header_name_that_is_not_a_token_is_refused() {
    for bad in ["\"api key\"", "\"x:y\"", "\"\""] {
        let text =
            spec(UNIT, GET_UNIT).replace("headers: { k: {", &format!("headers: {{ {bad}: {{"));
        let err = error_for(&text);
        assert!(err.starts_with("spec/t.yaml:7:"), "{bad}: {err}");
        assert!(err.contains("header `"), "{bad}: {err}");
        assert!(err.contains("RFC 9110"), "{bad}: {err}");
    }
    // Every token character is fine.
    let text = spec(UNIT, GET_UNIT).replace("headers: { k: {", "headers: { \"X-Api_Key.2~!\": {");
    assert!(codegen::load_str("spec/t.yaml", &text).is_ok());
}

#[test]
fn an_envelope_names_its_only_field_which_holds_a_record() {
    let wrapper = |fields: &str| {
        format!(
            "{UNIT}  UnitResponse:
    object:
      doc: A wrapped unit.
      envelope: unit
      fields:
{fields}"
        )
    };
    let missing = wrapper("        other: { type: Unit, doc: U., required: true }\n");
    assert_eq!(
        error_for(&spec(&missing, GET_UNIT)),
        "spec/t.yaml:18:17: error: `envelope` names `unit`, which is not a field of this object\n  \
         help: name the field that holds the record"
    );
    let scalar = wrapper("        unit: { type: string, doc: U., required: true }\n");
    assert!(
        error_for(&spec(&scalar, GET_UNIT))
            .contains("the envelope field `unit` is `string`, not an object"),
        "{}",
        error_for(&spec(&scalar, GET_UNIT))
    );
    let two = wrapper(
        "        unit: { type: Unit, doc: U., required: true }\n        note: { type: string, doc: N. }\n",
    );
    assert!(
        error_for(&spec(&two, GET_UNIT)).contains("an envelope object holds only its record field")
    );
    let optional = wrapper("        unit: { type: Unit, doc: U. }\n");
    assert!(error_for(&spec(&optional, GET_UNIT)).contains("must be required and not nullable"));
}
