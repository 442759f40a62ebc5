//! Every v3 operation puts exactly the documented method, path, query, headers and body on
//! the wire (recorded by a local server), and reads the documented answer.

#[path = "support/mod.rs"]
mod support;

use chrono::{TimeZone, Utc};
use inspection_client::v3::*;
use serde_json::json;
use support::server::{Canned, Recorded, Server};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/fixtures/v3/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const EMPTY_PAGE: &str = r#"{"data": [], "paging": {"next": null}}"#;

async fn setup() -> (Server, Client) {
    let server = Server::start().await;
    let client = Client::new(&server.base(), ApiKey::new("key-id-1", "s3cret-value")).unwrap();
    (server, client)
}

/// The request arrived as `method uri` with the key headers and the `accept` wanted.
fn assert_wire(r: &Recorded, method: &str, uri: &str, accept: &str) {
    assert_eq!((r.method.as_str(), r.uri.as_str()), (method, uri));
    assert_eq!(r.header("api-key-id"), Some("key-id-1"));
    assert_eq!(r.header("api-key-secret"), Some("s3cret-value"));
    assert_eq!(r.header("accept"), Some(accept));
    assert!(
        r.header("user-agent")
            .unwrap()
            .starts_with("inspection-client/")
    );
}

fn assert_no_body(r: &Recorded) {
    assert!(r.body.is_empty(), "unexpected body {:?}", r.body);
    assert_eq!(r.header("content-type"), None);
}

fn assert_json_body(r: &Recorded, body: serde_json::Value) {
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json(), body);
}

fn since() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap()
}

#[tokio::test]
async fn list_units() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("units_page.json")));
    let page = client
        .list_units()
        .per_page(50)
        .page("Y3Vyc29y")
        .reference_number("FL 42/ü")
        .serial_number("SN-1")
        .send()
        .await
        .unwrap();
    assert_eq!(page.data.len(), 2);
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        "/v3/units?page=Y3Vyc29y&per_page=50&referenceNumber=FL+42%2F%C3%BC&serialNumber=SN-1",
        "application/json",
    );
    assert_no_body(&r);
}

#[tokio::test]
async fn create_unit() {
    let (server, client) = setup().await;
    server.push(Canned::json(201, &fixture("unit.json")));
    let body = NewUnit::new("TR-0208")
        .make("Kenworth")
        .year(2021)
        .hours(10)
        .odometer(0);
    let unit = client.create_unit(body).send().await.unwrap();
    assert_eq!(unit.reference_number, "TR-0208");
    let r = server.take_one();
    assert_wire(&r, "POST", "/v3/units", "application/json");
    // Unset optional fields are omitted, not sent as null.
    assert_json_body(
        &r,
        json!({"reference_number": "TR-0208", "make": "Kenworth", "year": 2021, "hours": 10, "odometer": 0}),
    );
}

#[tokio::test]
async fn get_unit_encodes_the_id_as_one_segment() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("unit.json")));
    client.get_unit("u/1 2").send().await.unwrap();
    let r = server.take_one();
    assert_wire(&r, "GET", "/v3/units/u%2F1%202", "application/json");
    assert_no_body(&r);
}

#[tokio::test]
async fn update_unit() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("unit.json")));
    client
        .update_unit(
            UnitId::new("u1"),
            UnitPatch::default().model("T880").vin("1XKZD49X0LJ123456"),
        )
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    assert_wire(&r, "PATCH", "/v3/units/u1", "application/json");
    assert_json_body(&r, json!({"model": "T880", "vin": "1XKZD49X0LJ123456"}));
}

#[tokio::test]
async fn get_unit_by_reference_number() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("unit.json")));
    client
        .get_unit_by_reference_number("A/1 ünit")
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        "/v3/units/by_reference_number/A%2F1%20%C3%BCnit",
        "application/json",
    );
}

#[tokio::test]
async fn update_unit_by_reference_number() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("unit.json")));
    let mut extra = serde_json::Map::new();
    extra.insert("fleet".into(), json!({"group": 4}));
    client
        .update_unit_by_reference_number("TR-0208", UnitAttributes::default().extended_data(extra))
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    assert_wire(
        &r,
        "PATCH",
        "/v3/units/by_reference_number/TR-0208",
        "application/json",
    );
    assert_json_body(&r, json!({"extended_data": {"fleet": {"group": 4}}}));
}

#[tokio::test]
async fn upsert_tells_created_from_replaced() {
    let (server, client) = setup().await;
    server.push(Canned::json(201, &fixture("unit.json")));
    server.push(Canned::json(200, &fixture("unit.json")));
    let body = UnitAttributes::default().serial_number("SN-9");
    let first = client
        .upsert_unit_by_reference_number("TR-0208", body.clone())
        .send()
        .await
        .unwrap();
    assert!(first.is_created());
    let second = client
        .upsert_unit_by_reference_number("TR-0208", body)
        .send()
        .await
        .unwrap();
    assert!(matches!(second, inspection_client::Upserted::Replaced(_)));
    let recorded = server.recorded();
    assert_eq!(recorded.len(), 2);
    assert_wire(
        &recorded[0],
        "PUT",
        "/v3/units/by_reference_number/TR-0208",
        "application/json",
    );
    assert_json_body(&recorded[0], json!({"serial_number": "SN-9"}));
}

#[tokio::test]
async fn list_unit_inspections() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("inspections_page.json")));
    client
        .list_unit_inspections("u1")
        .created_after(since())
        .created_before(Utc.with_ymd_and_hms(2026, 4, 1, 12, 30, 0).unwrap())
        .r#type(InspectionTypeFilter::Close)
        .department_name("Yard")
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        "/v3/units/u1/inspections?created_after=2026-03-01T00%3A00%3A00Z&created_before=2026-04-01T12%3A30%3A00Z&type=close&department_name=Yard",
        "application/json",
    );
}

#[tokio::test]
async fn list_unit_inspections_by_reference_number() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, EMPTY_PAGE));
    client
        .list_unit_inspections_by_reference_number("TR 1")
        .per_page(100)
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        "/v3/units/by_reference_number/TR%201/inspections?per_page=100",
        "application/json",
    );
}

#[tokio::test]
async fn list_inspections() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("inspections_page.json")));
    let page = client
        .list_inspections()
        .r#type(InspectionTypeFilter::Open)
        .send()
        .await
        .unwrap();
    assert_eq!(page.data.len(), 2);
    let r = server.take_one();
    assert_wire(&r, "GET", "/v3/inspections?type=open", "application/json");
}

#[tokio::test]
async fn get_inspection_as_json_and_as_pdf() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("inspection.json")));
    server.push(Canned::bytes(200, "application/pdf", b"%PDF-1.4 tiny"));
    let inspection = client.get_inspection("i-1").send().await.unwrap();
    assert!(!inspection.results.is_empty());
    let pdf = client.get_inspection("i-1").pdf().await.unwrap();
    assert_eq!(&pdf[..], b"%PDF-1.4 tiny");
    let recorded = server.recorded();
    assert_wire(
        &recorded[0],
        "GET",
        "/v3/inspections/i-1",
        "application/json",
    );
    assert_wire(
        &recorded[1],
        "GET",
        "/v3/inspections/i-1",
        "application/pdf",
    );
}

#[tokio::test]
async fn get_inspection_share_url() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("share_url.json")));
    let share = client.get_inspection_share_url("i-1").send().await.unwrap();
    assert!(share.link.starts_with("https://"));
    assert_wire(
        &server.take_one(),
        "GET",
        "/v3/inspections/i-1/share_url",
        "application/json",
    );
}

#[tokio::test]
async fn get_form() {
    let (server, client) = setup().await;
    server.push(Canned::bytes(200, "application/pdf", b"%PDF-form"));
    let pdf = client.get_form("f 1").send().await.unwrap();
    assert_eq!(&pdf[..], b"%PDF-form");
    assert_wire(
        &server.take_one(),
        "GET",
        "/v3/forms/f%201",
        "application/pdf",
    );
}

#[tokio::test]
async fn list_tasks() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, EMPTY_PAGE));
    client
        .list_tasks()
        .updated_after(since())
        .updated_before(since())
        .completed_after(since())
        .completed_before(since())
        .due_after(since())
        .due_before(since())
        .created_after(since())
        .created_before(since())
        .status(TaskStatusFilter::Incomplete)
        .send()
        .await
        .unwrap();
    let t = "2026-03-01T00%3A00%3A00Z";
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        &format!(
            "/v3/tasks?created_after={t}&created_before={t}&updated_after={t}&updated_before={t}\
             &completed_after={t}&completed_before={t}&due_after={t}&due_before={t}&status=incomplete"
        ),
        "application/json",
    );
}

#[tokio::test]
async fn create_task_in_each_assignee_variant() {
    let (server, client) = setup().await;
    let due = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    for (assignee, expected) in [
        (
            TaskAssignee::user("dana@example.com"),
            json!({"assignee_username": "dana@example.com"}),
        ),
        (TaskAssignee::location(42), json!({"location_id": 42})),
        (TaskAssignee::user_group(7), json!({"user_group_id": 7})),
    ] {
        server.push(Canned::json(201, &fixture("task.json")));
        let body = TaskRequest::new("Inspect loader", "LD-7", due, assignee)
            .description("Check the hydraulics")
            .requires_inspection(true);
        client.create_task(body).send().await.unwrap();
        let r = server.take_one();
        assert_wire(&r, "POST", "/v3/tasks", "application/json");
        let mut want = json!({"name": "Inspect loader", "reference_number": "LD-7", "due_by": "2026-12-01",
                              "description": "Check the hydraulics", "requires_inspection": true});
        want.as_object_mut()
            .unwrap()
            .extend(expected.as_object().unwrap().clone());
        assert_json_body(&r, want);
    }
}

#[tokio::test]
async fn get_task() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("task.json")));
    client.get_task("t-1").send().await.unwrap();
    let r = server.take_one();
    assert_wire(&r, "GET", "/v3/tasks/t-1", "application/json");
    assert_no_body(&r);
}

#[tokio::test]
async fn update_task_sends_a_date_time_due_by() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &fixture("task.json")));
    let due = Utc.with_ymd_and_hms(2026, 12, 1, 17, 0, 0).unwrap();
    let body = TaskRequest::new("Inspect", "LD-7", due, TaskAssignee::location(3));
    client.update_task("t-1", body).send().await.unwrap();
    let r = server.take_one();
    assert_wire(&r, "PATCH", "/v3/tasks/t-1", "application/json");
    assert_json_body(
        &r,
        json!({"name": "Inspect", "reference_number": "LD-7", "due_by": "2026-12-01T17:00:00Z", "location_id": 3}),
    );
}

#[tokio::test]
async fn delete_task() {
    let (server, client) = setup().await;
    server.push(Canned::status(204));
    client.delete_task("t-1").send().await.unwrap();
    let r = server.take_one();
    assert_wire(&r, "DELETE", "/v3/tasks/t-1", "application/json");
    assert_no_body(&r);
}

#[tokio::test]
async fn list_workflows() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        r#"{"data": [{"id": "w1", "name": "Pickup", "steps": 4}], "paging": {}}"#,
    ));
    let page = client
        .list_workflows()
        .location_id("loc-9")
        .department_name("Rental")
        .send()
        .await
        .unwrap();
    // Undocumented properties of a partly documented record are kept.
    assert_eq!(page.data[0].additional_properties["steps"], 4);
    let r = server.take_one();
    assert_wire(
        &r,
        "GET",
        "/v3/workflows?location_id=loc-9&department_name=Rental",
        "application/json",
    );
}

#[tokio::test]
async fn list_locations_users_and_user_groups() {
    let (server, client) = setup().await;
    for _ in 0..3 {
        server.push(Canned::json(200, EMPTY_PAGE));
    }
    client.list_locations().per_page(1).send().await.unwrap();
    client.list_users().page("abc").send().await.unwrap();
    client.list_user_groups().send().await.unwrap();
    let r = server.recorded();
    assert_wire(&r[0], "GET", "/v3/locations?per_page=1", "application/json");
    assert_wire(&r[1], "GET", "/v3/users?page=abc", "application/json");
    assert_wire(&r[2], "GET", "/v3/user_groups", "application/json");
}

#[tokio::test]
async fn update_user_answers_the_list_shape() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        r#"{"data": [{"id": "u-5", "first_name": "Dana"}], "paging": {}}"#,
    ));
    let page = client
        .update_user(
            "u-5",
            UserUpdate::default().first_name("Dana").external_id("E-5"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(page.data[0].first_name.as_deref(), Some("Dana"));
    let r = server.take_one();
    assert_wire(&r, "PATCH", "/v3/users/u-5", "application/json");
    assert_json_body(&r, json!({"first_name": "Dana", "external_id": "E-5"}));
}
