//! Demo data: a small fleet with inspections of every result kind, field type and
//! signature type, tasks in each status, workflows, locations, users and user groups.

use chrono::{DateTime, Duration, Utc};
use inspection_client::v3::*;
use serde_json::json;

use crate::store::Store;

/// Fills `store` with the demo fleet, all timestamped before `now`.
pub fn load(store: &mut Store, now: DateTime<Utc>, origin: &str) {
    let day = |d: i64| now - Duration::days(d);

    for (i, (name, ext)) in [("Main Yard", Some("LOC-MAIN")), ("North Depot", None)]
        .into_iter()
        .enumerate()
    {
        let seq = store.seq();
        store.locations.push(crate::store::Row {
            seq,
            record: Location {
                id: Some(LocationId::new(format!("{}", 101 + i))),
                external_id: Some(ext.map(str::to_string)),
                name: Some(name.to_string()),
                additional_properties: Default::default(),
            },
        });
    }
    for (id, name) in [("201", "Mechanics"), ("202", "Drivers")] {
        let seq = store.seq();
        store.user_groups.push(crate::store::Row {
            seq,
            record: UserGroup {
                id: Some(UserGroupId::new(id)),
                name: Some(name.to_string()),
                additional_properties: Default::default(),
            },
        });
    }
    for (id, username, first, last) in [
        ("usr_1", "dana.ortiz@example.com", "Dana", "Ortiz"),
        ("usr_2", "sam.lee@example.com", "Sam", "Lee"),
        ("usr_3", "shop-tech-3", "Robin", "Hale"),
    ] {
        let seq = store.seq();
        store.users.push(crate::store::Row {
            seq,
            record: User {
                id: Some(UserId::new(id)),
                username: Some(username.to_string()),
                external_id: None,
                first_name: Some(first.to_string()),
                last_name: Some(last.to_string()),
                additional_properties: Default::default(),
            },
        });
    }
    for (id, name, location) in [
        ("wf_pickup", "Pickup", "101"),
        ("wf_return", "Return", "101"),
        ("wf_service", "Service", "102"),
    ] {
        let seq = store.seq();
        let mut extra = serde_json::Map::new();
        extra.insert("location_id".into(), json!(location));
        extra.insert(
            "department_name".into(),
            json!(if location == "101" {
                "Rental"
            } else {
                "Service"
            }),
        );
        store.workflows.push(crate::store::Row {
            seq,
            record: Workflow {
                id: Some(WorkflowId::new(id)),
                name: Some(name.to_string()),
                additional_properties: extra,
            },
        });
    }

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
        let mut extended = serde_json::Map::new();
        extended.insert("fleet_group".into(), json!("north"));
        let unit = Unit {
            additional_properties: Default::default(),
            id: UnitId::new(format!("unt_{:03}", i + 1)),
            object: Some("unit".into()),
            reference_number: Some(reference.into()),
            make: Some(make.into()),
            model: Some(model.into()),
            year: Some(year),
            vin: vin.map(str::to_string),
            serial_number: Some(format!("SN-{}", 7000 + i)),
            hours: Some(hours),
            odometer: Some(odometer),
            created_at: Some(created),
            updated_at: Some(created),
            extended_data: extended,
        };
        store.push_unit(unit);
    }

    store.push_inspection(full_inspection("ins_demo_full", day(30), origin));
    store.push_inspection(simple_inspection(
        "ins_demo_open",
        InspectionType::Open,
        day(20),
        1,
        origin,
    ));
    store.push_inspection(simple_inspection(
        "ins_demo_update",
        InspectionType::Update,
        day(10),
        2,
        origin,
    ));
    store.forms.push("frm_demo_1".into());

    // Every documented status; `tsk_started` has a draft inspection attached (rule 7).
    let tasks = [
        ("tsk_idle", TaskStatus::Idle, TaskType::Inspection, false),
        (
            "tsk_started",
            TaskStatus::Started,
            TaskType::Inspection,
            true,
        ),
        (
            "tsk_completed",
            TaskStatus::Completed,
            TaskType::Manual,
            false,
        ),
        (
            "tsk_incomplete",
            TaskStatus::Incomplete,
            TaskType::Task,
            false,
        ),
        ("tsk_complete", TaskStatus::Complete, TaskType::Task, false),
    ];
    for (i, (id, status, ty, draft)) in tasks.into_iter().enumerate() {
        let created = day(15 - i as i64);
        let completed =
            matches!(status, TaskStatus::Completed | TaskStatus::Complete).then(|| day(2));
        let task = Task {
            additional_properties: Default::default(),
            id: TaskId::new(id),
            object: Some("task".into()),
            r#type: Some(ty),
            status: Some(status),
            name: Some(format!(
                "Inspect {}",
                ["EX-0117", "FL-0042", "TR-0208"][i % 3]
            )),
            description: Some("Walk-around before rental.".into()),
            priority: Some(i == 0),
            due_by: Some(now + Duration::days(3 + i as i64)),
            inspection: draft.then(|| InspectionRef {
                additional_properties: Default::default(),
                id: Some(InspectionId::new("ins_draft_1")),
            }),
            assignee: Some(TaskAssigneeRef {
                additional_properties: Default::default(),
                id: Some(UserId::new("usr_1")),
                username: Some("dana.ortiz@example.com".into()),
            }),
            unit: Some(UnitRef {
                additional_properties: Default::default(),
                id: Some(UnitId::new(format!("unt_{:03}", i % 3 + 1))),
                reference_number: Some(["EX-0117", "FL-0042", "TR-0208"][i % 3].into()),
            }),
            workflow: Some(WorkflowRef {
                additional_properties: Default::default(),
                id: Some(WorkflowId::new("wf_pickup")),
                name: Some("Pickup".into()),
            }),
            department: None,
            extended_data: Default::default(),
            completed_at: Some(completed),
            created_at: Some(created),
            updated_at: Some(created),
        };
        store.push_task(task, draft);
    }
}

fn refs(n: usize) -> (LocationRef, UnitRef, UserRef) {
    let (unit_id, reference) = [
        ("unt_001", "EX-0117"),
        ("unt_002", "FL-0042"),
        ("unt_003", "TR-0208"),
    ][n % 3];
    (
        LocationRef {
            additional_properties: Default::default(),
            id: Some(LocationId::new("101")),
            external_id: Some(Some("LOC-MAIN".into())),
            name: Some("Main Yard".into()),
        },
        UnitRef {
            additional_properties: Default::default(),
            id: Some(UnitId::new(unit_id)),
            reference_number: Some(reference.into()),
        },
        UserRef {
            additional_properties: Default::default(),
            id: Some(UserId::new("usr_1")),
            username: Some("dana.ortiz@example.com".into()),
        },
    )
}

fn simple_inspection(
    id: &str,
    ty: InspectionType,
    at: DateTime<Utc>,
    n: usize,
    origin: &str,
) -> Inspection {
    let (location, unit, user) = refs(n);
    Inspection {
        additional_properties: Default::default(),
        id: InspectionId::new(id),
        r#type: Some(ty),
        location: Some(location),
        damage_present: Some(n % 2 == 1),
        unit: Some(unit),
        user: Some(user),
        region: None,
        department: Some(DepartmentRef {
            additional_properties: Default::default(),
            id: Some(DepartmentId::new(if n.is_multiple_of(2) {
                "dep_rental"
            } else {
                "dep_service"
            })),
            name: Some(
                if n.is_multiple_of(2) {
                    "Rental"
                } else {
                    "Service"
                }
                .into(),
            ),
        }),
        workflow: None,
        dashboard_url: Some(format!("{origin}/dashboard/inspections/{id}")),
        pdf_share_url: None,
        results: vec![InspectionResult::Checklist(ChecklistResult {
            additional_properties: Default::default(),
            name: Some("Walkaround".into()),
            data: vec![ResultField::Textbox(ValueField {
                additional_properties: Default::default(),
                id: Some(Some("fld_notes".into())),
                object: Some("field".into()),
                label: Some("Notes".into()),
                value: Some(FieldValue::String(format!("Checked {id}"))),
            })],
        })],
        photos: Vec::new(),
        videos: Vec::new(),
        signatures: Vec::new(),
        created_at: Some(at),
        updated_at: Some(at),
    }
}

/// One inspection with every result kind, every field type and both signature types;
/// also what `POST /_sandbox/v3/inspections` creates.
pub(crate) fn full_inspection(id: &str, at: DateTime<Utc>, origin: &str) -> Inspection {
    let field = |fid: Option<&str>, label: &str| {
        (
            fid.map(str::to_string),
            Some("field".to_string()),
            Some(label.to_string()),
        )
    };
    let value_field = |fid: Option<&str>, label: &str, value: FieldValue| {
        let (id, object, label) = field(fid, label);
        ValueField {
            additional_properties: Default::default(),
            id: Some(id),
            object,
            label,
            value: Some(value),
        }
    };
    let items = |values: Vec<(Option<&str>, &str, ItemValue)>| {
        values
            .into_iter()
            .map(|(id, label, value)| ListItem {
                additional_properties: Default::default(),
                id: Some(id.map(str::to_string)),
                label: Some(label.into()),
                value: Some(value),
            })
            .collect::<Vec<_>>()
    };
    let items_field = |fid: &str, label: &str, list| {
        let (id, object, label) = field(Some(fid), label);
        ItemsField {
            additional_properties: Default::default(),
            id: Some(id),
            object,
            label,
            items: list,
        }
    };
    let checklist = ChecklistResult {
        additional_properties: Default::default(),
        name: Some("Return Walkaround".into()),
        data: vec![
            ResultField::Textbox(value_field(
                None,
                "Technician notes",
                FieldValue::String("Bucket teeth worn.".into()),
            )),
            ResultField::BarcodeScanTextbox(value_field(
                Some("fld_barcode"),
                "Attachment barcode",
                FieldValue::String("ATT-99812".into()),
            )),
            ResultField::DateSelector(value_field(
                Some("fld_date"),
                "Next service",
                FieldValue::String("2026-06-01".into()),
            )),
            ResultField::Radio(value_field(
                Some("fld_fuel"),
                "Fuel level",
                FieldValue::String("3/4".into()),
            )),
            ResultField::SingleDropdownList(value_field(
                Some("fld_bay"),
                "Return bay",
                FieldValue::Integer(4),
            )),
            ResultField::SingleDropdownWithId({
                let (id, object, label) = field(Some("fld_driver"), "Driver");
                ItemField {
                    additional_properties: Default::default(),
                    id: Some(id),
                    object,
                    label,
                    item: Some(DropdownItem {
                        additional_properties: Default::default(),
                        id: Some("drv_7".into()),
                        value: Some(FieldValue::String("Sam Lee".into())),
                    }),
                }
            }),
            ResultField::MultiDropdownList(items_field(
                "fld_attachments",
                "Attachments",
                items(vec![
                    (Some("att_1"), "Bucket", ItemValue::String("bucket".into())),
                    (Some("att_2"), "Thumb", ItemValue::Integer(2)),
                ]),
            )),
            ResultField::Checkbox(items_field(
                "fld_ppe",
                "PPE present",
                items(vec![(
                    Some("ppe_1"),
                    "Extinguisher",
                    ItemValue::Boolean(true),
                )]),
            )),
            ResultField::PassFail(items_field(
                "fld_lights",
                "Lights",
                items(vec![
                    (None, "Front", ItemValue::String("pass".into())),
                    (Some("lt_2"), "Rear", ItemValue::Boolean(false)),
                ]),
            )),
            ResultField::PartnerCase({
                let (id, object, label) = field(Some("fld_case"), "Repair case");
                PartnerCaseField {
                    additional_properties: Default::default(),
                    id: Some(id),
                    object,
                    label,
                    value: Some(PartnerCase {
                        additional_properties: Default::default(),
                        case_id: Some("3f2b8c1d9e7a4b6c8d0e1f2a3b4c5d6e".into()),
                        case_reference_number: Some("CASE-2207".into()),
                        service_provider_id: Some("a1b2c3d4e5f60718293a4b5c6d7e8f90".into()),
                    }),
                }
            }),
        ],
    };
    let template = DataTemplateResult {
        additional_properties: Default::default(),
        name: Some("Damage Report".into()),
        version: Some(3),
        slug: Some("damage-report".into()),
        errors: vec![
            TemplateError {
                additional_properties: Default::default(),
                error: Some("Template was updated after this inspection.".into()),
                field_id: Some(None),
                severity: Some(ErrorSeverity::Warning),
            },
            TemplateError {
                additional_properties: Default::default(),
                error: Some("Hour meter is required.".into()),
                field_id: Some(Some("fld_hours".into())),
                severity: Some(ErrorSeverity::Error),
            },
        ],
        data: vec![ResultField::Textbox(value_field(
            Some("fld_hours"),
            "Hour meter",
            FieldValue::Integer(4210),
        ))],
    };
    let mut form_data = std::collections::BTreeMap::new();
    form_data.insert(
        "customer".to_string(),
        FormDataValue::String("Acme Rentals".into()),
    );
    form_data.insert("days".to_string(), FormDataValue::Integer(3));
    form_data.insert("insured".to_string(), FormDataValue::Boolean(true));
    form_data.insert("po_number".to_string(), FormDataValue::Null);
    let (location, unit, user) = refs(0);
    Inspection {
        additional_properties: Default::default(),
        id: InspectionId::new(id),
        r#type: Some(InspectionType::Close),
        location: Some(LocationRef {
            external_id: Some(None),
            ..location
        }),
        damage_present: Some(true),
        unit: Some(unit),
        user: Some(user),
        region: Some(RegionRef {
            additional_properties: Default::default(),
            id: Some(RegionId::new("reg_west")),
            name: Some("West".into()),
        }),
        department: Some(DepartmentRef {
            additional_properties: Default::default(),
            id: Some(DepartmentId::new("dep_rental")),
            name: Some("Rental".into()),
        }),
        workflow: Some(WorkflowRef {
            additional_properties: Default::default(),
            id: Some(WorkflowId::new("wf_return")),
            name: Some("Return".into()),
        }),
        dashboard_url: Some(format!("{origin}/dashboard/inspections/{id}")),
        pdf_share_url: None,
        results: vec![
            InspectionResult::Checklist(checklist),
            InspectionResult::DataTemplate(template),
            InspectionResult::PdfForm(PdfFormResult {
                additional_properties: Default::default(),
                name: Some("Rental Agreement".into()),
                link: Some(format!("{origin}/v3/forms/frm_demo_1")),
                data: form_data,
            }),
            InspectionResult::CollisionDamageWaiver(CollisionDamageWaiverResult {
                additional_properties: Default::default(),
                name: Some("CDW".into()),
                accepted: Some(true),
            }),
        ],
        photos: vec![
            Photo {
                additional_properties: Default::default(),
                object: Some("photo".into()),
                url: Some(format!("{origin}/media/p1.jpg")),
                instruction: Some(Some(PhotoInstruction {
                    additional_properties: Default::default(),
                    id: Some("ins_front".into()),
                    label: Some("Front".into()),
                })),
                field: Some(None),
                tags: vec![PhotoTag {
                    additional_properties: Default::default(),
                    label: Some("damage".into()),
                }],
            },
            Photo {
                additional_properties: Default::default(),
                object: Some("photo".into()),
                url: Some(format!("{origin}/media/p2.jpg")),
                instruction: Some(None),
                field: Some(Some(PhotoField {
                    additional_properties: Default::default(),
                    id: Some(Some("fld_barcode".into())),
                    label: Some("Attachment barcode".into()),
                    result_object_name: Some("Return Walkaround".into()),
                })),
                tags: Vec::new(),
            },
            Photo {
                additional_properties: Default::default(),
                object: Some("photo".into()),
                url: Some(format!("{origin}/media/p3.jpg")),
                instruction: Some(None),
                field: Some(None),
                tags: Vec::new(),
            },
        ],
        videos: vec![Video {
            additional_properties: Default::default(),
            object: Some("video".into()),
            url: Some(format!("{origin}/media/v1.mp4")),
        }],
        signatures: vec![
            Signature::Inspection(InspectionSignature {
                additional_properties: Default::default(),
                object: Some("signature".into()),
                url: Some(format!("{origin}/media/s1.png")),
                label: Some("Signed by customer".into()),
                printed_name: Some("Jordan Price".into()),
            }),
            Signature::Esign(EsignSignature {
                additional_properties: Default::default(),
                object: Some("signature".into()),
                url: Some(format!("{origin}/media/s2.pdf")),
                signed_at: Some(at),
            }),
        ],
        created_at: Some(at),
        updated_at: Some(at),
    }
}

/// Adds `count` generated inspections (for export tests), with or without the demo fleet:
/// spread over the 200 days before `now`, oldest first.
pub fn generated_inspections(store: &mut Store, now: DateTime<Utc>, count: usize, origin: &str) {
    for n in 0..count {
        // Spread over the last 200 days, oldest first, a millisecond apart at least.
        let at = now - Duration::days(200) + Duration::seconds(n as i64 * 60);
        let ty = [
            InspectionType::Open,
            InspectionType::Update,
            InspectionType::Close,
        ][n % 3]
            .clone();
        store.push_inspection(simple_inspection(
            &format!("ins_{n:06}"),
            ty,
            at,
            n % 3,
            origin,
        ));
    }
}
