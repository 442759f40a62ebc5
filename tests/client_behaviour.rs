//! The v3 client against a local server, for what the conformance scenarios
//! (`tests/conformance/`) cannot say in every language: Rust error texts, https-only
//! construction, pacing across clones, redaction in `Debug` and logs, the user agent.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use inspection_client::v3::*;
use inspection_client::{Config, Error, RequestOptions, RetryPolicy};
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
    Client::default_config().no_pacing().retry(RetryPolicy::new(
        3,
        Duration::from_millis(10),
        Duration::from_secs(5),
    ))
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

/// The limit itself is a conformance scenario; here, what the Rust error says.
#[tokio::test]
async fn the_not_ready_error_names_the_operation() {
    let config = quick().poll_interval(Duration::from_millis(5)).max_polls(0);
    let (server, client) = setup_with(config).await;
    server.push(Canned::status(202));
    let err = client.get_form("f1").send().await.unwrap_err();
    assert!(
        err.to_string()
            .contains("GET /forms/{form_id} was still not ready"),
        "{err}"
    );
}

/// On the service's own origin this is a conformance scenario; here, another origin.
#[tokio::test]
async fn presigned_urls_on_another_origin_get_no_credentials() {
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
}

/// The path of the failure is a conformance scenario; here, the Rust message that
/// walks down through the union members.
#[tokio::test]
async fn a_decode_error_explains_the_failing_member() {
    let (server, client) = setup().await;
    server.push(Canned::json(
        200,
        r#"{"data": [{"id": "i1", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
             "results": [{"object": "checklist", "name": "Walkaround",
                          "data": [{"type": "pass_fail", "label": "Lights", "items": [{"label": 5}]}]}]}]}"#,
    ));
    let err = client.list_inspections().send().await.unwrap_err();
    let Error::Decode { message, path, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(path, "data[0].results[0].data[0].items[0].label");
    assert_eq!(
        message,
        "object `checklist`: type `pass_fail`: invalid type: integer `5`, expected a string"
    );
}

/// The conformance scenarios check every other header; the user agent is this client's.
#[tokio::test]
async fn every_request_names_the_client_in_its_user_agent() {
    let (server, client) = setup().await;
    server.push(Canned::json(200, &unit_json("u1")));
    client.get_unit("u1").send().await.unwrap();
    let agent = server.take_one().header("user-agent").unwrap().to_string();
    assert!(agent.starts_with("inspection-client/"), "{agent}");
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

/// A password in the base URL would be printed wherever the URL is: refused, and never
/// repeated in the error, even when the URL does not parse.
#[tokio::test]
async fn a_base_url_with_credentials_is_refused_without_repeating_them() {
    let key = || ApiKey::new("id", SECRET);
    for url in [
        "https://user:hunter2-pw@inspections.example.com/v3",
        "https://only-user@inspections.example.com/v3",
    ] {
        let err = Client::new(url, key()).unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(
            shown.contains("must not carry a user name or password"),
            "{shown}"
        );
        assert!(
            !shown.contains("hunter2") && !shown.contains("only-user"),
            "{shown}"
        );
    }
    let err = Client::new("https://user:hunter2-pw@host:99999/v3", key()).unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(shown.contains("the base URL is not a URL"), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
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
    // The attempt's span carries method, path template, attempt and status.
    assert!(logs.contains("inspection.attempt{"), "{logs}");
    assert!(logs.contains("url.template=\"/units/{unit_id}\""), "{logs}");
    assert!(logs.contains("inspection.attempt=2"), "{logs}");
    assert!(logs.contains("http.response.status_code=500"), "{logs}");
    assert!(!logs.contains(SECRET), "logs leaked the secret");
    // The secret did go on the wire, where it belongs.
    assert_eq!(server.recorded()[0].header("api-key-secret"), Some(SECRET));
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

/// A `Config::default()` of the user's own is as correct as the interface's
/// `default_config()`: the documented pacing and the legacy versioned `Accept` stay on.
#[tokio::test]
async fn a_default_config_keeps_the_interfaces_pacing_and_accept() {
    let server = Server::start().await;
    let v3 = Client::with_config(
        &server.base(),
        ApiKey::new("key-id", SECRET),
        Config::default(),
    )
    .unwrap();
    assert_eq!(
        v3.core().config().pacing_limit(),
        Some((100, Duration::from_millis(10_040)))
    );
    let off = Client::with_config(
        &server.base(),
        ApiKey::new("key-id", SECRET),
        Config::default().no_pacing(),
    )
    .unwrap();
    assert_eq!(off.core().config().pacing_limit(), None);

    use inspection_client::legacy;
    server.push(Canned::json(200, r#"{"auth_token": "tok-1"}"#));
    server.push(Canned::json(200, r#"{"locations": []}"#));
    let credentials =
        legacy::AuthenticateRequest::new(legacy::Credentials::new("sam", "pass-word"));
    let client = legacy::Client::login_with_config(&server.base(), credentials, Config::default())
        .await
        .unwrap();
    client.list_locations().send().await.unwrap();
    let recorded = server.recorded();
    assert_eq!(
        recorded[1].header("accept"),
        Some("application/json; version=1")
    );
    assert_eq!(client.core().config().pacing_limit(), None);
}

/// Issue 14, point 4: one request's own timeout, retries and extra headers, without a
/// second client; the client's credentials always win over an extra header.
#[tokio::test]
async fn one_request_has_its_own_timeout_retries_and_headers() {
    let (server, client) = setup_with(quick().retry(RetryPolicy::new(
        1,
        Duration::from_millis(1),
        Duration::from_secs(1),
    )))
    .await;

    server.push(Canned::json(200, &unit_json("slow")).delayed(Duration::from_millis(500)));
    let quick_timeout = RequestOptions::new().timeout(Duration::from_millis(50));
    let err = client
        .get_unit("slow")
        .request_options(quick_timeout)
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");

    server.clear();
    server.push(Canned::status(500));
    server.push(Canned::json(200, &unit_json("u")));
    let retried = RequestOptions::new().retry(RetryPolicy::new(
        2,
        Duration::from_millis(1),
        Duration::from_secs(1),
    ));
    let unit = client
        .get_unit("u")
        .request_options(retried)
        .send()
        .await
        .unwrap();
    assert_eq!(unit.id.as_str(), "u");
    assert_eq!(
        server.recorded().len(),
        2,
        "the client's own policy would stop at 1"
    );

    server.clear();
    server.push(Canned::json(200, &unit_json("h")));
    let headers = RequestOptions::new()
        .header("x-correlation-id", "sync-7")
        .unwrap()
        .header("api-key-secret", "not-mine")
        .unwrap();
    client
        .get_unit("h")
        .request_options(headers)
        .send()
        .await
        .unwrap();
    let sent = server.take_one();
    assert_eq!(sent.header("x-correlation-id"), Some("sync-7"));
    assert_eq!(sent.header("api-key-secret"), Some(SECRET));
    assert!(RequestOptions::new().header("bad name", "x").is_err());
}

/// Issue 14, point 3: the user's own HTTP setup (here a proxy) is applied, and the client's
/// credentials still go with the request.
#[tokio::test]
async fn a_customised_http_client_sends_through_its_proxy() {
    let proxy = Server::start().await;
    proxy.push(Canned::json(200, &unit_json("via-proxy")));
    let proxy_url = proxy.base();
    let config = quick().http(move |b| {
        b.proxy(inspection_client::runtime::reqwest::Proxy::http(&proxy_url).expect("a proxy URL"))
    });
    // Nothing listens at the base URL: only the proxy can answer.
    let client = Client::with_config(
        "http://127.0.0.1:9/v3",
        ApiKey::new("key-id", SECRET),
        config,
    )
    .unwrap();
    let unit = client.get_unit("via-proxy").send().await.unwrap();
    assert_eq!(unit.id.as_str(), "via-proxy");
    let seen = proxy.take_one();
    assert_eq!(seen.uri, "http://127.0.0.1:9/v3/units/via-proxy");
    assert_eq!(seen.header("api-key-secret"), Some(SECRET));
}

/// Issue 14, point 9: plain http to a named, non-loopback host (a sandbox in a container
/// network) only through the loudly named opt-in, and only to that host.
#[test]
fn plain_http_off_loopback_needs_the_named_opt_in() {
    let key = || ApiKey::new("key-id", SECRET);
    let refused = Client::with_config("http://sandbox:8080/v3", key(), quick()).unwrap_err();
    assert!(
        refused.to_string().contains("danger_plain_http_to"),
        "{refused}"
    );
    let allowed = quick().danger_plain_http_to("sandbox");
    assert!(Client::with_config("http://sandbox:8080/v3", key(), allowed.clone()).is_ok());
    assert!(Client::with_config("http://other:8080/v3", key(), allowed).is_err());
}
