//! spec/v3.yaml says what the v3 interface document says: every endpoint, every limit,
//! and the odd cases. Each assertion names a fact of the seed document.

use codegen::ir::{
    Builtin, CharClass, CursorPaging, Field, Interface, LinksPaging, Method, Operation, Pagination,
    Paging, TypeKind, TypeRef,
};

fn v3() -> Interface {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let api = codegen::load_dir(root, &root.join("spec")).unwrap();
    api.interfaces.into_iter().find(|i| i.name == "v3").unwrap()
}

/// The type declared as `name` (tests look types up by name; backends never do).
fn declared<'a>(i: &'a Interface, name: &str) -> &'a codegen::ir::TypeDef {
    i.types
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no type {name}"))
}

fn named(i: &Interface, name: &str) -> TypeRef {
    let index = i.types.iter().position(|t| t.name == name).unwrap();
    TypeRef::Named(codegen::ir::TypeId(index as u32))
}

fn op<'a>(i: &'a Interface, name: &str) -> &'a Operation {
    i.operations
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no operation {name}"))
}

fn fields<'a>(i: &'a Interface, type_name: &str) -> &'a [Field] {
    match &declared(i, type_name).kind {
        TypeKind::Object(o) => &o.fields,
        other => panic!("{type_name} is not an object: {other:?}"),
    }
}

fn field<'a>(i: &'a Interface, type_name: &str, name: &str) -> &'a Field {
    fields(i, type_name)
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {type_name}.{name}"))
}

#[test]
fn all_23_endpoints_of_the_table_in_order() {
    use Method::*;
    let expected = [
        (GET, "/units"),
        (POST, "/units"),
        (GET, "/units/{unit_id}"),
        (PATCH, "/units/{unit_id}"),
        (GET, "/units/by_reference_number/{reference_number}"),
        (PATCH, "/units/by_reference_number/{reference_number}"),
        (PUT, "/units/by_reference_number/{reference_number}"),
        (GET, "/units/{unit_id}/inspections"),
        (
            GET,
            "/units/by_reference_number/{reference_number}/inspections",
        ),
        (GET, "/inspections"),
        (GET, "/inspections/{inspection_id}"),
        (GET, "/inspections/{inspection_id}/share_url"),
        (GET, "/forms/{form_id}"),
        (GET, "/tasks"),
        (POST, "/tasks"),
        (GET, "/tasks/{task_id}"),
        (PATCH, "/tasks/{task_id}"),
        (DELETE, "/tasks/{task_id}"),
        (GET, "/workflows"),
        (GET, "/locations"),
        (GET, "/users"),
        (PATCH, "/users/{user_id}"),
        (GET, "/user_groups"),
    ];
    let i = v3();
    let actual: Vec<(Method, &str)> = i
        .operations
        .iter()
        .map(|o| (o.method, o.path.as_str()))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn every_string_input_is_limited_to_255() {
    let i = v3();
    for (ty, name) in [
        ("NewUnit", "reference_number"),
        ("NewUnit", "make"),
        ("NewUnit", "model"),
        ("NewUnit", "serial_number"),
        ("UnitPatch", "make"),
        ("UnitAttributes", "serial_number"),
        ("TaskRequest", "name"),
        ("TaskRequest", "reference_number"),
        ("TaskRequest", "workflow_id"),
        ("TaskRequest", "department_id"),
        ("TaskAssigneeUser", "assignee_username"),
        ("UserUpdate", "external_id"),
        ("UserUpdate", "first_name"),
        ("UserUpdate", "last_name"),
    ] {
        let f = if ty == "TaskAssigneeUser" {
            let TypeKind::Object(o) = &declared(&i, "TaskRequest").kind else {
                unreachable!()
            };
            let one = o
                .one_of
                .as_ref()
                .expect("TaskRequest has an assignee one_of");
            one.variants[0]
                .fields
                .iter()
                .find(|f| f.name == name)
                .unwrap()
                .clone()
        } else {
            field(&i, ty, name).clone()
        };
        assert_eq!(f.constraints.max_length, Some(255), "{ty}.{name}");
    }
    for o in &i.operations {
        for p in &o.path_params {
            assert_eq!(
                p.constraints.max_length,
                Some(255),
                "{} path {}",
                o.name,
                p.name
            );
        }
    }
    let units = op(&i, "list_units");
    for q in ["referenceNumber", "serialNumber"] {
        let f = units
            .query
            .iter()
            .find(|f| f.name == q)
            .expect("camelCase query name");
        assert_eq!(f.constraints.max_length, Some(255));
    }
}

#[test]
fn the_other_rows_of_the_limits_table() {
    let i = v3();
    assert_eq!(
        field(&i, "TaskRequest", "description")
            .constraints
            .max_length,
        Some(500)
    );
    for body in ["NewUnit", "UnitPatch", "UnitAttributes"] {
        let vin = &field(&i, body, "vin").constraints;
        assert_eq!(vin.length, Some(17), "{body}.vin");
        let chars = vin.chars.as_ref().unwrap();
        assert_eq!(chars.allow, CharClass::AsciiAlphanumeric);
        for c in ['I', 'O', 'Q'] {
            assert!(chars.forbid.contains(c), "{body}.vin allows {c}");
        }
        let year = &field(&i, body, "year").constraints;
        assert_eq!(
            (year.min, year.max),
            (Some(1800), Some(9999)),
            "{body}.year"
        );
        for meter in ["hours", "odometer"] {
            let f = field(&i, body, meter);
            assert_eq!(f.constraints.min, Some(0), "{body}.{meter}");
            assert_eq!(
                f.ty,
                TypeRef::Builtin(Builtin::Int32),
                "{body}.{meter} is int32 on input"
            );
        }
    }
    let Some(CursorPaging {
        max_per_page,
        page_param,
        ..
    }) = i.cursor_paging()
    else {
        panic!("v3 pages by cursor");
    };
    assert_eq!((*max_per_page, page_param.as_str()), (100, "page"));
    for o in i.operations.iter().filter(|o| o.paginated) {
        let per_page = o.query.iter().find(|f| f.name == "per_page").unwrap();
        // "per_page maximum | 100": the seed states no minimum, so none is enforced.
        assert_eq!(
            (per_page.constraints.min, per_page.constraints.max),
            (None, Some(100)),
            "{}",
            o.name
        );
    }
    let rate = i.rate_limit.as_ref().unwrap();
    assert_eq!(
        (rate.requests, rate.window_seconds, rate.max_requests),
        (100, 10, Some(200))
    );
    assert_eq!(
        (rate.status, rate.retry_after_header.as_deref()),
        (429, Some("Retry-After"))
    );
    assert!(i.limits.iter().any(|l| l.value == "48 hours"));
    for id in ["UnitId", "InspectionId", "TaskId", "FormId", "UserId"] {
        assert!(
            matches!(
                declared(&i, id).kind,
                TypeKind::Id {
                    max_length: Some(255),
                    accepts_integers: false
                }
            ),
            "{id}"
        );
    }
}

#[test]
fn auth_headers_and_error_body() {
    let i = v3();
    let codegen::ir::Auth::ApiKeyHeaders {
        headers,
        unauthorized_status,
        ..
    } = &i.auth
    else {
        panic!("v3 authenticates with key headers");
    };
    assert_eq!(*unauthorized_status, 401);
    let names: Vec<(&str, bool)> = headers
        .iter()
        .map(|h| (h.name.as_str(), h.sensitive))
        .collect();
    assert_eq!(names, [("api-key-id", false), ("api-key-secret", true)]);
    assert_eq!(i.error_body, Some(named(&i, "ErrorBody")));
    assert!(i.errors.iter().any(|e| e.status == 429));
    assert!(op(&i, "create_unit").errors.iter().any(|e| e.status == 409));
}

#[test]
fn the_odd_cases() {
    let i = v3();
    // PATCH /users answers the list shape, without being a paged list.
    let update_user = op(&i, "update_user");
    assert!(!update_user.paginated);
    assert_eq!(
        update_user.responses[0].body,
        Some(TypeRef::Page(Box::new(named(&i, "User"))))
    );
    // PUT upsert answers 200 (replaced) or 201 (created).
    let statuses: Vec<u16> = op(&i, "upsert_unit_by_reference_number")
        .responses
        .iter()
        .map(|r| r.status)
        .collect();
    assert!(statuses.contains(&200) && statuses.contains(&201));
    // Inspection: JSON or PDF by Accept, and 202; forms: PDF and 202.
    let kinds: Vec<(u16, &str)> = op(&i, "get_inspection")
        .responses
        .iter()
        .map(|r| (r.status, r.content_type.as_str()))
        .collect();
    assert!(
        kinds.contains(&(200, "application/json")) && kinds.contains(&(200, "application/pdf"))
    );
    assert!(kinds.iter().any(|(s, _)| *s == 202));
    assert!(op(&i, "get_form").responses.iter().any(|r| r.status == 202));
    assert!(
        op(&i, "delete_task")
            .responses
            .iter()
            .any(|r| r.status == 204 && r.body.is_none())
    );
    // Task requests: integer location and user group ids; due_by a date or a date-time.
    let TypeKind::Object(task) = &declared(&i, "TaskRequest").kind else {
        unreachable!()
    };
    let one = task.one_of.as_ref().unwrap();
    let variant_fields: Vec<(&str, &TypeRef)> = one
        .variants
        .iter()
        .flat_map(|v| v.fields.iter().map(|f| (f.name.as_str(), &f.ty)))
        .collect();
    assert_eq!(
        variant_fields,
        [
            ("assignee_username", &TypeRef::Builtin(Builtin::String)),
            ("location_id", &TypeRef::Builtin(Builtin::Integer)),
            ("user_group_id", &TypeRef::Builtin(Builtin::Integer)),
        ]
    );
    assert_eq!(
        field(&i, "TaskRequest", "due_by").ty,
        TypeRef::Builtin(Builtin::DateOrDateTime)
    );
    // Odometer: int32 on input (checked above), int64 on output.
    assert_eq!(
        field(&i, "Unit", "odometer").ty,
        TypeRef::Builtin(Builtin::Integer)
    );
    // Nullable where the seed says so.
    assert!(field(&i, "Task", "completed_at").nullable);
    assert!(field(&i, "LocationRef", "external_id").nullable);
    assert!(field(&i, "Photo", "instruction").nullable);
}

#[test]
fn not_shown_gaps_are_explicit() {
    let i = v3();
    assert!(i.not_shown.len() >= 8, "{:?}", i.not_shown);
    for ty in ["Paging", "Workflow", "Location", "User", "UserGroup"] {
        let TypeKind::Object(o) = &declared(&i, ty).kind else {
            unreachable!()
        };
        assert!(o.not_shown.is_some(), "{ty} should keep what is not shown");
    }
    let r202 = op(&i, "get_inspection")
        .responses
        .iter()
        .find(|r| r.status == 202)
        .unwrap();
    assert!(r202.not_shown.is_some());
}

fn legacy() -> Interface {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let api = codegen::load_dir(root, &root.join("spec")).unwrap();
    api.interfaces
        .into_iter()
        .find(|i| i.name == "legacy")
        .unwrap()
}

#[test]
fn legacy_every_row_of_the_endpoint_table() {
    use Method::*;
    let i = legacy();
    let rows: Vec<(Method, &str)> = i
        .operations
        .iter()
        .map(|o| (o.method, o.path.as_str()))
        .collect();
    let expected = [
        (GET, "/api/assets"),
        (GET, "/api/assets/{id}"),
        (GET, "/api/assets/{id}/transactions"),
        (POST, "/api/assets"),
        (PATCH, "/api/assets/{id}"),
        (PUT, "/api/assets/{id}"),
        (DELETE, "/api/assets/{id}"),
        (POST, "/api/devices/{dev_id}/log"),
        (GET, "/api/form_templates"),
        (GET, "/api/form_templates/{id}"),
        (POST, "/api/guest_auth/exchange_token"),
        (GET, "/api/locations"),
        (GET, "/api/locations/{id}"),
        (POST, "/api/locations"),
        (PATCH, "/api/locations/{id}"),
        (PUT, "/api/locations/{id}"),
        (DELETE, "/api/locations/{id}"),
        (GET, "/api/tasks"),
        (GET, "/api/tasks/{id}"),
        (POST, "/api/tasks"),
        (PATCH, "/api/tasks/{id}"),
        (PUT, "/api/tasks/{id}"),
        (DELETE, "/api/tasks/{id}"),
        (GET, "/api/transactions"),
        (GET, "/api/transactions/{id}"),
        (POST, "/api/transactions"),
        (PATCH, "/api/transactions/{id}"),
        (PUT, "/api/transactions/{id}"),
        (DELETE, "/api/transactions/{id}"),
        (GET, "/api/transactions/{id}/forms/{form_id}"),
        (POST, "/api/transactions/{id}/send_summary_email"),
        (POST, "/api/users/authenticate"),
        (GET, "/api/users/uploads/{file_id}"),
        (GET, "/api/users/uploads/{nonce}/{file_id}"),
        (POST, "/api/users/multipart_upload_start/{file_id}"),
        (POST, "/api/users/multipart_upload_complete/{file_id}"),
        (GET, "/api/users"),
        (GET, "/api/users/{id}"),
        (POST, "/api/users"),
        (POST, "/api/users/one_time_user"),
        (PATCH, "/api/users/{id}"),
        (PUT, "/api/users/{id}"),
        (DELETE, "/api/users/{id}"),
        (POST, "/api/users/{id}/reset_password"),
        (GET, "/api/workflows/{id}"),
    ];
    assert_eq!(rows, expected);
    let managers: Vec<&str> = i
        .operations
        .iter()
        .filter(|o| o.manager_only)
        .map(|o| o.name.as_str())
        .collect();
    for op in [
        "delete_asset",
        "create_location",
        "update_location",
        "replace_location",
        "delete_location",
        "list_users",
        "create_one_time_user",
        "delete_user",
        "reset_user_password",
    ] {
        assert!(managers.contains(&op), "{op} is manager only");
    }
    assert!(op(&i, "exchange_guest_token").internal);
}

#[test]
fn legacy_auth_accept_paging_and_archive_status() {
    let i = legacy();
    let codegen::ir::Auth::TokenLogin {
        login_operation,
        token_field,
        header,
        scheme,
        ..
    } = &i.auth
    else {
        panic!("the legacy interface logs in");
    };
    assert_eq!(
        (
            login_operation.as_str(),
            token_field.as_str(),
            header.as_str(),
            scheme.as_str()
        ),
        ("authenticate", "auth_token", "Authorization", "Token")
    );
    assert!(
        i.headers.iter().any(
            |h| h.name == "Accept" && h.value.as_deref() == Some("application/json; version=1")
        )
    );
    let Some(Pagination::Links(LinksPaging {
        max_limit,
        after_param,
        before_param,
        ..
    })) = &i.pagination
    else {
        panic!("legacy lists page by links");
    };
    assert_eq!(
        (*max_limit, after_param.as_str(), before_param.as_str()),
        (50, "after_id", "before_id")
    );
    let TypeKind::Enum(archive) = &declared(&i, "ArchiveStatus").kind else {
        panic!()
    };
    assert!(archive.open);
    let values: Vec<&str> = archive.values.iter().map(|v| v.wire.as_str()).collect();
    assert_eq!(values, ["active", "archived", "restoring", "restored"]);
    assert!(field(&i, "Credentials", "password").sensitive);
    let start = op(&i, "start_multipart_upload");
    let parts = start.query.iter().find(|q| q.name == "part_count").unwrap();
    assert_eq!(
        (parts.constraints.min, parts.constraints.max),
        (Some(1), Some(20))
    );
    assert!(!i.not_shown.is_empty());
}

/// Every paged list of both interfaces walks its pages by its interface's one set of
/// paging settings (the operation holds only its record type and, for links, its
/// envelope), and no list that is not paged has any.
#[test]
fn every_paged_list_walks_by_its_interfaces_paging() {
    for i in [v3(), legacy()] {
        for op in &i.operations {
            let paging = i.paging(op);
            assert_eq!(paging.is_some(), op.paginated, "{}.{}", i.name, op.name);
            let (settings_per_page, max) = match paging {
                Some(Paging::Cursor { settings, .. }) => {
                    (settings.per_page_param.as_str(), settings.max_per_page)
                }
                Some(Paging::Links { settings, .. }) => {
                    (settings.limit_param.as_str(), settings.max_limit)
                }
                None => continue,
            };
            let size = op.query.iter().find(|q| q.name == settings_per_page);
            assert_eq!(
                size.and_then(|q| q.constraints.max),
                Some(max.into()),
                "{}.{}: its page size parameter allows the paging's maximum",
                i.name,
                op.name
            );
        }
    }
}

/// The resolve pass decides each operation's answer once, for every backend.
#[test]
fn answers_and_paging_are_resolved_in_the_ir() {
    use codegen::ir::AnswerKind;
    let i = v3();
    let upsert = &op(&i, "upsert_unit_by_reference_number").answer;
    assert!(
        matches!(upsert.kind, AnswerKind::Upsert { .. }),
        "{upsert:?}"
    );
    let inspection = &op(&i, "get_inspection").answer;
    assert!(inspection.polls);
    assert_eq!(inspection.alternative.as_deref(), Some("application/pdf"));
    let form = &op(&i, "get_form").answer;
    assert_eq!(
        form.kind,
        AnswerKind::Bytes {
            content_type: "application/pdf".into()
        }
    );
    assert!(form.polls);
    assert_eq!(op(&i, "delete_task").answer.kind, AnswerKind::Empty);
    assert!(matches!(
        op(&i, "update_user").answer.kind,
        AnswerKind::Json {
            list_shaped: true,
            ..
        }
    ));
    assert!(matches!(
        i.paging(op(&i, "list_units")),
        Some(Paging::Cursor { item: TypeRef::Named(_), settings }) if settings.page_param == "page"
    ));
    assert!(op(&i, "get_unit").paging.is_none());
    assert_eq!(i.error_message_field.as_deref(), Some("errors"));
    let TypeKind::Union(results) = &declared(&i, "InspectionResult").kind else {
        panic!("InspectionResult is a union");
    };
    assert!(results.open, "response unions keep unknown members");
    let json = codegen::ir_json(&codegen::ir::Api::new(vec![i.clone()]));
    assert!(json.contains("\"kind\": \"upsert\""), "the IR serialises");
}

/// Every response field the spec requires, per interface: only what the seeds promise.
/// A record is addressed by its id in every path of both seeds; a share link exists for
/// its `link`; seed 001 states the login answer `{auth_token, user}`; a started multipart
/// upload exists for its upload id and part URLs; an envelope always holds its record
/// (and is read bare too). Everything else may be absent in an answer.
#[test]
fn responses_require_only_what_the_seeds_promise() {
    let required = |i: &Interface| -> Vec<String> {
        i.types
            .iter()
            .filter(|t| t.usage.response)
            .filter_map(|t| match &t.kind {
                TypeKind::Object(o) => Some((t, o)),
                _ => None,
            })
            .flat_map(|(t, o)| {
                o.fields
                    .iter()
                    .filter(|f| f.required && o.envelope.as_deref() != Some(f.name.as_str()))
                    .map(move |f| format!("{}.{}", t.name, f.name))
            })
            .collect()
    };
    assert_eq!(
        required(&v3()),
        ["Unit.id", "Inspection.id", "ShareUrl.link", "Task.id"]
    );
    assert_eq!(
        required(&legacy()),
        [
            "Asset.id",
            "Transaction.id",
            "Location.id",
            "AuthenticatedUser.id",
            "User.id",
            "OneTimeUser.id",
            "Task.id",
            "MultipartUpload.upload_id",
            "MultipartUpload.presigned_urls",
            "AuthenticateResponse.auth_token",
            "AuthenticateResponse.user",
        ]
    );
}
