//! Demo data: a small fleet with inspections of every result kind, field type and
//! signature type, tasks in each status, workflows, locations, users and user groups.

use chrono::{DateTime, Duration, Utc};
use inspection_client::v3::{FieldValue, Inspection, InspectionId, InspectionResult, ResultField};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::store::Store;

/// A demo record from its JSON form, as the service would send it. The records are
/// `#[non_exhaustive]` in the client, and the wire form is what the demo data shows anyway.
/// The data is fixed, so a mismatch is a bug in this file, caught by every sandbox test.
fn record<T: DeserializeOwned>(value: Value) -> T {
    match serde_json::from_value(value) {
        Ok(record) => record,
        Err(e) => panic!("demo data does not match the spec: {e}"),
    }
}

/// Fills `store` with the demo fleet, all timestamped before `now`.
pub fn load(store: &mut Store, now: DateTime<Utc>, origin: &str) {
    organisation(store);
    units(store, now);
    store.push_inspection(full_inspection(
        "ins_demo_full",
        now - Duration::days(30),
        origin,
    ));
    store.push_inspection(simple_inspection(
        "ins_demo_open",
        "open",
        now - Duration::days(20),
        1,
        origin,
    ));
    store.push_inspection(simple_inspection(
        "ins_demo_update",
        "update",
        now - Duration::days(10),
        2,
        origin,
    ));
    store.forms.push("frm_demo_1".into());
    tasks(store, now);
}

/// The demo's locations, user groups, users and workflows.
fn organisation(store: &mut Store) {
    for (i, (name, ext)) in [("Main Yard", Some("LOC-MAIN")), ("North Depot", None)]
        .into_iter()
        .enumerate()
    {
        let seq = store.seq();
        let record =
            record(json!({"id": format!("{}", 101 + i), "external_id": ext, "name": name}));
        store.locations.push(crate::store::Row { seq, record });
    }
    for (id, name) in [("201", "Mechanics"), ("202", "Drivers")] {
        let seq = store.seq();
        let record = record(json!({"id": id, "name": name}));
        store.user_groups.push(crate::store::Row { seq, record });
    }
    for (id, username, first, last) in [
        ("usr_1", "dana.ortiz@example.com", "Dana", "Ortiz"),
        ("usr_2", "sam.lee@example.com", "Sam", "Lee"),
        ("usr_3", "shop-tech-3", "Robin", "Hale"),
    ] {
        let seq = store.seq();
        let record = record(json!({
            "id": id, "username": username, "first_name": first, "last_name": last,
        }));
        store.users.push(crate::store::Row { seq, record });
    }
    for (id, name, location) in [
        ("wf_pickup", "Pickup", "101"),
        ("wf_return", "Return", "101"),
        ("wf_service", "Service", "102"),
    ] {
        let seq = store.seq();
        let department = if location == "101" {
            "Rental"
        } else {
            "Service"
        };
        // `location_id` and `department_name` are not in the spec: kept as unlisted properties.
        let record = record(json!({
            "id": id, "name": name, "location_id": location, "department_name": department,
        }));
        store.workflows.push(crate::store::Row { seq, record });
    }
}

/// The demo fleet: three units.
fn units(store: &mut Store, now: DateTime<Utc>) {
    let day = |d: i64| now - Duration::days(d);
    let fleet = [
        (
            "EX-0117",
            "Caterpillar",
            "320",
            2019,
            Some("1XKZD49X0LJ123456"),
            4210,
            0,
        ),
        ("FL-0042", "Toyota", "8FGCU25", 2021, None, 1873, 0),
        (
            "TR-0208",
            "Kenworth",
            "T880",
            2021,
            Some("1NKZL40X1MJ654321"),
            2311,
            183_402,
        ),
    ];
    for (i, (reference, make, model, year, vin, hours, odometer)) in fleet.into_iter().enumerate() {
        let created = day(300 - i as i64);
        store.push_unit(record(json!({
            "id": format!("unt_{:03}", i + 1),
            "object": "unit",
            "reference_number": reference,
            "make": make,
            "model": model,
            "year": year,
            "vin": vin,
            "serial_number": format!("SN-{}", 7000 + i),
            "hours": hours,
            "odometer": odometer,
            "created_at": created,
            "updated_at": created,
            "extended_data": {"fleet_group": "north"},
        })));
    }
}

/// A task in every documented status.
fn tasks(store: &mut Store, now: DateTime<Utc>) {
    let day = |d: i64| now - Duration::days(d);
    // Every documented status; `tsk_started` has a draft inspection attached (rule 7).
    let tasks = [
        ("tsk_idle", "idle", "inspection", false),
        ("tsk_started", "started", "inspection", true),
        ("tsk_completed", "completed", "manual", false),
        ("tsk_incomplete", "incomplete", "task", false),
        ("tsk_complete", "complete", "task", false),
    ];
    for (i, (id, status, ty, draft)) in tasks.into_iter().enumerate() {
        let created = day(15 - i as i64);
        let completed = matches!(status, "completed" | "complete").then(|| day(2));
        let reference = ["EX-0117", "FL-0042", "TR-0208"][i % 3];
        let task = record(json!({
            "id": id,
            "object": "task",
            "type": ty,
            "status": status,
            "name": format!("Inspect {reference}"),
            "description": "Walk-around before rental.",
            "priority": i == 0,
            "due_by": now + Duration::days(3 + i as i64),
            "inspection": draft.then(|| json!({"id": "ins_draft_1"})),
            "assignee": {"id": "usr_1", "username": "dana.ortiz@example.com"},
            "unit": {"id": format!("unt_{:03}", i % 3 + 1), "reference_number": reference},
            "workflow": {"id": "wf_pickup", "name": "Pickup"},
            "completed_at": completed,
            "created_at": created,
            "updated_at": created,
        }));
        store.push_task(task, draft);
    }
}

/// The location, unit and user (as JSON references) of demo inspection number `n`.
fn refs(n: usize) -> (Value, Value, Value) {
    let (unit_id, reference) = [
        ("unt_001", "EX-0117"),
        ("unt_002", "FL-0042"),
        ("unt_003", "TR-0208"),
    ][n % 3];
    (
        json!({"id": "101", "external_id": "LOC-MAIN", "name": "Main Yard"}),
        json!({"id": unit_id, "reference_number": reference}),
        json!({"id": "usr_1", "username": "dana.ortiz@example.com"}),
    )
}

fn simple_inspection(id: &str, ty: &str, at: DateTime<Utc>, n: usize, origin: &str) -> Inspection {
    let (location, unit, user) = refs(n);
    let (department_id, department) = if n.is_multiple_of(2) {
        ("dep_rental", "Rental")
    } else {
        ("dep_service", "Service")
    };
    record(json!({
        "id": id,
        "type": ty,
        "location": location,
        "damage_present": n % 2 == 1,
        "unit": unit,
        "user": user,
        "department": {"id": department_id, "name": department},
        "dashboard_url": format!("{origin}/dashboard/inspections/{id}"),
        "results": [{
            "object": "checklist",
            "name": "Walkaround",
            "data": [{
                "type": "textbox", "id": "fld_notes", "object": "field", "label": "Notes",
                "value": format!("Checked {id}"),
            }],
        }],
        "photos": [],
        "videos": [],
        "signatures": [],
        "created_at": at,
        "updated_at": at,
    }))
}

/// A field of a result: its type, id and label, and the properties of its kind.
fn field(ty: &str, fid: Option<&str>, label: &str, rest: Value) -> Value {
    let mut f = json!({"type": ty, "id": fid, "object": "field", "label": label});
    if let (Value::Object(f), Value::Object(rest)) = (&mut f, rest) {
        f.extend(rest);
    }
    f
}

/// An item of a list field.
fn item(id: Option<&str>, label: &str, value: Value) -> Value {
    json!({"id": id, "label": label, "value": value})
}

/// The full inspection's checklist: every field type.
fn demo_checklist() -> Value {
    json!({
        "object": "checklist",
        "name": "Return Walkaround",
        "data": [
            field("textbox", None, "Technician notes", json!({"value": "Bucket teeth worn."})),
            field("barcode_scan_textbox", Some("fld_barcode"), "Attachment barcode",
                json!({"value": "ATT-99812"})),
            field("date_selector", Some("fld_date"), "Next service", json!({"value": "2026-06-01"})),
            field("radio", Some("fld_fuel"), "Fuel level", json!({"value": "3/4"})),
            field("single_dropdown_list", Some("fld_bay"), "Return bay", json!({"value": 4})),
            field("single_dropdown_with_id", Some("fld_driver"), "Driver",
                json!({"item": {"id": "drv_7", "value": "Sam Lee"}})),
            field("multi_dropdown_list", Some("fld_attachments"), "Attachments", json!({"items": [
                item(Some("att_1"), "Bucket", json!("bucket")),
                item(Some("att_2"), "Thumb", json!(2)),
            ]})),
            field("checkbox", Some("fld_ppe"), "PPE present", json!({"items": [
                item(Some("ppe_1"), "Extinguisher", json!(true)),
            ]})),
            field("pass_fail", Some("fld_lights"), "Lights", json!({"items": [
                item(None, "Front", json!("pass")),
                item(Some("lt_2"), "Rear", json!(false)),
            ]})),
            field("partner_case", Some("fld_case"), "Repair case", json!({"value": {
                "case_id": "3f2b8c1d9e7a4b6c8d0e1f2a3b4c5d6e",
                "case_reference_number": "CASE-2207",
                "service_provider_id": "a1b2c3d4e5f60718293a4b5c6d7e8f90",
            }})),
        ],
    })
}

/// The full inspection's data template, with an error of each severity.
fn demo_template() -> Value {
    json!({
        "object": "data_template",
        "name": "Damage Report",
        "version": 3,
        "slug": "damage-report",
        "errors": [
            {"error": "Template was updated after this inspection.", "field_id": null,
             "severity": "warning"},
            {"error": "Hour meter is required.", "field_id": "fld_hours", "severity": "error"},
        ],
        "data": [field("textbox", Some("fld_hours"), "Hour meter", json!({"value": 4210}))],
    })
}

/// One inspection with every result kind, every field type and both signature types;
/// also what `POST /_sandbox/v3/inspections` creates.
pub(crate) fn full_inspection(id: &str, at: DateTime<Utc>, origin: &str) -> Inspection {
    let (checklist, template) = (demo_checklist(), demo_template());
    let (mut location, unit, user) = refs(0);
    location["external_id"] = Value::Null;
    record(json!({
        "id": id,
        "type": "close",
        "location": location,
        "damage_present": true,
        "unit": unit,
        "user": user,
        "region": {"id": "reg_west", "name": "West"},
        "department": {"id": "dep_rental", "name": "Rental"},
        "workflow": {"id": "wf_return", "name": "Return"},
        "dashboard_url": format!("{origin}/dashboard/inspections/{id}"),
        "results": [
            checklist,
            template,
            {
                "object": "pdf_form",
                "name": "Rental Agreement",
                "link": format!("{origin}/v3/forms/frm_demo_1"),
                "data": {"customer": "Acme Rentals", "days": 3, "insured": true, "po_number": null},
            },
            {"object": "collision_damage_waiver", "name": "CDW", "accepted": true},
        ],
        "photos": [
            {
                "object": "photo",
                "url": format!("{origin}/media/p1.jpg"),
                "instruction": {"id": "ins_front", "label": "Front"},
                "field": null,
                "tags": [{"label": "damage"}],
            },
            {
                "object": "photo",
                "url": format!("{origin}/media/p2.jpg"),
                "instruction": null,
                "field": {
                    "id": "fld_barcode",
                    "label": "Attachment barcode",
                    "result_object_name": "Return Walkaround",
                },
                "tags": [],
            },
            {
                "object": "photo",
                "url": format!("{origin}/media/p3.jpg"),
                "instruction": null,
                "field": null,
                "tags": [],
            },
        ],
        "videos": [{"object": "video", "url": format!("{origin}/media/v1.mp4")}],
        "signatures": [
            {
                "type": "inspection",
                "object": "signature",
                "url": format!("{origin}/media/s1.png"),
                "label": "Signed by customer",
                "printed_name": "Jordan Price",
            },
            {
                "type": "esign",
                "object": "signature",
                "url": format!("{origin}/media/s2.pdf"),
                "signed_at": at,
            },
        ],
        "created_at": at,
        "updated_at": at,
    }))
}

/// `count` generated inspections (for export tests), spread over the 200 days before
/// `now`, oldest first. The first of each type is made in full; the others are copies of
/// it with their own id, times and notes (making each from JSON took a second for 10,000
/// in a debug build, at every start and reset of a sandbox the soak scenarios run on).
pub fn generated_inspections(now: DateTime<Utc>, count: usize, origin: &str) -> Vec<Inspection> {
    let made: Vec<Inspection> = (0..count.min(3))
        .map(|n| generated_inspection(now, n, origin))
        .collect();
    (0..count)
        .map(|n| match made.get(n) {
            Some(first) => first.clone(),
            None => copied(&made[n % 3], now, n, origin),
        })
        .collect()
}

/// The `n`th generated inspection, made in full.
fn generated_inspection(now: DateTime<Utc>, n: usize, origin: &str) -> Inspection {
    let ty = ["open", "update", "close"][n % 3];
    simple_inspection(&generated_id(n), ty, generated_at(now, n), n % 3, origin)
}

/// [`generated_inspection`] `n` from the first of its type: what [`simple_inspection`]
/// makes from the id and the time (a test holds the two equal).
fn copied(first: &Inspection, now: DateTime<Utc>, n: usize, origin: &str) -> Inspection {
    let id = generated_id(n);
    let at = generated_at(now, n);
    let mut copy = first.clone();
    copy.dashboard_url = Some(format!("{origin}/dashboard/inspections/{id}"));
    copy.created_at = Some(at);
    copy.updated_at = Some(at);
    if let Some(InspectionResult::Checklist(checklist)) = copy.results.first_mut()
        && let Some(ResultField::Textbox(notes)) = checklist.data.first_mut()
    {
        notes.value = Some(FieldValue::String(format!("Checked {id}")));
    }
    copy.id = InspectionId::new(id);
    copy
}

fn generated_id(n: usize) -> String {
    format!("ins_{n:06}")
}

/// Spread over the last 200 days, oldest first, a millisecond apart at least.
fn generated_at(now: DateTime<Utc>, n: usize) -> DateTime<Utc> {
    now - Duration::days(200) + Duration::seconds(n as i64 * 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_inspections_copied_are_the_ones_made_in_full() {
        let now = DateTime::from_timestamp_millis(1_764_000_000_123).unwrap();
        let origin = "http://127.0.0.1:1";
        let full: Vec<Inspection> = (0..8)
            .map(|n| generated_inspection(now, n, origin))
            .collect();
        assert_eq!(generated_inspections(now, 8, origin), full);
    }
}
