//! A malformed spec is refused with `file:line:col`, what is wrong and how to fix it;
//! never a panic. Each refusal is a case of one table: the spec, and the lines its
//! diagnostic begins with.

// Only the spec text: not the rest of `support` (servers, clients), which these do not use.
#[path = "support/spec_text.rs"]
mod spec_text;

use spec_text::*;

/// A refused spec and the whole lines its diagnostic begins with (the first problem's
/// place, message and help; a case may give the first line only).
struct Refused {
    case: &'static str,
    text: String,
    expected: String,
}

fn refused(case: &'static str, text: String, expected: impl Into<String>) -> Refused {
    Refused {
        case,
        text,
        expected: expected.into(),
    }
}

/// `GET_UNIT` with `query` parameters declared before its responses.
fn with_query(query: &str) -> String {
    GET_UNIT.replace(
        "    responses:",
        &format!("    query:\n{query}    responses:"),
    )
}

/// `UNIT` with `fields` after its `id`.
fn with_fields(fields: &str) -> String {
    UNIT.replace(
        "required: true }\n",
        &format!("required: true }}\n{fields}"),
    )
}

fn cases() -> Vec<Refused> {
    // `UNIT`, the types in `before`, and a union `Result` of `variants`.
    let union_of = |before: &str, variants: &str| {
        format!(
            "{UNIT}{before}  Result:\n    union:\n      doc: R.\n      tag: object\n      variants:\n{variants}"
        )
    };
    let mut cases = vec![
        refused(
            "YAML syntax",
            spec(UNIT, GET_UNIT).replace("method: GET", "method: GET: POST"),
            "spec/t.yaml:18:16: error: mapping values are not allowed in this context\n  \
             help: fix the YAML syntax at this place (indentation, quotes, brackets)",
        ),
        refused(
            "an unknown key",
            spec(
                &UNIT.replace("doc: A unit.", "doc: A unit.\n      colour: red"),
                GET_UNIT,
            ),
            "spec/t.yaml:13:7: error: unknown field `colour`, expected one of doc, fields, \
             envelope, one_of, not_shown, source\n  \
             help: remove the key or correct its spelling (spec/spec.schema.json describes every key)",
        ),
        refused(
            "an unknown type name",
            spec(UNIT, &GET_UNIT.replace("body: Unit", "body: Untit")),
            "spec/t.yaml:23:30: error: unknown type `Untit`\n  \
             help: did you mean `Unit`? Otherwise declare `Untit` under `types:` or use a builtin",
        ),
        refused(
            "an operation declared twice",
            spec(UNIT, &format!("{GET_UNIT}{GET_UNIT}")),
            "spec/t.yaml:24:3: error: operation `get_unit` is declared twice (first at 16:3)\n  \
             help: give each operation a unique name",
        ),
        refused(
            "two operations on one route",
            spec(
                UNIT,
                &format!(
                    "{GET_UNIT}{}",
                    GET_UNIT
                        .replace("get_unit:", "fetch_unit:")
                        .replace("{unit_id}", "{id}")
                        .replace("unit_id:", "id:")
                ),
            ),
            "spec/t.yaml:27:11: error: operation `fetch_unit` repeats GET /units/{id} of operation \
             `get_unit`\n  help: remove one of the two operations, or fix its method or path",
        ),
        // Another method on the same path is fine (see `accepted`), but not with its parameter
        // named otherwise: OpenAPI and the sandbox's router would take the two spellings for
        // two clashing paths.
        refused(
            "one path with two spellings of its parameter",
            spec(
                UNIT,
                &format!(
                    "{GET_UNIT}{}",
                    GET_UNIT
                        .replace("get_unit:", "update_unit:")
                        .replace("GET", "PATCH")
                        .replace("{unit_id}", "{id}")
                        .replace("unit_id:", "id:")
                ),
            ),
            "spec/t.yaml:27:11: error: operation `update_unit` writes the path /units/{} as \
             /units/{id}, where operation `get_unit` writes /units/{unit_id}\n  help: name its \
             parameters as `get_unit` does: `/units/{unit_id}` (OpenAPI and routers take the two \
             for different paths that clash)",
        ),
        refused(
            "a union variant that is not an object",
            spec(
                &union_of(
                    "  Kind:\n    enum: { doc: K., open: true, values: { a: A. } }\n",
                    "        unit: { shape: Unit, doc: U. }\n        kind: { shape: Kind, doc: K. }\n",
                ),
                GET_UNIT,
            ),
            "spec/t.yaml:23:24: error: variant `kind` of union `Result` has shape `Kind`, which is an \
             enum, not an object\n  \
             help: a union variant carries an object: declare an `object:` type for its shape",
        ),
        refused(
            "a discriminator value listed twice",
            spec(
                &union_of(
                    "",
                    "        unit: { shape: Unit, doc: U. }\n        unit: { shape: Unit, doc: Again. }\n",
                ),
                GET_UNIT,
            ),
            "spec/t.yaml:21:9: error: discriminator value `unit` is listed twice in union `Result` \
             (first at 20:9)\n  \
             help: each tag value selects one variant: remove one entry (several tag values may share \
             a shape, not the reverse)",
        ),
        refused(
            "a constraint on the wrong type",
            spec(
                &with_fields("        year: { type: integer, doc: Year., max_length: 4 }\n"),
                GET_UNIT,
            ),
            "spec/t.yaml:15:56: error: `max_length` applies to strings, but field `year` is `integer`\n  \
             help: remove it, or use `min`/`max` for a number's range",
        ),
        refused(
            "a range on a number",
            spec(
                &with_fields("        weight: { type: number, doc: Kg., min: 0 }\n"),
                GET_UNIT,
            ),
            "spec/t.yaml:15:48: error: `min` applies to integers, but field `weight` is `number`",
        ),
        refused(
            "a path parameter without a declaration",
            spec(
                UNIT,
                &GET_UNIT.replace(
                    "path: /units/{unit_id}",
                    "path: /units/{unit_id}/photos/{photo_id}",
                ),
            ),
            "spec/t.yaml:19:11: error: path parameter `{photo_id}` of operation `get_unit` has no \
             entry under `path_params`\n  \
             help: add `photo_id: { type: string, doc: ... }` under `path_params`, or fix the \
             placeholder's spelling",
        ),
        refused(
            "a declared path parameter missing from the path",
            spec(
                UNIT,
                &GET_UNIT.replace("path: /units/{unit_id}", "path: /units"),
            ),
            "spec/t.yaml:21:7: error: path parameter `unit_id` does not appear in path `/units`\n  \
             help: add `{unit_id}` to the path, or remove the parameter",
        ),
        refused(
            "a type declared twice",
            spec(&format!("{UNIT}{UNIT}"), GET_UNIT),
            "spec/t.yaml:15:3: error: type `Unit` is declared twice (first at 10:3)",
        ),
        refused(
            "a field listed twice",
            spec(
                &with_fields("        id: { type: string, doc: Again. }\n"),
                GET_UNIT,
            ),
            "spec/t.yaml:15:9: error: field `id` is listed twice in this object (first at 14:9)",
        ),
        refused(
            "an enum value listed twice",
            spec(
                &format!(
                    "{UNIT}  Kind:\n    enum: {{ doc: K., open: false, values: {{ a: A., a: Again. }} }}\n"
                ),
                GET_UNIT,
            ),
            "spec/t.yaml:16:52: error: value `a` is listed twice in this enum (first at 16:45)",
        ),
        refused(
            "a union shape that repeats the tag",
            spec(
                &union_of("", "        unit: { shape: Unit, doc: U. }\n")
                    .replace("tag: object", "tag: id"),
                GET_UNIT,
            ),
            "spec/t.yaml:20:24: error: shape `Unit` declares the union's tag `id` as a field",
        ),
        refused(
            "a page outside a response",
            spec(
                &UNIT.replace("type: string, doc: Id.", "type: \"page<Unit>\", doc: Id."),
                GET_UNIT,
            ),
            "spec/t.yaml:14:21: error: `page<T>` is only allowed as a whole response body",
        ),
        refused(
            "a status out of range",
            spec(UNIT, &GET_UNIT.replace("status: 200", "status: 700")),
            "spec/t.yaml:23:19: error: `700` is not an HTTP status",
        ),
        refused(
            "fields that collide as identifiers",
            spec(
                &with_fields(
                    "        referenceNumber: { type: string, doc: A. }\n        reference_number: { type: string, doc: B. }\n",
                ),
                GET_UNIT,
            ),
            "spec/t.yaml:16:9: error: fields `referenceNumber` and `reference_number` both become `reference_number`",
        ),
        refused(
            "a field that gives no identifier",
            spec(
                &UNIT.replace(
                    "        id: {",
                    "        \"-\": { type: string, doc: Dash. }\n        id: {",
                ),
                GET_UNIT,
            ),
            "spec/t.yaml:14:9: error: field `-` gives no identifier (``)",
        ),
        refused(
            "a parameter named like the generated code's `core`",
            spec(UNIT, &with_query("      core: { type: string, doc: C. }\n")),
            "spec/t.yaml:23:7: error: parameter `core` is named like the generated code's own `core`",
        ),
        // `content_type` is taken only where the body is binary (its builder's own setter).
        refused(
            "a parameter named like a binary body's `content_type` setter",
            spec(
                UNIT,
                &with_query("      content_type: { type: string, doc: C. }\n")
                    .replace("    query:", "    body: { type: binary }\n    query:"),
            ),
            "spec/t.yaml:24:7: error: parameter `content_type` is named like the generated code's own `content_type`",
        ),
    ];
    // Every builder method counts, in any case style (`sendStream` would be `send_stream`).
    for (name, own) in [
        ("send", "send"),
        ("sendStream", "send_stream"),
        ("pdf_to", "pdf_to"),
        ("to_request", "to_request"),
        ("pages", "pages"),
    ] {
        cases.push(refused(
            "a parameter named like a builder method",
            spec(UNIT, &with_query(&format!("      {name}: {{ type: string, doc: C. }}\n"))),
            format!("spec/t.yaml:23:7: error: parameter `{name}` is named like the generated code's own `{own}`"),
        ));
    }
    cases
}

#[test]
fn each_refused_spec_gets_its_diagnostic() {
    let mut failures = Vec::new();
    for Refused {
        case,
        text,
        expected,
    } in cases()
    {
        let message = match codegen::load_str("spec/t.yaml", &text) {
            Ok(_) => {
                failures.push(format!("{case}: the spec was accepted"));
                continue;
            }
            Err(diagnostics) => diagnostics.to_string(),
        };
        if message != expected && !message.starts_with(&format!("{expected}\n")) {
            failures.push(format!(
                "{case}:\n  expected {expected:?}\n  got      {message:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Specs next to the refused ones that are fine: the base, another method on a path in
/// its spelling, `content_type` beside a JSON body.
#[test]
fn their_valid_neighbours_are_accepted() {
    let api = codegen::load_str("spec/t.yaml", &spec(UNIT, GET_UNIT)).unwrap();
    assert_eq!((api.types.len(), api.operations.len()), (1, 1));
    let patch = GET_UNIT
        .replace("get_unit:", "update_unit:")
        .replace("GET", "PATCH");
    let json_body = with_query("      content_type: { type: string, doc: C. }\n")
        .replace("    query:", "    body: { type: Unit }\n    query:");
    for text in [
        spec(UNIT, &format!("{GET_UNIT}{patch}")),
        spec(UNIT, &json_body),
    ] {
        if let Err(e) = codegen::load_str("spec/t.yaml", &text) {
            panic!("{e}\nfor the spec:\n{text}");
        }
    }
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
