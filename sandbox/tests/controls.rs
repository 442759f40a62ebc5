//! The `/_sandbox/` controls over plain HTTP, as a test in any language uses them: canned
//! answers, the record of requests, the reset, and revoking legacy tokens.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use sandbox::{Options, Sandbox};

/// One HTTP/1.1 exchange: the status and the body.
async fn http(sandbox: &Sandbox, request: &str, headers: &[&str], body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(sandbox.addr).await.unwrap();
    let mut head = format!(
        "{request} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        sandbox.addr
    );
    for h in headers {
        head.push_str(&format!("{h}\r\n"));
    }
    // A body is JSON, and says so (the API routes answer 415 otherwise).
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

const KEYS: [&str; 2] = ["api-key-id: demo-key", "api-key-secret: demo-secret"];

async fn json_of(sandbox: &Sandbox, request: &str) -> Value {
    let (status, body) = http(sandbox, request, &[], "").await;
    assert_eq!(status, 200, "{request}: {body}");
    serde_json::from_str(&body).unwrap()
}

#[tokio::test]
async fn canned_answers_come_first_in_order_then_the_real_handler() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let script = json!([
        {"method": "GET", "path": "/v3/units/unt_001", "status": 503, "times": 2},
        {"method": "get", "path": "/nowhere/*", "status": 201,
         "headers": {"x-next": "{origin}/v3"}, "body": {"next": "{origin}/v3/units"}},
        {"method": "GET", "path": "/v3/forms/f1", "body_text": "%PDF-1", "headers": {"content-type": "application/pdf"}}
    ]);
    let (status, body) = http(&sandbox, "POST /_sandbox/script", &[], &script.to_string()).await;
    assert_eq!((status, body.as_str()), (200, r#"{"pending":4}"#));

    // Canned answers need no keys: they come before auth, the rate limit and faults.
    for _ in 0..2 {
        assert_eq!(
            http(&sandbox, "GET /v3/units/unt_001", &[], "").await.0,
            503
        );
    }
    let (status, _) = http(&sandbox, "GET /v3/units/unt_001", &KEYS, "").await;
    assert_eq!(
        status, 200,
        "the script is used up: the real handler answers"
    );
    let (status, body) = http(&sandbox, "GET /nowhere/at/all?a=1+2&b=%2F", &[], "").await;
    let origin = format!("http://{}", sandbox.addr);
    assert_eq!(status, 201);
    assert_eq!(body, format!(r#"{{"next":"{origin}/v3/units"}}"#));
    let (_, pdf) = http(&sandbox, "GET /v3/forms/f1", &[], "").await;
    assert_eq!(pdf, "%PDF-1");
    assert_eq!(
        json_of(&sandbox, "GET /_sandbox/script").await,
        json!({"pending": 0})
    );

    let recorded = json_of(&sandbox, "GET /_sandbox/requests").await;
    let recorded = recorded.as_array().unwrap();
    assert_eq!(recorded.len(), 5, "{recorded:?}");
    let statuses: Vec<&Value> = recorded.iter().map(|r| &r["status"]).collect();
    assert_eq!(statuses, [503, 503, 200, 201, 200]);
    assert_eq!(recorded[2]["scripted"], false);
    assert_eq!(recorded[2]["headers"]["api-key-id"], "demo-key");
    let odd = &recorded[3];
    assert_eq!(
        (&odd["path"], &odd["query"], &odd["query_pairs"]),
        (
            &json!("/nowhere/at/all"),
            &json!("a=1+2&b=%2F"),
            &json!([["a", "1 2"], ["b", "/"]])
        )
    );
    assert!(recorded[1]["received_ms"].as_f64() >= recorded[0]["received_ms"].as_f64());

    let (status, _) = http(&sandbox, "DELETE /_sandbox/requests", &[], "").await;
    assert_eq!(status, 204);
    assert_eq!(json_of(&sandbox, "GET /_sandbox/requests").await, json!([]));
}

#[tokio::test]
async fn a_request_body_is_recorded_and_still_reaches_the_handler() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let body = r#"{"reference_number": "REC-1"}"#;
    let (status, _) = http(&sandbox, "POST /v3/units", &KEYS, body).await;
    assert_eq!(status, 201);
    let recorded = json_of(&sandbox, "GET /_sandbox/requests").await;
    assert_eq!(recorded[0]["body"], body);
    assert_eq!(recorded[0]["status"], 201);
}

#[tokio::test]
async fn a_bad_script_is_refused_whole() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    for bad in [
        r#"[{"method": "GET", "path": "/v3/units", "body": {}, "body_text": "x"}]"#,
        r#"[{"method": "GET", "path": "/v3/units", "times": 0}]"#,
        r#"[{"path": "/v3/units"}]"#,
        r#"[{"method": "GET", "path": "/v3/units", "colour": "red"}]"#,
    ] {
        let (status, body) = http(&sandbox, "POST /_sandbox/script", &[], bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    assert_eq!(
        json_of(&sandbox, "GET /_sandbox/script").await,
        json!({"pending": 0})
    );
}

#[tokio::test]
async fn reset_brings_back_the_data_and_clock_of_the_start() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (status, _) = http(
        &sandbox,
        "POST /v3/units",
        &KEYS,
        r#"{"reference_number": "R-1"}"#,
    )
    .await;
    assert_eq!(status, 201);
    http(&sandbox, "POST /_sandbox/advance?seconds=86400", &[], "").await;
    let script = r#"[{"method": "GET", "path": "/v3/units", "status": 500}]"#;
    http(&sandbox, "POST /_sandbox/script", &[], script).await;

    let (status, _) = http(&sandbox, "POST /_sandbox/reset", &[], "").await;
    assert_eq!(status, 204);
    assert_eq!(
        json_of(&sandbox, "GET /_sandbox/script").await,
        json!({"pending": 0})
    );
    assert_eq!(json_of(&sandbox, "GET /_sandbox/requests").await, json!([]));
    let (status, _) = http(&sandbox, "GET /v3/units/by_reference_number/R-1", &KEYS, "").await;
    assert_eq!(status, 404, "the created unit is gone");
    let (_, units) = http(&sandbox, "GET /v3/units", &KEYS, "").await;
    let units: Value = serde_json::from_str(&units).unwrap();
    assert_eq!(units["data"].as_array().unwrap().len(), 3);
    let stats = json_of(&sandbox, "GET /_sandbox/stats").await;
    assert_eq!(
        (stats["requests"].as_u64(), stats["units_created"].as_u64()),
        (Some(2), Some(0))
    );
    let now = json_of(&sandbox, "POST /_sandbox/advance?seconds=0").await;
    let now: chrono::DateTime<chrono::Utc> = serde_json::from_value(now["now"].clone()).unwrap();
    assert!(
        (chrono::Utc::now() - now).num_seconds().abs() < 60,
        "the clock is back: {now}"
    );
}

#[tokio::test]
async fn revoked_legacy_tokens_answer_401() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let login = r#"{"user": {"username": "user@example.com", "password": "user-pass"}}"#;
    let accept = "Accept: application/json; version=1";
    let (_, body) = http(&sandbox, "POST /api/users/authenticate", &[accept], login).await;
    let token: Value = serde_json::from_str(&body).unwrap();
    let auth = format!(
        "Authorization: Token {}",
        token["auth_token"].as_str().unwrap()
    );
    let headers = [accept, auth.as_str()];
    assert_eq!(
        http(&sandbox, "GET /api/locations", &headers, "").await.0,
        200
    );
    let (status, _) = http(&sandbox, "POST /_sandbox/legacy/revoke_tokens", &[], "").await;
    assert_eq!(status, 204);
    assert_eq!(
        http(&sandbox, "GET /api/locations", &headers, "").await.0,
        401
    );
}

#[tokio::test]
async fn an_inspection_loses_a_result_and_is_updated_then() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let before = json_of_keyed(&sandbox, "GET /v3/inspections/ins_demo_full").await;
    let results = before["results"].as_array().unwrap().clone();
    assert!(results.len() > 1);
    http(&sandbox, "POST /_sandbox/advance?seconds=60", &[], "").await;
    let (status, body) = http(
        &sandbox,
        "DELETE /_sandbox/v3/inspections/ins_demo_full/results/0",
        &[],
        "",
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let after = json_of_keyed(&sandbox, "GET /v3/inspections/ins_demo_full").await;
    assert_eq!(after["results"].as_array().unwrap(), &results[1..]);
    assert_ne!(after["updated_at"], before["updated_at"]);
    assert_eq!(after["created_at"], before["created_at"]);
    // A position past the end, or an inspection that does not exist: 404, nothing changed.
    for path in ["ins_demo_full/results/99", "ins_nowhere/results/0"] {
        let request = format!("DELETE /_sandbox/v3/inspections/{path}");
        assert_eq!(http(&sandbox, &request, &[], "").await.0, 404, "{path}");
    }
    let again = json_of_keyed(&sandbox, "GET /v3/inspections/ins_demo_full").await;
    assert_eq!(again, after);
}

async fn json_of_keyed(sandbox: &Sandbox, request: &str) -> Value {
    let (status, body) = http(sandbox, request, &KEYS, "").await;
    assert_eq!(status, 200, "{request}: {body}");
    let mut value: Value = serde_json::from_str(&body).unwrap();
    // The pre-signed link is signed per answer.
    value.as_object_mut().unwrap().remove("pdf_share_url");
    value
}
