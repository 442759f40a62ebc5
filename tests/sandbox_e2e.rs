//! The generated v3 client end to end through the sandbox, over real HTTP.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::Utc;
use futures_util::TryStreamExt;
use inspection_client::runtime::__private::Auth;
use inspection_client::runtime::{Core, Method, Request};
use inspection_client::v3::*;
use inspection_client::{Config, Error};
use sandbox::{DEMO_KEY, Options, PagingStyle, Sandbox};

#[path = "support/mod.rs"]
mod support;

use support::v3::{client, demo, sandbox};

fn is_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-") && bytes.ends_with(b"%%EOF\n")
}

#[tokio::test]
async fn missing_or_wrong_keys_are_401() {
    let (sandbox, _) = demo().await;
    let wrong = Client::new(&sandbox.base_url(), ApiKey::new(DEMO_KEY.0, "nope")).unwrap();
    let err = wrong.list_units().send().await.unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.status == 401 && a.message.as_deref() == Some("The API key id or secret is not valid")),
        "{err:?}"
    );
    let bare = Core::new(&sandbox.base_url(), Auth::None, Config::default()).unwrap();
    let err = bare
        .execute(&Request::new(Method::GET, "/units").segment("units"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.status == 401 && a.message.as_deref().unwrap().contains("headers are required")),
        "{err:?}"
    );
}

#[tokio::test]
async fn units_create_get_patch_upsert_and_by_reference() {
    let (_sandbox, client) = demo().await;
    let reference = "YD 7/ü"; // a slash, a space and unicode stay one path segment
    let created = client
        .create_unit(
            NewUnit::new(reference)
                .make("Volvo")
                .year(2020)
                .vin("YV1AS982591123456"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.reference_number.as_deref(), Some(reference));
    let again = client
        .create_unit(NewUnit::new(reference))
        .send()
        .await
        .unwrap_err();
    assert_eq!(again.status(), Some(409));

    let fetched = client.get_unit(created.id.clone()).send().await.unwrap();
    assert_eq!(fetched, created);
    let by_reference = client
        .get_unit_by_reference_number(reference)
        .send()
        .await
        .unwrap();
    assert_eq!(by_reference.id, created.id);

    let patched = client
        .update_unit(created.id.clone(), UnitPatch::default().hours(12))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (patched.hours, patched.make.as_deref()),
        (Some(12), Some("Volvo"))
    );
    let patched = client
        .update_unit_by_reference_number(reference, UnitAttributes::default().model("EC220"))
        .send()
        .await
        .unwrap();
    assert_eq!(patched.model.as_deref(), Some("EC220"));

    let replaced = client
        .upsert_unit_by_reference_number(reference, UnitAttributes::default().make("Volvo CE"))
        .send()
        .await
        .unwrap();
    assert!(!replaced.is_created());
    assert_eq!(
        replaced.get().model,
        None,
        "PUT replaces the unit's attributes"
    );
    let created = client
        .upsert_unit_by_reference_number("NEW-1", UnitAttributes::default().year(2024))
        .send()
        .await
        .unwrap();
    assert!(created.is_created());

    let missing = client
        .get_unit_by_reference_number("A-001")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        missing.to_string(),
        "GET /units/by_reference_number/{reference_number} answered 404: The Unit A-001 could not be found"
    );
}

#[tokio::test]
async fn the_sandbox_checks_every_limit_too() {
    let (sandbox, _) = demo().await;
    let config = Client::default_config()
        .no_pacing()
        .validate_requests(false);
    let client = client(&sandbox, config);
    let err = client
        .create_unit(NewUnit::new("V-1").vin("SHORT").year(1799))
        .send()
        .await
        .unwrap_err();
    let api = support::api_error(&err);
    assert_eq!(api.status, 422);
    assert_eq!(
        api.message.as_deref(),
        Some(
            "year: must be at least 1800, got 1799; vin: must be exactly 17 characters, got 5; vin: must hold only ASCII letters and digits, never I, O, Q, i, o, q; found 'O' at position 3"
        )
    );
    // A bad query parameter is the spec's 400 (listed for every v3 operation).
    let err = client.list_units().per_page(101).send().await.unwrap_err();
    assert_eq!(err.status(), Some(400));
    let core = client.core();
    let mut bad = Request::new(Method::POST, "/units").segment("units");
    bad.body = Some(b"{not json".to_vec());
    let err = core.execute(&bad).await.unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.status == 400 && a.message.as_deref().unwrap().starts_with("malformed JSON")),
        "{err:?}"
    );
    client.list_inspections().send().await.unwrap();
    let mut bad_filter = Request::new(Method::GET, "/inspections").segment("inspections");
    bad_filter.query.push(("type", "reopen".into()));
    assert_eq!(
        core.execute(&bad_filter).await.unwrap_err().status(),
        Some(400)
    );
}

#[tokio::test]
async fn lists_with_filters_across_pages_in_both_paging_styles() {
    for paging in [PagingStyle::NextUrl, PagingStyle::Cursor, PagingStyle::Both] {
        let (_sandbox, client) = sandbox(Options {
            extra_inspections: 50,
            paging,
            ..Options::default()
        })
        .await;
        // 53 inspections: 50 generated (types cycle open/update/close) and 3 demo ones.
        let all: Vec<Inspection> = client
            .list_inspections()
            .per_page(7)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(all.len(), 53, "{paging:?}");
        let ids: BTreeSet<&str> = all.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids.len(), 53, "a record came twice ({paging:?})");

        let closes: Vec<Inspection> = client
            .list_inspections()
            .r#type(InspectionTypeFilter::Close)
            .per_page(5)
            .stream()
            .try_collect()
            .await
            .unwrap();
        assert!(
            closes
                .iter()
                .all(|i| i.r#type == Some(InspectionType::Close))
        );
        assert_eq!(closes.len(), 16 + 1, "{paging:?}"); // 16 generated + the demo close

        let cutoff = all[20]
            .created_at
            .expect("the sandbox dates every inspection");
        let recent = client
            .list_inspections()
            .created_after(cutoff)
            .per_page(9)
            .stream()
            .try_collect::<Vec<_>>()
            .await
            .unwrap();
        assert!(recent.iter().all(|i| i.created_at >= Some(cutoff)));
        assert_eq!(
            recent.len(),
            all.iter().filter(|i| i.created_at >= Some(cutoff)).count()
        );

        let pages: Vec<Page<Inspection>> = client
            .list_inspections()
            .per_page(20)
            .pages()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            pages.iter().map(|p| p.data.len()).collect::<Vec<_>>(),
            [20, 20, 13]
        );
    }
}

#[tokio::test]
async fn generated_inspections_are_seeded_with_or_without_the_demo_fleet() {
    for demo in [false, true] {
        let (_sandbox, client) = sandbox(Options {
            demo,
            extra_inspections: 7,
            ..Options::default()
        })
        .await;
        let ids: Vec<String> = client
            .list_inspections()
            .per_page(3)
            .stream()
            .map_ok(|i| i.id.as_str().to_string())
            .try_collect()
            .await
            .unwrap();
        let generated = ids.iter().filter(|id| id.starts_with("ins_0")).count();
        assert_eq!(generated, 7, "demo fleet {demo}: {ids:?}");
        assert_eq!(ids.len() > 7, demo, "demo fleet {demo}: {ids:?}");
    }
}

#[tokio::test]
async fn unit_inspections_and_other_lists() {
    let (_sandbox, client) = demo().await;
    let by_id = client
        .list_unit_inspections("unt_001")
        .send()
        .await
        .unwrap();
    let by_reference = client
        .list_unit_inspections_by_reference_number("EX-0117")
        .send()
        .await
        .unwrap();
    assert_eq!(by_id.data, by_reference.data);
    assert!(
        by_id
            .data
            .iter()
            .all(|i| i.unit.as_ref().unwrap().reference_number.as_deref() == Some("EX-0117"))
    );
    assert_eq!(
        client
            .list_unit_inspections("nope")
            .send()
            .await
            .unwrap_err()
            .status(),
        Some(404)
    );

    let units = client
        .list_units()
        .reference_number("FL-0042")
        .send()
        .await
        .unwrap();
    assert_eq!(units.data.len(), 1);
    let workflows = client
        .list_workflows()
        .location_id("102")
        .send()
        .await
        .unwrap();
    assert_eq!(
        workflows
            .data
            .iter()
            .map(|w| w.name.clone().unwrap())
            .collect::<Vec<_>>(),
        ["Service"]
    );
    let workflows = client
        .list_workflows()
        .department_name("Rental")
        .send()
        .await
        .unwrap();
    assert_eq!(workflows.data.len(), 2);
    assert_eq!(client.list_locations().send().await.unwrap().data.len(), 2);
    assert_eq!(
        client.list_user_groups().send().await.unwrap().data.len(),
        2
    );
    let users: Vec<User> = client
        .list_users()
        .per_page(1)
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(users.len(), 3);

    let updated = client
        .update_user("usr_2", UserUpdate::default().external_id("EMP-2"))
        .send()
        .await
        .unwrap();
    assert_eq!(updated.data.len(), 1, "PATCH /users answers the list shape");
    assert_eq!(updated.data[0].external_id.as_deref(), Some("EMP-2"));
}

#[tokio::test]
async fn the_demo_inspection_has_every_kind() {
    let (_sandbox, client) = demo().await;
    let inspection = client.get_inspection("ins_demo_full").send().await.unwrap();
    let kinds: Vec<&str> = inspection.results.iter().map(|r| r.tag()).collect();
    assert_eq!(
        kinds,
        [
            "checklist",
            "data_template",
            "pdf_form",
            "collision_damage_waiver"
        ]
    );
    let InspectionResult::Checklist(c) = &inspection.results[0] else {
        panic!()
    };
    assert_eq!(c.data.len(), 10);
    let signatures: Vec<&str> = inspection.signatures.iter().map(|s| s.tag()).collect();
    assert_eq!(signatures, ["inspection", "esign"]);
}

#[tokio::test]
async fn tasks_in_each_variant_get_patch_delete_and_rule_7() {
    let (_sandbox, client) = demo().await;
    // Relative to today, so the due-date filter below holds whenever the test runs.
    let due = (Utc::now() + chrono::Duration::days(60)).date_naive();
    let mut ids = Vec::new();
    for assignee in [
        TaskAssignee::user("sam.lee@example.com"),
        TaskAssignee::location(101),
        TaskAssignee::user_group(201),
    ] {
        let task = client
            .create_task(
                TaskRequest::new("Check tyres", "TR-0208", due, assignee).requires_inspection(true),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(task.status, Some(TaskStatus::Idle));
        assert_eq!(task.r#type, Some(TaskType::Inspection));
        assert_eq!(
            task.due_by,
            Some(due.and_hms_opt(0, 0, 0).unwrap().and_utc())
        );
        ids.push(task.id);
    }
    let first = client.get_task(ids[0].clone()).send().await.unwrap();
    assert_eq!(
        first.assignee.unwrap().username.as_deref(),
        Some("sam.lee@example.com")
    );
    let unknown = client
        .create_task(TaskRequest::new(
            "x",
            "TR-0208",
            due,
            TaskAssignee::user("nobody@example.com"),
        ))
        .send()
        .await
        .unwrap_err();
    assert_eq!(unknown.status(), Some(422));

    let mut data = serde_json::Map::new();
    data.insert("fuel".into(), serde_json::json!("3/4"));
    let patched = client
        .update_task(
            ids[1].clone(),
            TaskRequest::new(
                "Check tyres and fuel",
                "TR-0208",
                due,
                TaskAssignee::location(102),
            )
            .extended_data(data.clone()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(patched.name.as_deref(), Some("Check tyres and fuel"));
    assert_eq!(patched.extended_data["fuel"], "3/4");

    // Rule 7: a task with a draft inspection refuses extended data.
    let err = client
        .update_task(
            "tsk_started",
            TaskRequest::new("x", "FL-0042", due, TaskAssignee::location(101)).extended_data(data),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert!(err.to_string().contains("draft inspection"), "{err}");

    client.delete_task(ids[2].clone()).send().await.unwrap();
    assert_eq!(
        client
            .get_task(ids[2].clone())
            .send()
            .await
            .unwrap_err()
            .status(),
        Some(404)
    );

    let complete: Vec<Task> = client
        .list_tasks()
        .status(TaskStatusFilter::Complete)
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        complete.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["tsk_completed", "tsk_complete"]
    );
    let incomplete: Vec<Task> = client
        .list_tasks()
        .status(TaskStatusFilter::Incomplete)
        .stream()
        .try_collect()
        .await
        .unwrap();
    // idle, started and incomplete demo tasks, and the two new ones still open.
    assert_eq!(incomplete.len(), 3 + 2);
    let due_soon: Vec<Task> = client
        .list_tasks()
        .due_before(Utc::now() + chrono::Duration::days(30))
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        due_soon.len(),
        5,
        "the demo tasks are due within a week, the new ones in 60 days"
    );
}

#[tokio::test]
async fn inspection_and_form_pdfs_render_after_a_202() {
    let config = Client::default_config()
        .no_pacing()
        .poll_interval(Duration::from_millis(20));
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let client = client(&sandbox, config);
    let before = sandbox.stats().await.requests;
    let pdf = client.get_inspection("ins_demo_full").pdf().await.unwrap();
    assert!(is_pdf(&pdf));
    assert_eq!(
        sandbox.stats().await.requests - before,
        2,
        "one 202, then the PDF"
    );
    let form = client.get_form("frm_demo_1").send().await.unwrap();
    assert!(is_pdf(&form));
    assert_eq!(
        client
            .get_form("frm_nope")
            .send()
            .await
            .unwrap_err()
            .status(),
        Some(404)
    );
}

#[tokio::test]
async fn share_urls_work_without_keys_until_they_expire() {
    let (sandbox, client) = demo().await;
    let share = client
        .get_inspection_share_url("ins_demo_open")
        .send()
        .await
        .unwrap();
    assert!(share.expires_at.unwrap() > Utc::now() + chrono::Duration::hours(47));
    let pdf = client.fetch_presigned(&share.link).await.unwrap();
    assert!(is_pdf(&pdf));
    sandbox.advance(chrono::Duration::hours(49));
    let err = client.fetch_presigned(&share.link).await.unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.status == 403 && a.message.as_deref() == Some("This link has expired")),
        "{err:?}"
    );
}
