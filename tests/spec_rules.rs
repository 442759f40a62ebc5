//! The generator's rules one case each (what `check` refuses, and the message it gives),
//! what a fuzzer found, and that whatever is accepted also generates.

// Only the spec text: not the rest of `support` (servers, clients), which these do not use.
#[path = "support/spec_text.rs"]
mod spec_text;

use spec_text::*;

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

/// Every other check of `codegen/src/check/`, one case each: what it refuses and the message it gives.
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
        // A cargo feature of the crate already (`secrecy = [...]` twice would not parse).
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: secrecy\n"), "interface name `secrecy` cannot name a module in rust"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: lambda\n"), "interface name `lambda` cannot name a module in python"),
        // `sync status DATABASE` would be taken for an interface's sync.
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: status\n"), "interface name `status` cannot name a module in cli"),
        (spec(UNIT, GET_UNIT).replace("  name: t\n", "  name: 3d\n"), "interface name `3d` does not start with a letter"),
        (
            with_interface("  webhooks: { doc: D., event: Unit }\n", GET_UNIT),
            "the webhook event `Unit` is an object, not a union",
        ),
        (
            with_interface("  webhooks: { doc: D., event: Evnt }\n", GET_UNIT),
            "unknown type `Evnt`",
        ),
        (
            with_interface("  export: { doc: D., list: get_unit, since: after, watermark: at }\n", GET_UNIT),
            "the export list `get_unit` must be paged and take no required input",
        ),
        (
            with_interface("  export: { doc: D., list: list_units, since: after, watermark: at }\n", GET_UNIT),
            "`list_units` is no operation of this interface",
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
            "a value of an open enum cannot be named `unknown`",
        ),
        // Names the generated code introduces: a union's catch-all member, a one_of's
        // types (its enum, and a struct per variant in Rust).
        (
            with_types("  R:\n    union: { doc: R., tag: kind, variants: { unknown: { shape: Unit, doc: U. } } }\n"),
            "a union member cannot be named `unknown`",
        ),
        (
            with_types("  R:\n    union: { doc: R., tag: kind, variants: { a_b: { shape: Unit, doc: U. }, aB: { shape: Unit, doc: U. } } }\n"),
            "union members `a_b` and `aB` map to the same identifier `AB`",
        ),
        (
            spec(UNIT, &GET_UNIT.replace("  get_unit:", "  auth_check:")),
            "operation name `auth_check` is one the cli output uses itself",
        ),
        (
            spec(UNIT, GET_UNIT).replace("headers: { k: { doc: Key. } }", "headers: { _: { doc: Key. } }"),
            "key header `_` gives no identifier (``)",
        ),
        (
            with_types("  T:\n    object:\n      doc: T.\n      one_of:\n        name: who\n        type_name: Unit\n        doc: W.\n        variants:\n          user: { doc: U., fields: { u: { type: string, doc: U., required: true } } }\n          team: { doc: T., fields: { t: { type: string, doc: T., required: true } } }\n"),
            "the one_of type name `Unit` is also a declared type",
        ),
        (
            with_types(&format!("{}{}", "  T:\n    object:\n      doc: T.\n      one_of:\n        name: who\n        type_name: Who\n        doc: W.\n        variants:\n          user: { doc: U., fields: { u: { type: string, doc: U., required: true } } }\n          team: { doc: T., fields: { t: { type: string, doc: T., required: true } } }\n", "  S:\n    object:\n      doc: T.\n      one_of:\n        name: who\n        type_name: Who\n        doc: W.\n        variants:\n          user: { doc: U., fields: { u: { type: string, doc: U., required: true } } }\n          team: { doc: T., fields: { t: { type: string, doc: T., required: true } } }\n")),
            "the one_of type name `Who` is also the one_of `who` at 20:20",
        ),
        (
            with_types(&format!("{}  WhoUser:\n    object: {{ doc: W., fields: {{ x: {{ type: string, doc: X. }} }} }}\n", "  T:\n    object:\n      doc: T.\n      one_of:\n        name: who\n        type_name: Who\n        doc: W.\n        variants:\n          user: { doc: U., fields: { u: { type: string, doc: U., required: true } } }\n          team: { doc: T., fields: { t: { type: string, doc: T., required: true } } }\n")),
            "the one_of `who` gives the rust type `WhoUser` for a variant, which is also a declared type",
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
            spec(UNIT, &GET_UNIT.replace(
                "    responses:",
                "    body: { type: binary, content_type: text/plain, optional: true }\n    responses:",
            )),
            "a `text/plain` body cannot be optional",
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

/// The export's every reference is checked on the real spec, each at its own line.
#[test]
fn an_export_names_a_date_filter_a_date_field_and_a_document_operation() {
    let v3 = include_str!("../spec/v3.yaml");
    let export_line = |key: &str| {
        v3.lines()
            .position(|l| l.trim_start().starts_with(&format!("{key}: ")) && l.starts_with("    "))
            .map(|n| n + 1)
    };
    let cases = [
        (
            "since: created_after",
            "since: department_name",
            "`department_name` is no date-time query parameter of `list_inspections`",
        ),
        (
            "watermark: created_at",
            "watermark: type",
            "the records of `list_inspections` have no date-time field `type`",
        ),
        (
            "document: get_inspection",
            "document: get_unit",
            "the export document `get_unit` must take the record's id as its one input and answer bytes",
        ),
    ];
    for (from, to, expected) in cases {
        let key = from.split(':').next().unwrap();
        let text = v3.replacen(&format!("    {from}\n"), &format!("    {to}\n"), 1);
        assert_ne!(text, v3, "`{from}` is not in spec/v3.yaml's export");
        let all = codegen::load_str("spec/v3.yaml", &text)
            .unwrap_err()
            .to_string();
        let line = export_line(key).unwrap();
        assert!(
            all.starts_with(&format!("spec/v3.yaml:{line}:")) && all.contains(expected),
            "{from} -> {to}: {all}"
        );
    }
}

/// The export's document link: a url field of the records, a lifetime, no credentials,
/// and the document operation to fall back on; each refusal at its own line and column.
#[test]
fn a_document_link_names_a_url_field_a_lifetime_and_no_credentials() {
    let v3 = include_str!("../spec/v3.yaml");
    let place_in = |text: &str, line: &str| {
        let n = text.lines().position(|l| l == line).unwrap() + 1;
        let column = line.find(':').unwrap() + 3;
        format!("spec/v3.yaml:{n}:{column}")
    };
    let cases = [
        (
            "      field: pdf_share_url",
            "      field: damage_present",
            "the exported records have no url field `damage_present`",
        ),
        (
            "      lifetime: 48 hours",
            "      lifetime: 2 weeks",
            "`2 weeks` is not a lifetime",
        ),
        (
            "      credentials: none",
            "      credentials: api-key",
            "`credentials: api-key`: a document link is fetched with no credential",
        ),
    ];
    for (from, to, expected) in cases {
        let text = v3.replacen(&format!("{from}\n"), &format!("{to}\n"), 1);
        assert_ne!(text, v3, "`{from}` is not in spec/v3.yaml's export");
        let all = codegen::load_str("spec/v3.yaml", &text)
            .unwrap_err()
            .to_string();
        assert!(
            all.starts_with(&format!("{}:", place_in(v3, from))) && all.contains(expected),
            "{from} -> {to}: {all}"
        );
    }
    // Without the document operation a failed link has nowhere to fall back to.
    let text = v3.replacen("    document: get_inspection\n", "", 1);
    let all = codegen::load_str("spec/v3.yaml", &text)
        .unwrap_err()
        .to_string();
    assert!(
        all.starts_with(&format!(
            "{}:",
            place_in(&text, "      field: pdf_share_url")
        )) && all.contains("a document link needs the export's `document` operation"),
        "{all}"
    );
}

/// Every paged list's page size allows the paging section's `max_per_page`, no other:
/// a list whose page size says otherwise is refused at its type.
#[test]
fn a_page_size_allows_the_paging_sections_maximum() {
    let v3 = include_str!("../spec/v3.yaml");
    let from = "      per_page:\n        type: PageSize\n";
    let at = v3.find(from).expect("a per_page of type PageSize") + from.find("PageSize").unwrap();
    let line = v3[..at].lines().count();
    let column = at - v3[..at].rfind('\n').unwrap();
    let text = v3.replacen(from, "      per_page:\n        type: int32\n", 1);
    let all = codegen::load_str("spec/v3.yaml", &text)
        .unwrap_err()
        .to_string();
    assert!(
        all.starts_with(&format!("spec/v3.yaml:{line}:{column}:"))
            && all.contains("allows no maximum, but the paging section's `max_per_page` is 100"),
        "{all}"
    );
}

/// A named scalar: its limits once, taken by every field whose type names it; misuse is
/// refused where it is written.
#[test]
fn a_named_scalar_gives_its_fields_its_limits_and_is_written_once() {
    let scalars = "scalars:\n  Vin:\n    type: string\n    doc: A VIN.\n    length: 17\n    chars: { allow: ascii_alphanumeric, forbid: IOQ }\n";
    let with = |scalars: &str, field: &str| {
        let unit = UNIT.replace(
            "        id: { type: string, doc: Id., required: true }\n",
            &format!("        id: {{ type: string, doc: Id., required: true }}\n{field}"),
        );
        spec(&unit, GET_UNIT).replacen("types:\n", &format!("{scalars}types:\n"), 1)
    };
    // The field's type is the scalar's builtin, with its limits.
    let named = codegen::load_str(
        "spec/t.yaml",
        &with(scalars, "        vin: { type: Vin, doc: V. }\n"),
    )
    .unwrap();
    let inline = codegen::load_str(
        "spec/t.yaml",
        &with("", "        vin: { type: string, doc: V., length: 17, chars: { allow: ascii_alphanumeric, forbid: IOQ } }\n"),
    )
    .unwrap();
    let field = |i: &codegen::ir::Interface| match &i.types[0].kind {
        codegen::ir::TypeKind::Object(o) => serde_json::to_value(&o.fields[1]).unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(field(&named), field(&inline));

    let refused = [
        (
            with(scalars, "        vin: { type: Vin, doc: V., length: 17 }\n"),
            "`length` is the scalar `Vin`'s already",
        ),
        (
            with(scalars, "        vins: { type: \"array<Vin>\", doc: V. }\n"),
            "the scalar `Vin` can only be a field's whole type",
        ),
        (
            with(
                "scalars:\n  Flag: { type: boolean, doc: F., max_length: 1 }\n",
                "",
            ),
            "the scalar `Flag` is a `boolean`, which takes no limits",
        ),
        (
            with(
                "scalars:\n  Unit: { type: string, doc: U., max_length: 5 }\n",
                "",
            ),
            "`Unit` is declared under `types:` too",
        ),
        (
            with(
                "scalars:\n  vin: { type: string, doc: U., max_length: 5 }\n",
                "",
            ),
            "scalar name `vin` is not UpperCamelCase",
        ),
    ];
    for (text, expected) in refused {
        assert_eq!(first_message(&text), expected, "for the spec:\n{text}");
    }
}

/// The import's every reference is checked on the real spec, each at its own line and
/// column: the operation and its body, the key's columns, a find only where a row is not
/// safe to send again, the find's list, filter and fields.
#[test]
fn an_import_names_operations_with_a_body_key_columns_and_a_find_that_fits() {
    let v3 = include_str!("../spec/v3.yaml");
    let cases = [
        (
            "        operation: upsert_unit_by_reference_number\n",
            "        operation: list_units\n",
            "`list_units` takes no JSON body of an object",
        ),
        (
            "        operation: update_unit_by_reference_number\n",
            "        operation: update_units\n",
            "`update_units` is no operation of this interface",
        ),
        (
            "        key: [reference_number]\n",
            "        key: [serial]\n",
            "the key's `serial` is not a column of the target, or is named twice",
        ),
        (
            "      - name: unit_updates\n",
            "      - name: Unit-Updates\n",
            "`Unit-Updates` cannot be a command's name",
        ),
        (
            "          since: created_after\n          match:\n",
            "          since: department_id\n          match:\n",
            "`department_id` is no date-time query parameter of `list_tasks`",
        ),
        (
            "            reference_number: unit.reference_number\n",
            "            reference_number: unit.number\n",
            "the records of `list_tasks` have no field `unit.number`",
        ),
        (
            "            due_by: due_by\n",
            "            due: due_by\n",
            "`due` is not a column of the target",
        ),
        (
            "        key: [name, reference_number, due_by, assignee_username, location_id, user_group_id]\n",
            "        key: [name, reference_number, due_by, assignee_username, location_id, user_group_id]\n        idempotent: true\n",
            "`tasks` is sent again safely, so nothing needs finding",
        ),
    ];
    for (from, to, expected) in cases {
        assert!(
            v3.contains(from),
            "`{from}` is not in spec/v3.yaml's import"
        );
        let (mut text, mut index) = (String::new(), 0);
        for (n, (i, _)) in v3.match_indices(from).enumerate() {
            text.push_str(&v3[index..i]);
            // The last of them: the import's own (units and unit_updates share a key).
            text.push_str(if n == v3.matches(from).count() - 1 {
                to
            } else {
                from
            });
            index = i + from.len();
        }
        text.push_str(&v3[index..]);
        let all = codegen::load_str("spec/v3.yaml", &text)
            .unwrap_err()
            .to_string();
        assert!(all.contains(expected), "{from} -> {to}: {all}");
        let first = all.lines().next().unwrap();
        let place: Vec<&str> = first.splitn(4, ':').collect();
        let line: usize = place[1].parse().unwrap();
        assert!(
            text.lines().nth(line - 1).is_some_and(|l| {
                let word = to
                    .split(':')
                    .next()
                    .unwrap()
                    .trim()
                    .trim_start_matches("- ");
                l.contains(word) || l.contains("find") || l.contains("list:")
            }),
            "{from} -> {to}: {first} points at `{}`",
            text.lines().nth(line - 1).unwrap_or_default()
        );
    }
}
