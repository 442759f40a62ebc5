//! Documented limits are checked before anything is sent, all at once, with field paths;
//! responses are never refused for breaking them.

#[path = "support/mod.rs"]
mod support;

use inspection_client::Error;
use inspection_client::runtime::{Validate, Violation};
use inspection_client::v3::*;
use support::server::{Canned, Server};

fn violations<T: Validate>(value: &T) -> Vec<String> {
    match value.validate() {
        Ok(()) => Vec::new(),
        Err(v) => v.0.iter().map(Violation::to_string).collect(),
    }
}

fn s(n: usize) -> String {
    "x".repeat(n)
}

#[test]
fn strings_of_255_pass_and_256_are_refused() {
    assert!(
        violations(
            &NewUnit::new(s(255))
                .make(s(255))
                .model(s(255))
                .serial_number(s(255))
        )
        .is_empty()
    );
    assert_eq!(
        violations(
            &NewUnit::new(s(256))
                .make(s(256))
                .model(s(256))
                .serial_number(s(256))
        ),
        [
            "reference_number: must be at most 255 characters, got 256",
            "make: must be at most 255 characters, got 256",
            "model: must be at most 255 characters, got 256",
            "serial_number: must be at most 255 characters, got 256",
        ]
    );
    // Characters, not bytes.
    assert!(violations(&NewUnit::new("ü".repeat(255))).is_empty());
}

#[test]
fn the_vin_is_exactly_17_letters_and_digits_without_i_o_q() {
    let vin = |v: &str| violations(&UnitPatch::default().vin(v));
    assert!(vin("1XKZD49X0LJ123456").is_empty());
    assert_eq!(
        vin("1XKZD49X0LJ12345"),
        ["vin: must be exactly 17 characters, got 16"]
    );
    assert_eq!(
        vin("1XKZD49X0LJ1234567"),
        ["vin: must be exactly 17 characters, got 18"]
    );
    for (bad, found) in [('I', "'I'"), ('O', "'O'"), ('Q', "'Q'"), ('-', "'-'")] {
        let v = format!("1XKZD49X0L{bad}123456");
        assert_eq!(
            vin(&v),
            [format!(
                "vin: must hold only ASCII letters and digits, never I, O, Q, i, o, q; found {found} at position 11"
            )]
        );
    }
}

#[test]
fn the_year_is_1800_to_9999() {
    let year = |y: i64| violations(&UnitAttributes::default().year(y));
    assert_eq!(year(1799), ["year: must be at least 1800, got 1799"]);
    assert!(year(1800).is_empty());
    assert!(year(9999).is_empty());
    assert_eq!(year(10000), ["year: must be at most 9999, got 10000"]);
}

#[test]
fn hours_and_odometer_are_at_least_zero() {
    assert!(violations(&NewUnit::new("A").hours(0).odometer(0)).is_empty());
    assert_eq!(
        violations(&NewUnit::new("A").hours(-1).odometer(-1)),
        [
            "hours: must be at least 0, got -1",
            "odometer: must be at least 0, got -1"
        ]
    );
    // Input odometer is int32 by type: a value above i32::MAX cannot be written at all.
    let _: fn(NewUnit, i32) -> NewUnit = NewUnit::odometer;
}

#[test]
fn task_descriptions_take_500() {
    let due = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let task =
        |d: usize| TaskRequest::new("n", "r", due, TaskAssignee::location(1)).description(s(d));
    assert!(violations(&task(500)).is_empty());
    assert_eq!(
        violations(&task(501)),
        ["description: must be at most 500 characters, got 501"]
    );
    let long_user = TaskRequest::new(s(256), "r", due, TaskAssignee::user(s(256)));
    assert_eq!(
        violations(&long_user),
        [
            "name: must be at most 255 characters, got 256",
            "assignee_username: must be at most 255 characters, got 256",
        ]
    );
}

#[test]
fn user_updates_take_255() {
    let update = UserUpdate::default()
        .external_id(s(256))
        .first_name(s(255))
        .last_name(s(256));
    assert_eq!(
        violations(&update),
        [
            "external_id: must be at most 255 characters, got 256",
            "last_name: must be at most 255 characters, got 256",
        ]
    );
}

async fn client(validate: bool) -> (Server, Client) {
    let server = Server::start().await;
    let config = Client::default_config().validate_requests(validate);
    let client = Client::with_config(&server.base(), ApiKey::new("id", "secret"), config).unwrap();
    (server, client)
}

#[tokio::test]
async fn every_violation_is_reported_together_and_nothing_is_sent() {
    let (server, client) = client(true).await;
    let body = NewUnit::new(s(256)).vin("ABC12").year(1799).hours(-5);
    let err = client.create_unit(body).send().await.unwrap_err();
    let Error::Validation(v) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(v.0.len(), 4);
    assert_eq!(
        err.to_string(),
        "invalid request: reference_number: must be at most 255 characters, got 256; \
         year: must be at least 1800, got 1799; vin: must be exactly 17 characters, got 5; \
         hours: must be at least 0, got -5"
    );
    assert!(server.recorded().is_empty(), "a request was sent");
}

#[tokio::test]
async fn query_and_path_parameters_are_checked() {
    let (server, client) = client(true).await;
    // The seed states a maximum only, so 0 is sent and left to the service.
    for (per_page, ok) in [(0, true), (1, true), (100, true), (101, false)] {
        server.push(Canned::json(200, r#"{"data": []}"#));
        let result = client.list_units().per_page(per_page).send().await;
        assert_eq!(result.is_ok(), ok, "per_page {per_page}: {result:?}");
    }
    let err = client
        .list_units()
        .per_page(101)
        .reference_number(s(256))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: per_page: must be at most 100, got 101; referenceNumber: must be at most 255 characters, got 256"
    );
    let err = client.get_unit(s(256)).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: unit_id: must be at most 255 characters, got 256"
    );
    // Paged streams report it as their first item, before any request.
    let mut stream = client.list_units().per_page(101).stream();
    let first = futures_util::TryStreamExt::try_next(&mut stream).await;
    assert!(matches!(first, Err(Error::Validation(_))));
    assert_eq!(
        server.recorded().len(),
        3,
        "only the three valid per_page values were sent"
    );
}

#[tokio::test]
async fn validation_can_be_turned_off() {
    let (server, client) = client(false).await;
    server.push(Canned::json(
        201,
        r#"{"id": "u", "reference_number": "r", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}"#,
    ));
    client
        .create_unit(NewUnit::new("A").year(1700))
        .send()
        .await
        .unwrap();
    assert_eq!(server.take_one().json()["year"], 1700);
}

#[test]
fn responses_are_never_refused_for_breaking_a_limit() {
    let unit: Unit = serde_json::from_value(serde_json::json!({
        "id": "x".repeat(300), "reference_number": "r".repeat(300), "vin": "IOQ", "year": 1500,
        "hours": -3, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    }))
    .unwrap();
    assert_eq!(unit.year, Some(1500));
}
