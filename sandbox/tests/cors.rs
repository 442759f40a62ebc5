//! `--cors-origin`: a page from the allowed origin may call the sandbox from a browser
//! (preflights answered, answers marked and their headers exposed); other origins and the
//! default sandbox get no CORS header at all.

mod common;

use common::{call, send};
use sandbox::{Options, Sandbox};
use serde_json::{Value, json};

const PAGE: &str = "http://127.0.0.1:5173";
use common::DEMO_KEYS as KEYS;

async fn with_cors() -> Sandbox {
    Sandbox::start(Options {
        cors_origins: vec![PAGE.to_string()],
        ..Options::default()
    })
    .await
    .unwrap()
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).map(|v| v.to_str().unwrap())
}

/// The comma-separated list a header holds, lowercased.
fn list(response: &reqwest::Response, name: &str) -> Vec<String> {
    header(response, name)
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

async fn preflight(
    sandbox: &Sandbox,
    path: &str,
    origin: &str,
    method: &str,
    headers: &str,
) -> reqwest::Response {
    send(
        sandbox,
        "OPTIONS",
        path,
        &[
            ("origin", origin),
            ("access-control-request-method", method),
            ("access-control-request-headers", headers),
        ],
        None,
    )
    .await
}

async fn recorded(sandbox: &Sandbox) -> Vec<Value> {
    let (status, body) = call(sandbox, "GET", "/_sandbox/requests", &[], None).await;
    assert_eq!(status, 200);
    body.as_array().unwrap().clone()
}

#[tokio::test]
async fn preflights_of_both_interfaces_allow_the_clients_headers_and_are_not_recorded() {
    let sandbox = with_cors().await;
    for (path, method, headers) in [
        (
            "/v3/units",
            "POST",
            "api-key-id,api-key-secret,content-type,accept",
        ),
        (
            "/v3/tasks/tsk_idle",
            "PATCH",
            "api-key-id,api-key-secret,content-type",
        ),
        ("/api/assets/43", "DELETE", "authorization,accept"),
        ("/api/users/authenticate", "POST", "content-type,accept"),
        // Pre-signed links and the test controls are called from the page too.
        ("/_uploads/x", "PUT", "content-type"),
        ("/_sandbox/script", "POST", "content-type"),
    ] {
        let answer = preflight(&sandbox, path, PAGE, method, headers).await;
        assert_eq!(answer.status(), 204, "{path}");
        assert_eq!(
            header(&answer, "access-control-allow-origin"),
            Some(PAGE),
            "{path}"
        );
        let methods = list(&answer, "access-control-allow-methods");
        assert!(
            methods.contains(&method.to_ascii_lowercase()),
            "{path}: {methods:?}"
        );
        let allowed = list(&answer, "access-control-allow-headers");
        for wanted in headers.split(',') {
            assert!(
                allowed.iter().any(|a| a == wanted),
                "{path}: {wanted} not in {allowed:?}"
            );
        }
        assert!(
            header(&answer, "access-control-max-age").is_some(),
            "{path}"
        );
        assert!(
            list(&answer, "vary").contains(&"origin".to_string()),
            "{path}"
        );
        // No credentials needed, nothing else done.
        assert!(answer.text().await.unwrap().is_empty(), "{path}");
    }
    assert_eq!(
        recorded(&sandbox).await,
        Vec::<Value>::new(),
        "preflights are not recorded"
    );
    let (_, stats) = call(&sandbox, "GET", "/_sandbox/stats", &[], None).await;
    assert_eq!(stats["requests"], 0, "nor counted: {stats}");
}

#[tokio::test]
async fn another_origin_is_refused_and_gets_no_cors_header() {
    let sandbox = with_cors().await;
    let answer = preflight(
        &sandbox,
        "/v3/units",
        "http://127.0.0.1:9999",
        "GET",
        "api-key-id",
    )
    .await;
    assert_eq!(answer.status(), 403);
    assert_eq!(header(&answer, "access-control-allow-origin"), None);
    let body: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    let reason = body["errors"].as_str().unwrap();
    assert!(
        reason.contains("http://127.0.0.1:9999") && reason.contains(PAGE),
        "{reason}"
    );
    // A plain request from it is served (a browser then hides the answer), unmarked.
    let mut headers = KEYS.to_vec();
    headers.push(("origin", "http://127.0.0.1:9999"));
    let answer = send(&sandbox, "GET", "/v3/units", &headers, None).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "access-control-allow-origin"), None);
    assert_eq!(header(&answer, "access-control-expose-headers"), None);
}

#[tokio::test]
async fn answers_to_the_page_name_it_and_expose_the_headers_the_clients_read() {
    let sandbox = with_cors().await;
    let mut headers = KEYS.to_vec();
    headers.push(("origin", PAGE));
    let exposed_in = |answer: &reqwest::Response| {
        let exposed = list(answer, "access-control-expose-headers");
        for wanted in [
            "retry-after",
            "x-request-id",
            "etag",
            "location",
            "content-type",
            "content-length",
        ] {
            assert!(
                exposed.iter().any(|e| e == wanted),
                "{wanted} not in {exposed:?}"
            );
        }
    };
    let answer = send(&sandbox, "GET", "/v3/units", &headers, None).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "access-control-allow-origin"), Some(PAGE));
    exposed_in(&answer);

    // Errors too (a browser shows the client no answer without it): a 401 without keys...
    let answer = send(&sandbox, "GET", "/v3/units", &[("origin", PAGE)], None).await;
    assert_eq!(answer.status(), 401);
    assert_eq!(header(&answer, "access-control-allow-origin"), Some(PAGE));
    // ...and a canned 429 with its Retry-After, and the controls' answers.
    let script = json!([{"method": "GET", "path": "/v3/units/unt_001", "status": 429, "headers": {"retry-after": "1", "x-request-id": "r-1"}}]);
    let (status, _) = call(
        &sandbox,
        "POST",
        "/_sandbox/script",
        &[("origin", PAGE)],
        Some(script),
    )
    .await;
    assert_eq!(status, 200);
    let answer = send(&sandbox, "GET", "/v3/units/unt_001", &headers, None).await;
    assert_eq!(answer.status(), 429);
    assert_eq!(header(&answer, "access-control-allow-origin"), Some(PAGE));
    assert_eq!(header(&answer, "retry-after"), Some("1"));
    exposed_in(&answer);
    let answer = send(
        &sandbox,
        "GET",
        "/_sandbox/requests",
        &[("origin", PAGE)],
        None,
    )
    .await;
    assert_eq!(header(&answer, "access-control-allow-origin"), Some(PAGE));

    // A request with no Origin (not from a browser page) is answered as without the flag.
    let answer = send(&sandbox, "GET", "/v3/units", &KEYS, None).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "access-control-allow-origin"), None);
}

#[tokio::test]
async fn without_the_flag_there_is_no_cors() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let answer = preflight(&sandbox, "/v3/units", PAGE, "GET", "api-key-id").await;
    assert_ne!(answer.status(), 204);
    assert_eq!(header(&answer, "access-control-allow-origin"), None);
    assert_eq!(header(&answer, "access-control-allow-headers"), None);
    let mut headers = KEYS.to_vec();
    headers.push(("origin", PAGE));
    let answer = send(&sandbox, "GET", "/v3/units", &headers, None).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "access-control-allow-origin"), None);
    assert_eq!(header(&answer, "vary"), None);
}

#[test]
fn the_flag_takes_origins_only() {
    let parse = |args: &[&str]| sandbox::cli::parse(args.iter().map(|a| a.to_string()).collect());
    let options = parse(&[
        "--cors-origin",
        "http://127.0.0.1:5173",
        "--cors-origin",
        "HTTP://Localhost:80",
    ])
    .unwrap()
    .unwrap();
    assert_eq!(
        options.cors_origins,
        ["http://127.0.0.1:5173", "http://localhost"]
    );
    assert!(
        parse(&[]).unwrap().unwrap().cors_origins.is_empty(),
        "off by default"
    );
    let error = parse(&["--cors-origin", "http://127.0.0.1:5173/app"]).unwrap_err();
    assert!(
        error.starts_with("--cors-origin:") && error.contains("scheme, host and port only"),
        "{error}"
    );
    assert!(
        parse(&["--cors-origin"])
            .unwrap_err()
            .contains("needs a value")
    );
}
