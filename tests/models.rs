//! Realistic v3 payloads parse into the generated models and serialise back to equal JSON;
//! unknown tags and values survive a round trip unchanged.

use inspection_client::runtime::Validate;
use inspection_client::v3::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/v3/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses a fixture as `T`, writes it back, and asserts the JSON is unchanged.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let text = fixture(name);
    let parsed: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let written = serde_json::to_value(&parsed).unwrap();
    let original: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(written, original, "{name} changed in a round trip");
    parsed
}

#[test]
fn unit_round_trips_with_int64_odometer() {
    let unit: Unit = round_trip("unit.json");
    assert!(unit.odometer.unwrap() > i64::from(i32::MAX));
    assert!(!unit.extended_data.is_empty());
}

#[test]
fn unit_with_only_id_reference_and_timestamps_parses() {
    let unit: Unit = serde_json::from_str(&fixture("unit_minimal.json")).unwrap();
    assert_eq!(unit.reference_number.as_deref(), Some("FL-0042"));
    assert_eq!(unit.make, None);
    assert!(unit.extended_data.is_empty());
}

#[test]
fn unit_without_its_promised_id_is_refused() {
    let err = serde_json::from_value::<Unit>(json!({
        "reference_number": "A-1", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z"
    }))
    .unwrap_err();
    assert!(err.to_string().contains("missing field `id`"), "{err}");
}

#[test]
fn extra_unknown_properties_do_not_break_parsing() {
    let unit: Unit = serde_json::from_str(&fixture("unit_extra_properties.json")).unwrap();
    assert_eq!(unit.reference_number.as_deref(), Some("FL-0042"));
    assert_eq!(unit.make.as_deref(), Some("Toyota"));
}

#[test]
fn nulls_and_absence_are_tolerated_where_nothing_is_promised() {
    let unit: Unit = serde_json::from_value(json!({
        "id": "u1", "reference_number": "A-1", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z", "make": null, "extended_data": null, "year": null
    }))
    .unwrap();
    assert_eq!((unit.make, unit.year), (None, None));
    assert!(unit.extended_data.is_empty());
}

#[test]
fn list_envelopes_round_trip() {
    let units: Page<Unit> = round_trip("units_page.json");
    assert_eq!(units.data.len(), 2);
    assert!(units.paging.unwrap().next.unwrap().is_some());
    let inspections: Page<Inspection> = round_trip("inspections_page.json");
    assert_eq!(inspections.data.len(), 2);
    assert_eq!(inspections.paging.unwrap().next, Some(None));
}

#[test]
fn task_and_share_url_round_trip() {
    let task: Task = round_trip("task.json");
    assert_eq!(task.status, Some(TaskStatus::Started));
    assert_eq!(task.completed_at, Some(None));
    let done: Task = round_trip("task_completed.json");
    assert_eq!(done.r#type, Some(TaskType::Manual));
    assert!(matches!(done.completed_at, Some(Some(_))));
    let share: ShareUrl = round_trip("share_url.json");
    assert!(share.link.starts_with("https://"));
}

#[test]
fn inspection_covers_every_result_kind_field_type_and_signature() {
    let inspection: Inspection = round_trip("inspection.json");
    let kinds: Vec<&str> = inspection.results.iter().map(|r| r.tag()).collect();
    for kind in [
        "checklist",
        "data_template",
        "pdf_form",
        "collision_damage_waiver",
    ] {
        assert!(kinds.contains(&kind), "no {kind} result in the fixture");
    }
    let Some(InspectionResult::Checklist(checklist)) = inspection.results.first() else {
        panic!("the first result is not a checklist");
    };
    let field_types: Vec<&str> = checklist.data.iter().map(|f| f.tag()).collect();
    for ty in [
        "textbox",
        "barcode_scan_textbox",
        "date_selector",
        "radio",
        "single_dropdown_list",
        "single_dropdown_with_id",
        "multi_dropdown_list",
        "checkbox",
        "pass_fail",
        "partner_case",
    ] {
        assert!(field_types.contains(&ty), "no {ty} field in the fixture");
    }
    // Several tag values share one shape, and the tag is not repeated inside it.
    assert!(checklist.data.iter().any(|f| matches!(
        f,
        ResultField::Radio(ValueField {
            value: Some(FieldValue::String(_)),
            ..
        })
    )));
    assert!(
        checklist
            .data
            .iter()
            .any(|f| matches!(f, ResultField::Textbox(ValueField { id: Some(None), .. })))
    );
    let signature_types: Vec<&str> = inspection.signatures.iter().map(|s| s.tag()).collect();
    assert_eq!(signature_types, ["inspection", "esign"]);
    assert!(
        inspection
            .photos
            .iter()
            .any(|p| matches!(p.instruction, Some(Some(_))))
    );
    assert!(
        inspection
            .photos
            .iter()
            .any(|p| matches!(p.field, Some(Some(_))))
    );
    assert!(
        inspection
            .photos
            .iter()
            .any(|p| p.instruction == Some(None) && p.field == Some(None))
    );
}

#[test]
fn unknown_result_kind_is_kept_whole() {
    let inspection: Inspection = round_trip("inspection_unknown_result.json");
    let unknown = inspection
        .results
        .iter()
        .find_map(|r| match r {
            InspectionResult::Unknown(member) => Some(member),
            _ => None,
        })
        .expect("the damage_map result should be Unknown");
    assert_eq!(unknown.tag(), "damage_map");
    assert_eq!(unknown.to_value()["object"], "damage_map");
}

#[test]
fn unknown_field_type_and_signature_type_are_kept() {
    let inspection: Inspection = round_trip("inspection_unknown_field_type.json");
    let found = inspection.results.iter().any(|r| match r {
        InspectionResult::Checklist(c) => c
            .data
            .iter()
            .any(|f| matches!(f, ResultField::Unknown(m) if m.tag() == "signature_pad")),
        _ => false,
    });
    assert!(found, "the signature_pad field should be Unknown");
    let inspection: Inspection = round_trip("inspection_unknown_signature.json");
    assert!(
        inspection
            .signatures
            .iter()
            .any(|s| matches!(s, Signature::Unknown(m) if m.tag() == "biometric"))
    );
}

#[test]
fn unknown_enum_values_are_kept() {
    let inspection: Inspection = round_trip("inspection_unknown_type.json");
    let ty = inspection.r#type.unwrap();
    assert!(ty.is_unknown());
    assert_eq!(ty.as_str(), "transfer");
    let task: Task = round_trip("task_unknown_status.json");
    assert_eq!(task.status.as_ref().map(TaskStatus::as_str), Some("paused"));
    assert_eq!(
        task.r#type.as_ref().map(TaskType::as_str),
        Some("recurring")
    );
}

#[test]
fn open_enums_parse_strictly_on_request() {
    assert_eq!(TaskStatus::try_parse("idle"), Some(TaskStatus::Idle));
    assert_eq!(TaskStatus::try_parse("paused"), None);
    assert_eq!(TaskStatus::from("paused").to_string(), "paused");
    assert!(serde_json::from_value::<TaskStatusFilter>(json!("paused")).is_err());
    assert_eq!(
        serde_json::to_value(TaskStatusFilter::Complete).unwrap(),
        json!("complete")
    );
}

#[test]
fn a_bad_union_member_names_its_tags_and_the_client_the_whole_path() {
    // Tags first (read as they stream by) and last (the properties before them kept aside).
    let first = r#"[{"object": "checklist", "name": "Walkaround", "data": [
        {"type": "textbox", "label": "Notes", "value": "ok"},
        {"type": "checkbox", "label": "Lights", "items": "not a list"}]}]"#;
    let last = r#"[{"name": "Walkaround", "data": [
        {"label": "Notes", "value": "ok", "type": "textbox"},
        {"label": "Lights", "items": "not a list", "type": "checkbox"}], "object": "checklist"}]"#;
    for text in [first, last] {
        // serde alone: the message names each member's tag on the way down.
        let err = serde_json::from_str::<Vec<InspectionResult>>(text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("object `checklist`: "), "{err}");
        assert!(err.contains("type `checkbox`: "), "{err}");
        assert!(err.contains("invalid type: string \"not a list\""), "{err}");
        // As the client decodes an answer: the JSON path to the failing value as well.
        let err =
            inspection_runtime::__private::decode::<Vec<InspectionResult>>(200, text.as_bytes())
                .unwrap_err();
        let inspection_client::Error::Decode { path, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, "[0].data[1].items", "{text}");
        assert!(message.contains("type `checkbox`"), "{message}");
    }
}

#[test]
fn a_union_member_without_its_tag_is_kept_as_unknown() {
    let result: InspectionResult = serde_json::from_value(json!({"name": "x"})).unwrap();
    assert!(matches!(&result, InspectionResult::Unknown(m) if m.tag().is_empty()));
    assert_eq!(serde_json::to_value(&result).unwrap(), json!({"name": "x"}));
}

#[test]
fn ids_are_distinct_types_that_tolerate_numbers() {
    let unit: UnitRef = serde_json::from_value(json!({"id": 42, "reference_number": "A"})).unwrap();
    assert_eq!(unit.id, Some(UnitId::new("42")));
}

#[test]
fn task_request_has_exactly_one_assignee() {
    let request = TaskRequest::new(
        "Inspect loader",
        "LD-7",
        inspection_runtime::DateOrDateTime::parse("2026-12-01").unwrap(),
        TaskAssignee::location(42),
    )
    .requires_inspection(true);
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(
        body,
        json!({"name": "Inspect loader", "reference_number": "LD-7", "due_by": "2026-12-01",
               "requires_inspection": true, "location_id": 42})
    );
    let back: TaskRequest = serde_json::from_value(body).unwrap();
    assert_eq!(back, request);

    let two = json!({"name": "n", "reference_number": "r", "due_by": "2026-12-01T08:00:00Z",
                     "location_id": 1, "user_group_id": 2});
    let err = serde_json::from_value::<TaskRequest>(two)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("found `location_id` and `user_group_id`"),
        "{err}"
    );
    let none = json!({"name": "n", "reference_number": "r", "due_by": "2026-12-01"});
    let err = serde_json::from_value::<TaskRequest>(none)
        .unwrap_err()
        .to_string();
    assert!(err.contains("found none"), "{err}");
}

#[test]
fn request_bodies_omit_unset_fields() {
    let patch = UnitPatch::default().make("Caterpillar");
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!({"make": "Caterpillar"})
    );
}

#[test]
fn an_unknown_member_is_written_back_in_order_with_its_values_as_sent() {
    let text = r#"{"zeta": 1,   "object":"damage_map", "alpha": [1.50, {"b":2, "a":1}]}"#;
    // Read in one pass, the member is rebuilt from its properties: only the space between
    // them goes; their order and every value's text stay.
    let kept = r#"{"zeta":1,"object":"damage_map","alpha":[1.50, {"b":2, "a":1}]}"#;
    let result: InspectionResult = serde_json::from_str(text).unwrap();
    assert!(matches!(&result, InspectionResult::Unknown(m) if m.raw_json() == kept));
    assert_eq!(serde_json::to_string(&result).unwrap(), kept);
}

#[test]
fn webhook_events_parse_and_unknown_types_are_kept_whole() {
    let task: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/v3/task.json")).unwrap();
    let body = serde_json::to_vec(&json!({"type": "task.completed", "data": task})).unwrap();
    match inspection_client::v3::parse_event(&body).unwrap() {
        inspection_client::v3::Event::TaskCompleted(event) => {
            assert_eq!(serde_json::to_value(&event.data).unwrap(), task)
        }
        other => panic!("not a completed task: {other:?}"),
    }
    let unknown = br#"{"type":"unit.archived","data":{"id":"u1"}}"#;
    let event = inspection_client::v3::parse_event(unknown).unwrap();
    assert_eq!(event.tag(), "unit.archived");
    // Kept whole, byte for byte.
    assert_eq!(serde_json::to_vec(&event).unwrap(), unknown.to_vec());
    let broken = inspection_client::v3::parse_event(
        br#"{"type":"task.completed","data":{"id":"t","priority":"yes"}}"#,
    );
    assert!(matches!(
        broken,
        Err(inspection_client::Error::Decode { status: 0, .. })
    ));
}

#[test]
fn a_union_member_keeps_unknown_properties_but_not_its_tag() {
    let result: InspectionResult =
        serde_json::from_value(json!({"object": "checklist", "name": "C", "data": [], "shiny": 2}))
            .unwrap();
    let InspectionResult::Checklist(c) = &result else {
        panic!("{result:?}")
    };
    assert_eq!(
        Value::Object(c.additional_properties.clone()),
        json!({"shiny": 2})
    );
    let back = serde_json::to_value(&result).unwrap();
    assert_eq!(back["object"], "checklist");
    assert_eq!(back["shiny"], 2);
}

#[test]
fn a_request_body_sends_an_unlisted_property_and_refuses_a_listed_one() {
    let body = NewUnit::new("A-1").additional_property("color", "teal");
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({"reference_number": "A-1", "color": "teal"})
    );
    assert!(body.validate().is_ok());
    let twice = NewUnit::new("A-1")
        .make("Cat")
        .additional_property("make", "Deere");
    let err = twice.validate().unwrap_err();
    assert_eq!(err.0.len(), 1, "{err:?}");
    assert_eq!(err.0[0].path, "make");
}

#[test]
fn a_legacy_envelope_reads_its_record_bare_or_wrapped() {
    use inspection_client::legacy::{AssetResponse, TransactionResponse};
    let bare: AssetResponse = serde_json::from_value(json!({"id": "43", "fleet": "n"})).unwrap();
    let wrapped: AssetResponse =
        serde_json::from_value(json!({"asset": {"id": "43", "fleet": "n"}})).unwrap();
    assert_eq!(bare, wrapped);
    assert_eq!(bare.asset.additional_properties["fleet"], "n");
    let err = serde_json::from_value::<TransactionResponse>(json!({"archive_status": "active"}))
        .unwrap_err();
    assert!(err.to_string().contains("missing field `id`"), "{err}");
}

/// Issue 14, point 7: the ecosystem crates come with the client, in the versions its types
/// use: a `chrono` value compares with the records' own, and the re-exported `bytes` is the
/// crate's `Bytes` (both checked by the compiler; the date also by value).
#[test]
fn chrono_and_bytes_come_with_the_client() {
    use inspection_client::chrono::{DateTime, Utc};
    let when: DateTime<Utc> = "2026-01-01T00:00:00Z".parse().unwrap();
    let unit: Unit =
        serde_json::from_value(json!({"id": "u", "created_at": "2026-01-01T00:00:00"})).unwrap();
    assert_eq!(unit.created_at, Some(when));
    let body: inspection_client::bytes::Bytes = inspection_client::Bytes::from_static(b"log");
    assert_eq!(&body[..], b"log");
}
