//! Request bodies held to the spec (issue 18): a body must be a JSON value of its
//! operation's body type, as `generated/ir.json` describes it. A wrong JSON type at any
//! depth, a `null` the spec does not allow, a missing required field are refused with a
//! status the operation lists and a message naming the field; a whole-number float counts
//! as an integer; properties the spec does not list are accepted. A refused request changes
//! nothing: each test compares what the sandbox holds before and after.

use serde_json::{Value, json};

use sandbox::{LEGACY_MANAGER, LEGACY_USER, Sandbox};

mod common;
#[path = "common/spec.rs"]
mod spec;

use spec::{IR, KEYS, fill, legacy, login, start, statuses};

async fn v3(sandbox: &Sandbox, method: &str, path: &str, body: Value) -> (u16, Value) {
    common::call(sandbox, method, &format!("/v3{path}"), &KEYS, Some(body)).await
}

/// A body sent as these bytes, `Content-Type: application/json`.
async fn raw(
    sandbox: &Sandbox,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    text: &str,
) -> (u16, Value) {
    let body = Some(("application/json", text.to_string()));
    common::read(common::send(sandbox, method, path, headers, body).await).await
}

/// Everything a refused request could have changed: every v3 and legacy collection as
/// listed, and the unit counters.
async fn state(sandbox: &Sandbox, token: &str) -> Value {
    let mut all = serde_json::Map::new();
    for path in ["/units", "/tasks", "/users"] {
        let (status, page) = common::call(
            sandbox,
            "GET",
            &format!("/v3{path}?per_page=100"),
            &KEYS,
            None,
        )
        .await;
        assert_eq!(status, 200, "{page}");
        all.insert(format!("v3{path}"), page["data"].clone());
    }
    for name in ["assets", "locations", "tasks", "transactions", "users"] {
        let path = format!("/api/{name}?limit=50");
        let (status, page) = legacy(sandbox, token, "GET", &path, Value::Null).await;
        assert_eq!(status, 200, "{page}");
        all.insert(format!("api/{name}"), page[name].clone());
    }
    let stats = sandbox.stats().await;
    all.insert("units_created".into(), json!(stats.units_created));
    all.insert("unit_posts".into(), json!(stats.unit_posts));
    Value::Object(all)
}

fn errors(answer: &Value) -> &str {
    answer["errors"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn null_for_a_non_nullable_optional_field_is_refused_by_every_unit_write() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let before = state(&sandbox, &token).await;
    let not_nullable =
        |field: &str| format!("{field}: null is not allowed (the field is not nullable)");
    for (method, path, body, fields) in [
        (
            "POST",
            "/units",
            json!({"reference_number": "R-null", "make": null}),
            vec!["make"],
        ),
        (
            "PATCH",
            "/units/unt_001",
            json!({"reference_number": null}),
            vec!["reference_number"],
        ),
        (
            "PATCH",
            "/units/unt_001",
            json!({"hours": null, "odometer": null}),
            vec!["hours", "odometer"],
        ),
        (
            "PATCH",
            "/units/by_reference_number/EX-0117",
            json!({"vin": null}),
            vec!["vin"],
        ),
        (
            "PUT",
            "/units/by_reference_number/RX",
            json!({"make": null, "vin": null, "extended_data": null}),
            vec!["make", "vin", "extended_data"],
        ),
    ] {
        let (status, answer) = v3(&sandbox, method, path, body).await;
        assert_eq!(status, 422, "{method} {path}: {answer}");
        let want: Vec<String> = fields.iter().map(|f| not_nullable(f)).collect();
        assert_eq!(errors(&answer), want.join("; "), "{method} {path}");
    }
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn an_array_for_an_object_body_is_refused() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let before = state(&sandbox, &token).await;
    for (method, path) in [
        ("PUT", "/units/by_reference_number/R-array"),
        ("PATCH", "/units/unt_001"),
        ("PATCH", "/units/by_reference_number/EX-0117"),
        ("PATCH", "/users/usr_1"),
        ("POST", "/tasks"),
    ] {
        let (status, answer) = v3(&sandbox, method, path, json!([{"make": "x"}])).await;
        assert_eq!(status, 422, "{method} {path}: {answer}");
        assert_eq!(errors(&answer), "body: expected an object, got an array");
    }
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn a_wrong_type_at_any_depth_is_refused_naming_its_path() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let before = state(&sandbox, &token).await;
    let task = |extra: Value| {
        let mut body =
            json!({"name": "Check", "reference_number": "EX-0117", "due_by": "2026-05-01"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    for (method, path, body, why) in [
        (
            "POST",
            "/units",
            json!({"reference_number": "R-1", "extended_data": "x"}),
            "extended_data: expected an object, got a string",
        ),
        (
            "POST",
            "/units",
            json!({"reference_number": 5}),
            "reference_number: expected a string, got an integer",
        ),
        (
            "POST",
            "/units",
            json!({"reference_number": "R-1", "hours": "5"}),
            "hours: expected an integer, got a string",
        ),
        (
            "PATCH",
            "/units/unt_001",
            json!({"year": true}),
            "year: expected an integer, got a boolean",
        ),
        // The spec documents `location_id` and `user_group_id` of a task request as integers.
        (
            "POST",
            "/tasks",
            task(json!({"location_id": "89"})),
            "location_id: expected an integer, got a string",
        ),
        (
            "PATCH",
            "/tasks/tsk_idle",
            task(json!({"user_group_id": [1]})),
            "user_group_id: expected an integer, got an array",
        ),
        // ... and its `workflow_id` and `department_id` as strings: v3 ids are opaque text.
        (
            "POST",
            "/tasks",
            task(json!({"assignee_username": "a@example.com", "workflow_id": 4099})),
            "workflow_id: expected an id (a string), got an integer",
        ),
        (
            "PATCH",
            "/tasks/tsk_idle",
            task(json!({"assignee_username": "a@example.com", "department_id": 7})),
            "department_id: expected an id (a string), got an integer",
        ),
        (
            "POST",
            "/tasks",
            task(json!({"assignee_username": "a@example.com", "requires_inspection": "yes"})),
            "requires_inspection: expected a boolean, got a string",
        ),
        (
            "POST",
            "/tasks",
            task(json!({"assignee_username": "a@example.com", "status": "done"})),
            "status: `done` is not one of idle, started, completed, incomplete, complete",
        ),
        (
            "PATCH",
            "/users/usr_1",
            json!({"first_name": 5, "last_name": {}}),
            "first_name: expected a string, got an integer; last_name: expected a string, got an object",
        ),
    ] {
        let (status, answer) = v3(&sandbox, method, path, body).await;
        assert_eq!(status, 422, "{method} {path}: {answer}");
        assert_eq!(errors(&answer), why, "{method} {path}");
    }
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn a_missing_required_field_is_refused() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let before = state(&sandbox, &token).await;
    for (path, body, why) in [
        (
            "/units",
            json!({"make": "Volvo"}),
            "reference_number: is required",
        ),
        (
            "/tasks",
            json!({"name": "Check", "reference_number": "EX-0117", "assignee_username": "a@example.com"}),
            "due_by: is required",
        ),
        (
            "/tasks",
            json!({"name": "Check", "reference_number": "EX-0117", "due_by": "2026-05-01"}),
            "body: one of `assignee_username`, `location_id`, `user_group_id` is required",
        ),
        (
            "/tasks",
            json!({"name": "Check", "reference_number": "EX-0117", "due_by": "2026-05-01", "location_id": 89, "user_group_id": 2}),
            "body: only one of `location_id`, `user_group_id` may be given",
        ),
    ] {
        let (status, answer) = v3(&sandbox, "POST", path, body).await;
        assert_eq!(status, 422, "{path}: {answer}");
        assert_eq!(errors(&answer), why, "{path}");
    }
    // Malformed JSON is a 400 (listed by every v3 write), whatever it was meant to hold.
    let (status, answer) = raw(
        &sandbox,
        "POST",
        "/v3/units",
        &KEYS,
        r#"{"reference_number": "#,
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(errors(&answer).starts_with("malformed JSON"), "{answer}");
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn a_whole_number_float_is_an_integer_and_a_fraction_is_not() {
    let sandbox = start().await;
    let (status, unit) = v3(
        &sandbox,
        "POST",
        "/units",
        json!({"reference_number": "R-float", "hours": 5.0, "year": 2.02e3}),
    )
    .await;
    assert_eq!(status, 201, "{unit}");
    assert_eq!(
        (unit["hours"].as_i64(), unit["year"].as_i64()),
        (Some(5), Some(2020)),
        "{unit}"
    );
    let (status, unit) = v3(
        &sandbox,
        "PATCH",
        "/units/by_reference_number/R-float",
        json!({"odometer": 12.0}),
    )
    .await;
    assert_eq!(status, 200, "{unit}");
    assert_eq!(unit["odometer"].as_i64(), Some(12), "{unit}");

    let token = login(&sandbox, LEGACY_MANAGER).await;
    let before = state(&sandbox, &token).await;
    for (body, why) in [
        (
            json!({"reference_number": "R-fraction", "hours": 5.5}),
            "hours: expected an integer, got 5.5",
        ),
        (
            json!({"reference_number": "R-fraction", "odometer": 3e9}),
            "odometer: expected an integer from -2147483648 to 2147483647, got 3000000000.0",
        ),
    ] {
        let (status, answer) = v3(&sandbox, "POST", "/units", body).await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(errors(&answer), why);
    }
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn properties_the_spec_does_not_list_are_accepted_and_ignored() {
    let sandbox = start().await;
    let extra = json!({"reference_number": "R-extra", "colour": "red", "nested": {"a": [1, null]}, "make": "Volvo"});
    let (status, unit) = v3(&sandbox, "POST", "/units", extra).await;
    assert_eq!(status, 201, "{unit}");
    assert_eq!(unit["make"], "Volvo");
    let (_, stored) = common::call(
        &sandbox,
        "GET",
        "/v3/units/by_reference_number/R-extra",
        &KEYS,
        None,
    )
    .await;
    for key in ["colour", "nested"] {
        assert!(
            unit.get(key).is_none() && stored.get(key).is_none(),
            "{stored}"
        );
    }
    let (status, user) = v3(
        &sandbox,
        "PATCH",
        "/users/usr_1",
        json!({"first_name": "Dana", "nickname": null}),
    )
    .await;
    assert_eq!(status, 200, "{user}");
    // Legacy: beside the record's envelope too.
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let body = json!({"asset": {"external_id": "X-EXTRA"}, "source": "erp", "unknown": null});
    let (status, asset) = legacy(&sandbox, &token, "POST", "/api/assets", body).await;
    assert_eq!(status, 201, "{asset}");
    assert!(
        asset.get("source").is_none() && asset["asset"].get("source").is_none(),
        "{asset}"
    );
}

#[tokio::test]
async fn legacy_bodies_are_held_to_the_spec_too() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let path = "/api/users/multipart_upload_start/f-1?part_count=1";
    let (status, answer) = legacy(&sandbox, &token, "POST", path, Value::Null).await;
    assert_eq!(status, 200, "{answer}");
    // A nullable field takes null.
    let body = json!({"transaction": {"check_in": null}});
    let (status, answer) = legacy(&sandbox, &token, "PATCH", "/api/transactions/100", body).await;
    assert_eq!(status, 200, "{answer}");
    // A legacy id may be written as a number (`accepts_integers` in the spec).
    let body = json!({"transaction": {"asset_id": 43}});
    let (status, answer) = legacy(&sandbox, &token, "PATCH", "/api/transactions/100", body).await;
    assert_eq!(status, 200, "{answer}");
    let before = state(&sandbox, &token).await;
    for (path, body, why) in [
        (
            "/api/assets",
            json!({"asset": {"external_id": 5}}),
            "asset[external_id]: expected a string, got an integer",
        ),
        (
            "/api/assets",
            json!({"asset": {}}),
            "asset[external_id]: is required",
        ),
        ("/api/assets", json!({}), "asset: is required"),
        (
            "/api/transactions",
            json!({"transaction": {"asset_id": "43", "damage": "no", "geo_coord": [1, "2"]}}),
            "transaction[damage]: expected a boolean, got a string; transaction[geo_coord][1]: expected a number, got a string",
        ),
        (
            "/api/transactions",
            json!({"transaction": {"asset_id": "43", "damage": null}}),
            "transaction[damage]: null is not allowed (the field is not nullable)",
        ),
        (
            "/api/users/multipart_upload_complete/f-1",
            json!({"upload_id": "u", "parts": [{"part_number": 1.5, "etag": "e"}]}),
            "parts[0][part_number]: expected an integer, got 1.5",
        ),
        (
            "/api/locations",
            json!([{"location": {"name": "Yard"}}]),
            "body: expected an object, got an array",
        ),
    ] {
        let (status, answer) = legacy(&sandbox, &token, "POST", path, body).await;
        assert_eq!(status, 422, "{path}: {answer}");
        assert_eq!(errors(&answer), why, "{path}");
    }
    // The login is checked before any token exists.
    let body = json!({"user": {"username": "a"}});
    let (status, answer) = legacy(&sandbox, "", "POST", "/api/users/authenticate", body).await;
    assert_eq!(
        (status, errors(&answer)),
        (422, "user[password]: is required")
    );
    let version = [("accept", "application/json; version=1")];
    let (status, answer) = raw(&sandbox, "POST", "/api/users/authenticate", &version, "{").await;
    assert_eq!(status, 400, "{answer}");
    // Every body is required, even one of any JSON.
    let path = "/api/transactions/100/send_summary_email";
    let auth = format!("Token {token}");
    let headers = [
        ("accept", "application/json; version=1"),
        ("authorization", auth.as_str()),
    ];
    let (status, answer) = raw(&sandbox, "POST", path, &headers, "").await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        errors(&answer),
        "malformed JSON: the request body is required"
    );
    assert_eq!(sandbox.legacy_counts().await, (0, 0));
    // ... unless the spec says `optional` (a password reset, whose body the seed does not
    // show): no body at all, or an empty one, is taken.
    let path = "/api/users/self/reset_password";
    let (status, answer) =
        common::read(common::send(&sandbox, "POST", path, &headers, None).await).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = raw(&sandbox, "POST", path, &headers, "").await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = raw(&sandbox, "POST", path, &headers, "{").await;
    assert_eq!(status, 400, "a body sent must still be JSON: {answer}");
    // A plain user is refused a manager-only operation first, whatever the body.
    let user = login(&sandbox, LEGACY_USER).await;
    let (status, answer) = legacy(&sandbox, &user, "POST", "/api/locations", json!([])).await;
    assert_eq!(status, 403, "{answer}");
    assert_eq!(state(&sandbox, &token).await, before);
}

#[tokio::test]
async fn a_whole_number_float_is_taken_on_the_legacy_interface_too() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let body = json!({"user": {"email": "float@example.com", "location_id": "89", "transaction_limit": 3.0}});
    let (status, answer) = legacy(&sandbox, &token, "POST", "/api/users/one_time_user", body).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["user"]["transaction_limit"], json!(3), "{answer}");
}

/// The public docs type `after_id` and `before_id` as strings: one that names no record is
/// an empty page, not a status the spec does not list.
#[tokio::test]
async fn a_legacy_page_after_an_id_that_names_no_record_is_empty() {
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    for query in ["after_id=abc", "before_id=abc", "after_id=_WMW&limit=2"] {
        for name in ["assets", "transactions"] {
            let (status, page) = legacy(
                &sandbox,
                &token,
                "GET",
                &format!("/api/{name}?{query}"),
                Value::Null,
            )
            .await;
            assert_eq!(status, 200, "{name}?{query}: {page}");
            assert_eq!(page[name], json!([]), "{name}?{query}");
            assert_eq!(page["links"], json!({"prev": null, "next": null}));
        }
    }
    let (_, page) = legacy(
        &sandbox,
        &token,
        "GET",
        "/api/assets?after_id=42&limit=1",
        Value::Null,
    )
    .await;
    assert_eq!(page["assets"][0]["id"], "43", "a numeric id still pages");
}

/// A record the sandbox is seeded with, by what names it in a path (a path parameter's
/// type, or the unit's reference number); a write's path is filled with these so that its
/// body is what is checked. A new kind of path reference fails here until it has one.
fn seeded(interface: &str, named: &str) -> &'static str {
    match (interface, named) {
        ("v3", "UnitId") => "unt_001",
        ("v3", "reference_number") => "EX-0117",
        ("v3", "TaskId") => "tsk_idle",
        ("v3", "UserId") => "usr_1",
        ("legacy", "AssetRef") => "43",
        ("legacy", "LocationId") => "89",
        ("legacy", "TaskId") => "42",
        ("legacy", "TransactionId") => "100",
        ("legacy", "UserPathRef") => "self",
        ("legacy", "FileId") => "f-started",
        other => panic!("no seeded record for a path parameter of {other:?}"),
    }
}

/// The path parameters of `op` that name a record (an id, a record reference, a unit's
/// reference number), each with what names it.
fn records(interface: &Value, op: &Value) -> Vec<(String, String)> {
    let types = interface["types"].as_array().unwrap();
    let params = op["path_params"].as_array().into_iter().flatten();
    params
        .filter_map(|p| {
            let name = p["name"].as_str().unwrap().to_string();
            if name == "reference_number" {
                return Some((name.clone(), name));
            }
            let ty = &types[p["ty"]["named"].as_u64()? as usize];
            let kind = ty["kind"].as_object().unwrap();
            (kind.contains_key("id") || kind.contains_key("record_ref"))
                .then(|| (name, ty["name"].as_str().unwrap().to_string()))
        })
        .collect()
}

/// `template` with each record parameter replaced by `id(what names it)`, any other by `x1`.
fn path_of(template: &str, records: &[(String, String)], id: impl Fn(&str) -> String) -> String {
    let mut path = template.to_string();
    for (name, named) in records {
        path = path.replace(&format!("{{{name}}}"), &id(named));
    }
    fill(&path)
}

/// The proof that a new operation is covered with no hand edit: every operation with a
/// JSON body in the IR refuses an array where its body type is not any JSON, with the status
/// the IR lists for it; and before that, a write naming a record that does not exist is a
/// 404 whatever its body (a write that may create its record, one answering 201, apart).
#[tokio::test]
async fn every_operation_with_a_json_body_refuses_an_array_after_finding_its_record() {
    let ir: Value = serde_json::from_str(IR).unwrap();
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let path = "/api/users/multipart_upload_start/f-started?part_count=1";
    let (status, answer) = legacy(&sandbox, &token, "POST", path, Value::Null).await;
    assert_eq!(status, 200, "{answer}");
    let before = state(&sandbox, &token).await;
    let (mut checked, mut missing) = (Vec::new(), Vec::new());
    for interface in ir["interfaces"].as_array().unwrap() {
        let name = interface["name"].as_str().unwrap();
        let everywhere: Vec<u64> = statuses(&interface["errors"]);
        for op in interface["operations"].as_array().unwrap() {
            let body = &op["body"];
            if body.is_null() || body["content_type"] != "application/json" {
                continue;
            }
            let method = op["method"].as_str().unwrap();
            let op_name = op["name"].as_str().unwrap();
            let records = records(interface, op);
            let creates = op["responses"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["status"] == 201);
            let send = |path: String| {
                let (sandbox, token) = (&sandbox, &token);
                async move {
                    match name {
                        "v3" => v3(sandbox, method, &path, json!([])).await,
                        _ => legacy(sandbox, token, method, &path, json!([])).await,
                    }
                }
            };
            if !records.is_empty() && !creates {
                let path = path_of(op["path"].as_str().unwrap(), &records, |_| {
                    "gone-404".into()
                });
                let (status, answer) = send(path.clone()).await;
                assert_eq!(status, 404, "{name} {op_name} {method} {path}: {answer}");
                assert!(
                    errors(&answer).ends_with("gone-404 could not be found"),
                    "{answer}"
                );
                missing.push(format!("{name} {op_name}"));
            }
            // A body of any JSON takes an array too.
            if body["ty"] == json!({"builtin": "json"}) {
                continue;
            }
            let path = path_of(op["path"].as_str().unwrap(), &records, |n| {
                seeded(name, n).into()
            });
            let (status, answer) = send(path.clone()).await;
            let listed: Vec<u64> = statuses(&op["errors"]);
            let allowed: Vec<u64> = listed.iter().chain(&everywhere).copied().collect();
            // 422 where the operation or its interface lists it, else 400, which both
            // interfaces list for every operation.
            assert!(allowed.contains(&400), "{op}");
            let expected = if allowed.contains(&422) { 422 } else { 400 };
            assert_eq!(
                status, expected,
                "{name} {op_name} {method} {path}: {answer}"
            );
            assert_eq!(
                errors(&answer),
                "body: expected an object, got an array",
                "{op_name}"
            );
            checked.push(format!("{name} {op_name}"));
        }
    }
    for name in ["v3 ", "legacy "] {
        assert!(checked.iter().any(|c| c.starts_with(name)), "{checked:#?}");
        assert!(missing.iter().any(|c| c.starts_with(name)), "{missing:#?}");
    }
    // The issue's case among them: a missing unit with a taken reference number.
    assert!(
        missing.contains(&"v3 update_unit".to_string()),
        "{missing:#?}"
    );
    assert_eq!(state(&sandbox, &token).await, before);
}

/// A missing unit is a 404 before its new reference number is found taken (a 422 for a
/// unit that exists).
#[tokio::test]
async fn a_missing_unit_is_not_found_before_its_reference_number_is_taken() {
    let sandbox = start().await;
    let taken = json!({"reference_number": "EX-0117"});
    let (status, answer) = v3(&sandbox, "PATCH", "/units/unt_gone", taken.clone()).await;
    assert_eq!(
        (status, errors(&answer)),
        (404, "The Unit unt_gone could not be found")
    );
    let (status, answer) = v3(&sandbox, "PATCH", "/units/unt_002", taken).await;
    assert_eq!(status, 422, "{answer}");
}
