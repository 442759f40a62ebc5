//! The walk's cases: a conforming body, each problem by its path, whole floats, one-of
//! groups, query parameters. (Every builtin is placed by an exhaustive match in the walk.)

use serde_json::json;

use super::*;

/// A field of the IR, as JSON, its other keys empty.
fn field(name: &str, ty: Value, required: bool, nullable: bool) -> Value {
    json!({
        "name": name, "doc": "", "ty": ty, "required": required, "nullable": nullable,
        "sensitive": false, "constraints": {}, "source": "seed",
    })
}

/// A declared type of the IR, as JSON.
fn declared(kind: Value) -> Value {
    json!({ "name": "T", "doc": "", "kind": kind, "usage": { "request": true, "response": false } })
}

/// An interface of one request type: `Body` (0), with the kinds the walk knows.
fn interface() -> Interface {
    let object = |fields: Vec<Value>, one_of: Value| {
        declared(json!({ "object": { "fields": fields, "one_of": one_of, "source": "seed" } }))
    };
    let one_of = |variants: Vec<Value>| json!({ "name": "who", "type_name": "Who", "doc": "", "variants": variants });
    let assignee = |name: &str| json!({ "name": name, "doc": "", "fields": [field(name, json!({"builtin": "integer"}), true, false)] });
    serde_json::from_value(json!({
        "name": "test", "title": "", "doc": "", "source_file": "", "versioning": "",
        "base_url": { "placeholder": "", "example": "", "doc": "" },
        "auth": { "kind": "api_key_headers", "doc": "", "headers": [], "unauthorized_status": 401 },
        "errors": [], "headers": [], "limits": [], "not_shown": [],
        "operations": [],
        "types": [
            object(
                vec![
                    field("name", json!({"builtin": "string"}), true, false),
                    field("hours", json!({"builtin": "int32"}), false, false),
                    field("note", json!({"builtin": "string"}), false, true),
                    field("data", json!({"map": {"builtin": "json"}}), false, false),
                    field("parts", json!({"array": {"named": 1}}), false, false),
                    field("status", json!({"named": 2}), false, false),
                    field("owner", json!({"named": 3}), false, false),
                    field("when", json!({"builtin": "date-time-or-range"}), false, false),
                    field("due", json!({"builtin": "date-time"}), false, false),
                    field("on", json!({"builtin": "date-or-date-time"}), false, false),
                    field("workflow_id", json!({"named": 4}), false, false),
                ],
                one_of(vec![assignee("user_id"), assignee("group_id")]),
            ),
            object(vec![field("etag", json!({"builtin": "string"}), true, false)], Value::Null),
            declared(json!({ "enum": { "open": true, "values": [{"wire": "idle", "doc": ""}, {"wire": "done", "doc": ""}] } })),
            declared(json!({ "id": { "max_length": 255, "accepts_integers": true } })),
            declared(json!({ "id": { "max_length": 255 } })),
        ],
    }))
    .unwrap()
}

fn walk(style: PathStyle, mut value: Value) -> (Vec<String>, Value) {
    let outcome = check(&interface(), style, &TypeRef::Named(TypeId(0)), &mut value);
    (outcome.problems, value)
}

#[test]
fn a_conforming_body_passes_unknown_properties_and_all() {
    let body = json!({
        "name": "a", "user_id": 1, "note": null, "data": {"x": null, "y": [1]},
        "parts": [{"etag": "e", "later": true}], "status": "done", "owner": 7, "workflow_id": "7",
        "when": ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"], "not_in_the_spec": {"a": 1},
    });
    let (problems, after) = walk(PathStyle::Dotted, body.clone());
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(after, body, "nothing rewritten, nothing dropped");
}

/// A date is held to its format in a body as in a query: a handler stores and answers it
/// back as sent, so text that is no date would come back where the spec promises one.
#[test]
fn dates_in_a_body_are_of_their_format() {
    let good = json!({
        "name": "a", "user_id": 1, "due": "2026-01-01T10:00:00+02:00", "on": "2026-01-01",
        "when": "2026-01-01T00:00:00Z",
    });
    assert_eq!(walk(PathStyle::Dotted, good).0, Vec::<String>::new());
    let bad = json!({
        "name": "a", "user_id": 1, "due": "soon", "on": "2026-13-01",
        "when": ["2026-01-01T00:00:00Z", "later"],
    });
    let (mut problems, _) = walk(PathStyle::Dotted, bad);
    problems.sort();
    assert_eq!(
        problems,
        [
            "due: `soon` is not a date-time",
            "on: `2026-13-01` is not a date-or-date-time",
            "when: `later` is not a date-time",
        ]
    );
}

#[test]
fn every_problem_is_named_by_its_path() {
    let body = json!({
        "hours": "5", "note": 3, "data": "x", "parts": [{"etag": null}, 4],
        "status": "snoozed", "owner": true, "when": ["2026-01-01T00:00:00Z"], "user_id": null,
        "workflow_id": 7,
    });
    let (problems, _) = walk(PathStyle::Dotted, body);
    assert_eq!(
        problems,
        [
            "name: is required",
            "hours: expected an integer, got a string",
            "note: expected a string, got an integer",
            "data: expected an object, got a string",
            "parts[0].etag: null is not allowed (the field is not nullable)",
            "parts[1]: expected an object, got an integer",
            "status: `snoozed` is not one of idle, done",
            "owner: expected an id (a string or an integer), got a boolean",
            "when: expected a date-time or an array of two date-times, got an array",
            "workflow_id: expected an id (a string), got an integer",
            "user_id: null is not allowed (the field is not nullable)",
        ]
    );
    let (problems, _) = walk(
        PathStyle::Bracketed,
        json!({"name": "a", "group_id": 1, "parts": [{}]}),
    );
    assert_eq!(problems, ["parts[0][etag]: is required"]);
    assert_eq!(
        walk(PathStyle::Dotted, json!([])).0,
        ["body: expected an object, got an array"]
    );
}

#[test]
fn whole_floats_are_integers_and_fractions_or_overflows_are_not() {
    let (problems, after) = walk(
        PathStyle::Dotted,
        json!({"name": "a", "user_id": 2.0, "hours": 5.0}),
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(after, json!({"name": "a", "user_id": 2, "hours": 5}));
    assert!(after["hours"].is_i64());
    for (hours, why) in [
        (json!(5.5), "hours: expected an integer, got 5.5"),
        (
            json!(3e9),
            "hours: expected an integer from -2147483648 to 2147483647, got 3000000000.0",
        ),
        (
            json!(2147483648u64),
            "hours: expected an integer from -2147483648 to 2147483647, got 2147483648",
        ),
        (
            json!(1e300),
            "hours: expected an integer from -2147483648 to 2147483647, got 1e+300",
        ),
    ] {
        let (problems, _) = walk(
            PathStyle::Dotted,
            json!({"name": "a", "user_id": 1, "hours": hours}),
        );
        assert_eq!(problems, [why]);
    }
}

#[test]
fn exactly_one_group_of_a_one_of() {
    let none = walk(PathStyle::Dotted, json!({"name": "a"})).0;
    assert_eq!(none, ["body: one of `user_id`, `group_id` is required"]);
    let both = walk(
        PathStyle::Dotted,
        json!({"name": "a", "user_id": 1, "group_id": 2}),
    )
    .0;
    assert_eq!(
        both,
        ["body: only one of `user_id`, `group_id` may be given"]
    );
    let wrong = walk(PathStyle::Dotted, json!({"name": "a", "group_id": "2"})).0;
    assert_eq!(wrong, ["group_id: expected an integer, got a string"]);
}

fn param(name: &str, ty: Value, constraints: Value) -> Field {
    let mut param = field(name, ty, false, false);
    param["constraints"] = constraints;
    serde_json::from_value(param).unwrap()
}

#[test]
fn query_parameters_by_type_and_documented_limits() {
    let i = interface();
    let ask = |p: &Field, text: &str| query(&i, PathStyle::Bracketed, p, text);
    let size = param("limit", json!({"builtin": "int32"}), json!({"max": 50}));
    assert!(ask(&size, "50").is_empty() && ask(&size, "-3").is_empty());
    assert_eq!(ask(&size, "51"), ["limit: must be at most 50, got 51"]);
    assert_eq!(ask(&size, "ten"), ["limit: `ten` is not an integer"]);
    assert_eq!(
        ask(&size, "-2147483649"),
        ["limit: expected an integer from -2147483648 to 2147483647, got -2147483649"]
    );
    let parts = param(
        "parts",
        json!({"builtin": "int32"}),
        json!({"min": 1, "max": 20}),
    );
    assert_eq!(ask(&parts, "0"), ["parts: must be at least 1, got 0"]);
    let name = param(
        "name",
        json!({"builtin": "string"}),
        json!({"max_length": 3}),
    );
    assert!(ask(&name, "abc").is_empty() && ask(&name, "").is_empty());
    assert_eq!(ask(&name, "abcd"), ["name: must be at most 3 characters"]);
    let since = param("since", json!({"builtin": "date-time"}), json!({}));
    assert!(ask(&since, "2026-01-01T00:00:00Z").is_empty());
    assert_eq!(
        ask(&since, "2026-01-01"),
        ["since: `2026-01-01` is not a date-time"]
    );
    let flag = param("flag", json!({"builtin": "boolean"}), json!({}));
    assert_eq!(ask(&flag, "yes"), ["flag: `yes` is not `true` or `false`"]);
    let status = param("status", json!({"named": 2}), json!({}));
    assert!(ask(&status, "idle").is_empty());
    assert_eq!(ask(&status, "x"), ["status: `x` is not one of idle, done"]);
    // A JSON-encoded parameter is walked like a body, its fields named inside it.
    let filter = param("filter", json!({"json_encoded": {"named": 0}}), json!({}));
    assert!(ask(&filter, r#"{"name": "a", "user_id": 1}"#).is_empty());
    assert_eq!(
        ask(
            &filter,
            r#"{"name": "a", "user_id": true, "when": ["x", "y", "z"]}"#
        ),
        [
            "filter[when]: expected a date-time or an array of two date-times, got an array",
            "filter[user_id]: expected an integer, got a boolean",
        ]
    );
    assert!(ask(&filter, "{")[0].starts_with("filter: is not JSON"));
}
