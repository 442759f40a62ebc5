//! The v3 client against a local server: errors, retries, rate limits, paging, origins,
//! polling, pre-signed fetches, pacing and redaction.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use inspection_client::v3::*;
use inspection_client::{Config, Error, RetryPolicy};
use support::capture::Capture;
use support::server::{Canned, Server};

const SECRET: &str = "TOP-SECRET-9f8e7d";

fn unit_json(id: &str) -> String {
    format!(
        r#"{{"id": "{id}", "reference_number": "R-{id}", "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z"}}"#
    )
}

/// Fast retries so tests do not wait on real backoff.
fn quick() -> Config {
    Client::default_config().no_pacing().retry(RetryPolicy {
        max_attempts: 3,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(5),
    })
}

async fn setup_with(config: Config) -> (Server, Client) {
    let server = Server::start().await;
    let client =
        Client::with_config(&server.base(), ApiKey::new("key-id", SECRET), config).unwrap();
    (server, client)
}

async fn setup() -> (Server, Client) {
    setup_with(quick()).await
}

#[tokio::test]
async fn unauthorized_is_an_api_error_with_its_message() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        401,
        r#"{"errors": "Key id or secret not valid"}"#,
    ));
    let err = client.get_unit("u1").send().await.unwrap_err();
    let Error::Api(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(api.status, 401);
    assert_eq!(api.message.as_deref(), Some("Key id or secret not valid"));
    assert_eq!(server.recorded().len(), 1, "a 401 is not retried");
    assert!(!err.to_string().contains(SECRET));
}

#[tokio::test]
async fn a_404_message_is_surfaced() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        404,
        r#"{"errors": "The Unit A-001 could not be found"}"#,
    ));
    let err = client
        .get_unit_by_reference_number("A-001")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404));
    assert_eq!(
        err.to_string(),
        "GET /units/by_reference_number/{reference_number} answered 404: The Unit A-001 could not be found"
    );
}

#[tokio::test]
async fn a_409_on_a_duplicate_unit() {
    let (server, client) = setup().await;
    server.push(Canned::json(409, r#"{"errors": "Unit already exists"}"#));
    let err = client
        .create_unit(NewUnit::new("A-1"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(409));
    assert_eq!(server.recorded().len(), 1);
}

#[tokio::test]
async fn odd_error_bodies_are_tolerated() {
    let (server, client) = setup().await;
    server.push(Canned::status(422));
    server.push(Canned::json(
        422,
        r#"{"errors": ["vin is invalid", "year is invalid"]}"#,
    ));
    server.push(Canned::bytes(400, "text/html", b"<h1>Bad</h1>"));
    let e1 = client.get_unit("u").send().await.unwrap_err();
    let e2 = client.get_unit("u").send().await.unwrap_err();
    let e3 = client.get_unit("u").send().await.unwrap_err();
    assert!(matches!(e1, Error::Api(ref a) if a.status == 422 && a.message.is_none()));
    assert!(
        matches!(e2, Error::Api(ref a) if a.message.as_deref() == Some("vin is invalid; year is invalid"))
    );
    assert!(matches!(e3, Error::Api(ref a) if a.message.as_deref() == Some("<h1>Bad</h1>")));
}

#[tokio::test]
async fn a_429_waits_out_retry_after_then_succeeds() {
    let (server, client) = setup().await;
    server
        .push(Canned::json(429, r#"{"errors": "Rate limit exceeded"}"#).header("retry-after", "1"));
    server.push(Canned::json(200, &unit_json("u1")));
    let start = Instant::now();
    let unit = client.get_unit("u1").send().await.unwrap();
    let elapsed = start.elapsed();
    assert_eq!(unit.id.as_str(), "u1");
    let recorded = server.recorded();
    assert_eq!(recorded.len(), 2);
    let gap = recorded[1].at - recorded[0].at;
    assert!(
        gap >= Duration::from_millis(950),
        "retried after only {gap:?}"
    );
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[tokio::test]
async fn a_429_is_retried_even_for_post() {
    let (server, client) = setup().await;
    server.push(Canned::status(429).header("retry-after", "0"));
    server.push(Canned::json(201, &unit_json("u1")));
    client
        .create_unit(NewUnit::new("R-u1"))
        .send()
        .await
        .unwrap();
    assert_eq!(server.recorded().len(), 2);
}

#[tokio::test]
async fn a_500_is_retried_for_get_but_not_for_post() {
    let (server, client) = setup().await;
    server.push(Canned::status(500));
    server.push(Canned::json(200, &unit_json("u1")));
    client.get_unit("u1").send().await.unwrap();
    assert_eq!(server.recorded().len(), 2, "GET is retried");
    server.clear();

    server.push(Canned::status(500));
    server.push(Canned::json(201, &unit_json("u1")));
    let err = client
        .create_unit(NewUnit::new("R-u1"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(
        server.recorded().len(),
        1,
        "a POST that may have been applied is not retried"
    );
}

#[tokio::test]
async fn retries_are_bounded() {
    let (server, client) = setup().await;
    for _ in 0..5 {
        server.push(Canned::status(503));
    }
    let err = client.get_unit("u1").send().await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(server.recorded().len(), 3, "max_attempts is 3");
}

#[tokio::test]
async fn a_timed_out_post_is_not_retried_but_a_get_is() {
    let config = quick().timeout(Duration::from_millis(200));
    let (server, client) = setup_with(config).await;
    server.push(Canned::json(201, &unit_json("u1")).delayed(Duration::from_millis(600)));
    let err = client
        .create_unit(NewUnit::new("R-u1"))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert_eq!(server.recorded().len(), 1);
    server.clear();

    server.push(Canned::json(200, &unit_json("u1")).delayed(Duration::from_millis(600)));
    server.push(Canned::json(200, &unit_json("u1")));
    client.get_unit("u1").send().await.unwrap();
    assert_eq!(server.recorded().len(), 2);
}

fn page(ids: &[&str], paging: &str) -> String {
    let items: Vec<String> = ids.iter().map(|id| unit_json(id)).collect();
    format!(r#"{{"data": [{}], "paging": {paging}}}"#, items.join(","))
}

#[tokio::test]
async fn paging_follows_next_urls_across_three_pages() {
    let (server, client) = setup().await;
    let base = server.base();
    server.push(Canned::json(
        200,
        &page(
            &["a", "b"],
            &format!(r#"{{"per_page": 2, "next": "{base}/units?page=UDI%3D&per_page=2"}}"#),
        ),
    ));
    server.push(Canned::json(
        200,
        &page(
            &["c", "d"],
            &format!(r#"{{"per_page": 2, "next": "{base}/units?page=UDM%3D&per_page=2"}}"#),
        ),
    ));
    server.push(Canned::json(
        200,
        &page(&["e"], r#"{"per_page": 2, "next": null}"#),
    ));
    let units: Vec<Unit> = client
        .list_units()
        .per_page(2)
        .stream()
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<&str> = units.iter().map(|u| u.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    let uris: Vec<String> = server.recorded().iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "/v3/units?per_page=2",
            "/v3/units?page=UDI%3D&per_page=2",
            "/v3/units?page=UDM%3D&per_page=2"
        ]
    );
    // Credentials go with every page: the links are on the base URL's origin.
    assert!(
        server
            .recorded()
            .iter()
            .all(|r| r.header("api-key-secret") == Some(SECRET))
    );
}

#[tokio::test]
async fn paging_sends_a_raw_cursor_back_as_page() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        &page(&["a"], r#"{"cursor": "Y3Vyc29yMQ=="}"#),
    ));
    server.push(Canned::json(
        200,
        &page(&["b"], r#"{"cursor": "Y3Vyc29yMg=="}"#),
    ));
    server.push(Canned::json(200, &page(&["c"], r#"{}"#)));
    let pages: Vec<Page<Unit>> = client
        .list_units()
        .serial_number("SN")
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3);
    let uris: Vec<String> = server.recorded().iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "/v3/units?serialNumber=SN",
            "/v3/units?serialNumber=SN&page=Y3Vyc29yMQ%3D%3D",
            "/v3/units?serialNumber=SN&page=Y3Vyc29yMg%3D%3D"
        ]
    );
}

#[tokio::test]
async fn a_next_url_to_another_origin_is_refused() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        &page(
            &["a"],
            r#"{"next": "https://elsewhere.example/v3/units?page=x"}"#,
        ),
    ));
    let mut stream = client.list_units().stream();
    assert_eq!(stream.try_next().await.unwrap().unwrap().id.as_str(), "a");
    let err = stream.try_next().await.unwrap_err();
    assert!(
        matches!(&err, Error::ForeignOrigin { origin, .. } if origin == "https://elsewhere.example"),
        "{err:?}"
    );
    assert_eq!(server.recorded().len(), 1);
}

#[tokio::test]
async fn paging_that_does_not_advance_stops_with_an_error() {
    let (server, client) = setup().await;
    for _ in 0..3 {
        server.push(Canned::json(200, &page(&["a"], r#"{"cursor": "same"}"#)));
    }
    let result: Result<Vec<Unit>, Error> = client.list_units().stream().try_collect().await;
    assert!(
        matches!(result, Err(Error::PagingStalled { .. })),
        "{result:?}"
    );
    assert_eq!(server.recorded().len(), 2);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    let (server, client) = setup().await;
    let other = Server::start().await;
    server.push(Canned::status(302).header("location", &format!("{}/units/u1", other.base())));
    let err = client.get_unit("u1").send().await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ForeignOrigin {
                what: "a redirect",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        other.recorded().is_empty(),
        "the other origin saw a request"
    );
}

#[tokio::test]
async fn a_same_origin_redirect_is_followed_with_credentials() {
    let (server, client) = setup().await;
    server.push(Canned::status(307).header("location", "/v3/units/u2"));
    server.push(Canned::json(200, &unit_json("u2")));
    let unit = client.get_unit("u1").send().await.unwrap();
    assert_eq!(unit.id.as_str(), "u2");
    let recorded = server.recorded();
    assert_eq!(recorded[1].uri, "/v3/units/u2");
    assert_eq!(recorded[1].header("api-key-secret"), Some(SECRET));
}

#[tokio::test]
async fn a_202_is_polled_until_the_pdf_is_ready() {
    let config = quick().poll_interval(Duration::from_millis(20));
    let (server, client) = setup_with(config).await;
    server.push(Canned::status(202));
    server.push(Canned::status(202).header("retry-after", "0"));
    server.push(Canned::bytes(200, "application/pdf", b"%PDF-1.7"));
    let pdf = client.get_inspection("i1").pdf().await.unwrap();
    assert_eq!(&pdf[..], b"%PDF-1.7");
    let recorded = server.recorded();
    assert_eq!(recorded.len(), 3);
    assert!(
        recorded
            .iter()
            .all(|r| r.header("accept") == Some("application/pdf"))
    );
}

#[tokio::test]
async fn polling_gives_up_with_a_clear_error() {
    let config = quick().poll_interval(Duration::from_millis(5)).max_polls(2);
    let (server, client) = setup_with(config).await;
    for _ in 0..5 {
        server.push(Canned::status(202));
    }
    let err = client.get_form("f1").send().await.unwrap_err();
    assert!(
        matches!(err, Error::NotReady { attempts: 3, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("GET /forms/{form_id} was still not ready"),
        "{err}"
    );
    assert_eq!(server.recorded().len(), 3);
}

#[tokio::test]
async fn presigned_urls_are_fetched_without_credentials() {
    let (server, client) = setup().await;
    let storage = Server::start().await;
    storage.push(Canned::bytes(200, "application/pdf", b"%PDF-shared"));
    server.push(Canned::json(
        200,
        &format!(
            r#"{{"link": "http://{}/share/abc?sig=XYZ", "expires_at": "2026-03-03T00:00:00Z"}}"#,
            storage.addr
        ),
    ));
    let share = client.get_inspection_share_url("i1").send().await.unwrap();
    let bytes = client.fetch_presigned(&share.link).await.unwrap();
    assert_eq!(&bytes[..], b"%PDF-shared");
    let fetched = storage.take_one();
    assert_eq!(fetched.uri, "/share/abc?sig=XYZ");
    assert_eq!(fetched.header("api-key-id"), None);
    assert_eq!(fetched.header("api-key-secret"), None);
    // Even on the base URL's own origin, a pre-signed fetch carries nothing.
    server.clear();
    server.push(Canned::bytes(200, "application/pdf", b"x"));
    client
        .fetch_presigned(&format!("{}/presigned", server.base()))
        .await
        .unwrap();
    assert_eq!(server.take_one().header("api-key-secret"), None);
}

#[tokio::test]
async fn decode_errors_name_the_json_path() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        r#"{"data": [{"id": "i1", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
             "results": [{"object": "checklist", "name": "Walkaround",
                          "data": [{"type": "pass_fail", "label": "Lights", "items": [{"label": 5}]}]}]}]}"#,
    ));
    let err = client.list_inspections().send().await.unwrap_err();
    let Error::Decode {
        status,
        path,
        message,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((*status, path.as_str()), (200, "data[0].results[0]"));
    assert_eq!(
        message,
        "object `checklist`: data[0]: type `pass_fail`: items[0].label: invalid type: integer `5`, expected a string"
    );
}

#[tokio::test]
async fn https_is_required_except_on_loopback() {
    let key = || ApiKey::new("id", SECRET);
    let err = Client::new("http://inspections.example.com/v3", key()).unwrap_err();
    assert!(err.to_string().contains("must use https"), "{err}");
    assert!(!err.to_string().contains(SECRET));
    assert!(Client::new("https://inspections.example.com/v3", key()).is_ok());
    assert!(Client::new("http://localhost:8080/v3", key()).is_ok());
    assert!(Client::new("http://127.0.0.1:8080/v3", key()).is_ok());
    assert!(Client::new("http://[::1]:8080/v3", key()).is_ok());
    assert!(Client::new("ftp://example.com", key()).is_err());
}

#[tokio::test]
async fn pacing_spreads_n_plus_one_requests_over_a_window() {
    let config = quick().rate_limit(3, Duration::from_millis(600));
    let (server, client) = setup_with(config).await;
    for i in 0..4 {
        server.push(Canned::json(200, &unit_json(&format!("u{i}"))));
    }
    let start = Instant::now();
    // Clones share one pacer.
    let (a, b) = (client.clone(), client.clone());
    let (r1, r2) = tokio::join!(
        async { (a.get_unit("1").send().await, a.get_unit("2").send().await) },
        async { (b.get_unit("3").send().await, b.get_unit("4").send().await) }
    );
    for r in [r1.0, r1.1, r2.0, r2.1] {
        r.unwrap();
    }
    let elapsed = start.elapsed();
    assert!(
        elapsed >= Duration::from_millis(600),
        "4 requests at 3 per 600 ms took {elapsed:?}"
    );
    let recorded = server.recorded();
    assert!(recorded[3].at - recorded[0].at >= Duration::from_millis(600));
}

#[tokio::test]
async fn a_429_pauses_every_clone() {
    let (server, client) = setup().await;
    server.push(Canned::status(429).header("retry-after", "1"));
    server.push(Canned::json(200, &unit_json("a")));
    server.push(Canned::json(200, &unit_json("b")));
    let other = client.clone();
    let first = tokio::spawn(async move { client.get_unit("a").send().await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let start = Instant::now();
    other.get_unit("b").send().await.unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(800),
        "the clone did not wait: {:?}",
        start.elapsed()
    );
    first.await.unwrap().unwrap();
}

#[tokio::test]
async fn secrets_never_reach_debug_logs_or_errors() {
    let capture = Capture::default();
    let _guard = capture.install();

    let (server, client) = setup().await;
    server.push(Canned::status(500));
    server.push(Canned::json(200, &unit_json("u1")));
    server.push(Canned::json(401, r#"{"errors": "bad key"}"#));
    client.get_unit("u1").send().await.unwrap();
    let err = client
        .create_unit(NewUnit::new("x"))
        .send()
        .await
        .unwrap_err();

    let key = ApiKey::new("key-id", SECRET);
    let debug = format!("{key:?} {client:?} {err:?} {err}");
    let logs = capture.text();
    assert!(
        debug.contains("key-id") && debug.contains("<redacted>"),
        "{debug}"
    );
    assert!(!debug.contains(SECRET), "Debug leaked the secret: {debug}");
    // The span carries method, path template, attempt and status.
    assert!(logs.contains("inspection_request"), "{logs}");
    assert!(logs.contains("path=\"/units/{unit_id}\""), "{logs}");
    assert!(logs.contains("attempt=2"), "{logs}");
    assert!(logs.contains("status=500"), "{logs}");
    assert!(!logs.contains(SECRET), "logs leaked the secret");
    // The secret did go on the wire, where it belongs.
    assert_eq!(server.recorded()[0].header("api-key-secret"), Some(SECRET));
}

#[tokio::test]
async fn path_values_that_would_reach_another_endpoint_are_refused() {
    let (server, client) = setup().await;
    for bad in ["..", ".", "", "a\tb"] {
        let err = client.get_unit(bad).send().await.unwrap_err();
        assert!(matches!(err, Error::Validation(_)), "{bad:?}: {err:?}");
    }
    // Refused even with validation off: it is not a limit, the request would go elsewhere.
    let config = quick().validate_requests(false);
    let lax = Client::with_config(&server.base(), ApiKey::new("key-id", SECRET), config).unwrap();
    assert!(matches!(
        lax.get_unit_by_reference_number("..").send().await,
        Err(Error::Validation(_))
    ));
    assert!(server.recorded().is_empty());
}

#[tokio::test]
async fn paging_that_comes_back_to_an_earlier_page_stops() {
    let (server, client) = setup().await;
    let base = server.base();
    let link = |p: &str| format!(r#"{{"next": "{base}/units?page={p}"}}"#);
    server.push(Canned::json(200, &page(&["a"], &link("B"))));
    server.push(Canned::json(200, &page(&["b"], &link("C"))));
    server.push(Canned::json(200, &page(&["c"], &link("B"))));
    server.push(Canned::json(200, &page(&["b"], &link("C"))));
    let result: Result<Vec<Unit>, Error> = client.list_units().stream().try_collect().await;
    assert!(
        matches!(result, Err(Error::PagingStalled { .. })),
        "{result:?}"
    );
    assert_eq!(
        server.recorded().len(),
        3,
        "B was not fetched a second time"
    );
}

#[tokio::test]
async fn a_retry_after_beyond_the_clients_patience_is_reported_at_once() {
    let (server, client) = setup().await;
    server.push(Canned::status(429).header("retry-after", "120"));
    let start = Instant::now();
    let err = client.get_unit("u1").send().await.unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(2));
    let Error::Api(api) = err else { panic!() };
    assert_eq!(
        (api.status, api.retry_after),
        (429, Some(Duration::from_secs(120)))
    );
    assert_eq!(server.recorded().len(), 1);
}

#[tokio::test]
async fn a_requests_debug_leaves_the_body_out() {
    let (_server, client) = setup().await;
    let request = client
        .create_unit(NewUnit::new("SECRET-REF-123"))
        .to_request()
        .unwrap();
    let shown = format!("{request:?}");
    assert!(
        shown.contains("bytes>") && !shown.contains("SECRET-REF-123"),
        "{shown}"
    );
}
