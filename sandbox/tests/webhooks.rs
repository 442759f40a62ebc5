//! Webhook event deliveries, as the webhooks contract describes them: listeners registered
//! over `/_sandbox/webhooks` or `--webhook`, tasks' own `webhook_url`, retries, raw events,
//! and the reset. Each test runs a tiny listener on 127.0.0.1:0 that records what arrives.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use sandbox::{Options, Sandbox};

#[path = "common/binary.rs"]
mod binary;
mod common;
use common::call;

/// One delivery as the listener saw it.
#[derive(Debug, Clone)]
struct Delivery {
    headers: HeaderMap,
    body: Value,
    at: Instant,
}

#[derive(Clone, Default)]
struct Hook {
    received: Arc<Mutex<Vec<Delivery>>>,
    /// Statuses to answer, in order; 200 once used up.
    statuses: Arc<Mutex<VecDeque<u16>>>,
    /// How long to wait before answering.
    delay: Duration,
}

/// A listener on 127.0.0.1:0 and its URL.
struct Listener {
    url: String,
    hook: Hook,
}

async fn record(State(hook): State<Hook>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let body = serde_json::from_slice(&body).expect("a delivery's body is JSON");
    let at = Instant::now();
    hook.received
        .lock()
        .unwrap()
        .push(Delivery { headers, body, at });
    tokio::time::sleep(hook.delay).await;
    let status = hook.statuses.lock().unwrap().pop_front().unwrap_or(200);
    StatusCode::from_u16(status).unwrap()
}

async fn listener_with(statuses: &[u16], delay: Duration) -> Listener {
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", tcp.local_addr().unwrap());
    let hook = Hook {
        statuses: Arc::new(Mutex::new(statuses.iter().copied().collect())),
        delay,
        ..Hook::default()
    };
    let router = Router::new().fallback(record).with_state(hook.clone());
    tokio::spawn(async move { axum::serve(tcp, router).await });
    Listener { url, hook }
}

async fn listener() -> Listener {
    listener_with(&[], Duration::ZERO).await
}

impl Listener {
    fn received(&self) -> Vec<Delivery> {
        self.hook.received.lock().unwrap().clone()
    }

    /// Waits until `n` deliveries have come (5 s at most), then a little more to catch any
    /// extra one, and answers them all.
    async fn wait_for(&self, n: usize) -> Vec<Delivery> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.received().len() < n && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
        let got = self.received();
        assert_eq!(got.len(), n, "deliveries to {}: {got:#?}", self.url);
        got
    }
}

async fn register(sandbox: &Sandbox, interface: &str, url: &str, header: Option<Value>) -> Value {
    let mut body = json!({ "interface": interface, "url": url });
    if let Some(header) = header {
        body["header"] = header;
    }
    let (status, answer) = call(sandbox, "POST", "/_sandbox/webhooks", &[], Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

use common::DEMO_KEYS as KEYS;

fn task_body(extra: Value) -> Value {
    let mut body = json!({
        "name": "Inspect EX-0117",
        "reference_number": "EX-0117",
        "due_by": "2026-05-01",
        "assignee_username": "dana.ortiz@example.com",
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

fn header<'a>(d: &'a Delivery, name: &str) -> Option<&'a str> {
    d.headers.get(name).and_then(|v| v.to_str().ok())
}

/// An envelope's `created_at` is RFC 3339 UTC.
fn assert_envelope(d: &Delivery, kind: &str) {
    assert_eq!(d.body["type"], kind, "{:#}", d.body);
    let at = d.body["created_at"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(at).is_ok() && at.ends_with('Z'),
        "{at}"
    );
    assert_eq!(header(d, "content-type"), Some("application/json"));
}

#[tokio::test]
async fn a_new_inspection_is_delivered_with_the_listeners_header() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let hook = listener().await;
    let other = listener().await;
    let answer = register(
        &sandbox,
        "v3",
        &hook.url,
        Some(json!({"name": "x-hook-key", "value": "s3cret"})),
    )
    .await;
    assert_eq!(answer, json!({"listeners": 1}));
    register(&sandbox, "legacy", &other.url, None).await;

    let (status, inspection) = call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
    assert_eq!(status, 201, "{inspection}");
    let id = inspection["id"].as_str().unwrap();
    assert_ne!(id, "ins_demo_full");
    let (status, mut stored) = common::v3_get(&sandbox, &format!("/inspections/{id}")).await;
    let got = hook.wait_for(1).await;
    assert_envelope(&got[0], "inspection.created");
    assert_eq!(got[0].body["data"], inspection, "delivered as answered");
    // Each answer carries a link to the PDF signed at its own moment (so two answers'
    // links may differ); without it, the record is the one created.
    let mut created = inspection.clone();
    for record in [&mut stored, &mut created] {
        let link = record.as_object_mut().unwrap().remove("pdf_share_url");
        assert!(link.is_some_and(|l| l.is_string()), "{record}");
    }
    assert_eq!(
        (status, &stored),
        (200, &created),
        "the new inspection is stored"
    );
    assert_eq!(header(&got[0], "x-hook-key"), Some("s3cret"));
    other.wait_for(0).await; // a legacy listener gets no v3 event
}

#[tokio::test]
async fn completing_a_v3_task_goes_to_the_listeners_and_the_tasks_url() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let hook = listener().await;
    let own = listener().await;
    register(&sandbox, "v3", &hook.url, None).await;

    let create = task_body(json!({ "webhook_url": own.url }));
    let (status, task) = call(&sandbox, "POST", "/v3/tasks", &KEYS, Some(create.clone())).await;
    assert_eq!(status, 201, "{task}");
    assert!(task.get("webhook_url").is_none(), "not echoed: {task}");
    let path = format!("/v3/tasks/{}", task["id"].as_str().unwrap());

    // An update that does not complete it sends nothing.
    let started = task_body(json!({ "status": "started" }));
    let (status, _) = call(&sandbox, "PATCH", &path, &KEYS, Some(started)).await;
    assert_eq!(status, 200);
    let completed = task_body(json!({ "status": "completed" }));
    let (status, done) = call(&sandbox, "PATCH", &path, &KEYS, Some(completed.clone())).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["status"], "completed");
    assert!(done["completed_at"].is_string(), "{done}");
    // Completed again: no status change, no event.
    let (status, _) = call(&sandbox, "PATCH", &path, &KEYS, Some(completed)).await;
    assert_eq!(status, 200);

    for to in [&hook, &own] {
        let got = to.wait_for(1).await;
        assert_envelope(&got[0], "task.completed");
        assert_eq!(got[0].body["data"]["id"], done["id"]);
        assert_eq!(got[0].body["data"]["status"], "completed");
        assert_eq!(got[0].body["data"]["completed_at"], done["completed_at"]);
    }
    // `complete` counts too, from another status (`tsk_idle` has no URL of its own).
    let complete = task_body(json!({ "status": "complete" }));
    let (status, _) = call(
        &sandbox,
        "PATCH",
        "/v3/tasks/tsk_idle",
        &KEYS,
        Some(complete),
    )
    .await;
    assert_eq!(status, 200);
    let got = hook.wait_for(2).await;
    assert_eq!(
        got[1].body["data"]["id"], "tsk_idle",
        "in the order they happened"
    );
    own.wait_for(1).await;
}

#[tokio::test]
async fn task_bodies_with_a_bad_status_or_url_are_refused() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    for (extra, why) in [
        (
            json!({"webhook_url": "https://hooks.example.com/x"}),
            "webhook_url",
        ),
        (json!({"webhook_url": 7}), "webhook_url"),
        (json!({"status": "done"}), "status"),
    ] {
        let body = task_body(extra);
        let (status, answer) =
            call(&sandbox, "PATCH", "/v3/tasks/tsk_idle", &KEYS, Some(body)).await;
        assert_eq!(status, 422, "{answer}");
        assert!(
            answer["errors"].as_str().unwrap().starts_with(why),
            "{answer}"
        );
    }
    let body = task_body(json!({"webhook_url": "http://10.0.0.1/x"}));
    let (status, answer) = call(&sandbox, "POST", "/v3/tasks", &KEYS, Some(body)).await;
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["errors"].as_str().unwrap().contains("loopback"),
        "{answer}"
    );
}

async fn legacy_login(sandbox: &Sandbox) -> String {
    let login = json!({"user": {"username": "manager@example.com", "password": "manager-pass"}});
    let accept = [("accept", "application/json; version=1")];
    let (status, body) = call(
        sandbox,
        "POST",
        "/api/users/authenticate",
        &accept,
        Some(login),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    format!("Token {}", body["auth_token"].as_str().unwrap())
}

#[tokio::test]
async fn completing_a_legacy_task_calls_its_url_and_the_legacy_listeners() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let hook = listener().await;
    let own = listener().await;
    let v3 = listener().await;
    register(&sandbox, "legacy", &hook.url, None).await;
    register(&sandbox, "v3", &v3.url, None).await;
    let token = legacy_login(&sandbox).await;
    let headers = [
        ("accept", "application/json; version=1"),
        ("authorization", token.as_str()),
    ];

    let create = json!({"task": {"name": "Walk-around", "webhook_url": own.url}});
    let (status, created) = call(&sandbox, "POST", "/api/tasks", &headers, Some(create)).await;
    assert_eq!(status, 201, "{created}");
    assert!(
        created["task"].get("webhook_url").is_none(),
        "not echoed: {created}"
    );
    let path = format!("/api/tasks/{}", created["task"]["id"].as_str().unwrap());
    let done = json!({"task": {"status": "completed"}});
    let (status, updated) = call(&sandbox, "PATCH", &path, &headers, Some(done.clone())).await;
    assert_eq!(status, 200, "{updated}");
    let (status, _) = call(&sandbox, "PUT", &path, &headers, Some(done)).await;
    assert_eq!(status, 200, "already completed: no second event");

    for to in [&own, &hook] {
        let got = to.wait_for(1).await;
        assert_envelope(&got[0], "task.completed");
        assert_eq!(
            got[0].body["data"], updated["task"],
            "the record, unwrapped"
        );
    }
    v3.wait_for(0).await;
}

#[tokio::test]
async fn a_failing_listener_gets_three_attempts_with_growing_backoff() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let flaky = listener_with(&[500, 500], Duration::ZERO).await;
    let down = listener_with(&[503, 503, 503, 503], Duration::ZERO).await;
    register(&sandbox, "v3", &flaky.url, None).await;
    register(&sandbox, "v3", &down.url, None).await;
    call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;

    let got = flaky.wait_for(3).await;
    assert!(
        got.iter().all(|d| d.body == got[0].body),
        "the same event each time"
    );
    assert!(got[1].at - got[0].at >= Duration::from_millis(20));
    assert!(got[2].at - got[1].at >= Duration::from_millis(40));
    down.wait_for(3).await; // then it gives up
}

#[tokio::test]
async fn a_slow_listener_does_not_hold_up_the_answer() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let slow = listener_with(&[], Duration::from_millis(1500)).await;
    register(&sandbox, "v3", &slow.url, None).await;
    let started = Instant::now();
    for _ in 0..2 {
        let (status, _) = call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
        assert_eq!(status, 201);
    }
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "{:?}",
        started.elapsed()
    );
    let got = slow.wait_for(2).await;
    let ids: Vec<&Value> = got.iter().map(|d| &d.body["data"]["id"]).collect();
    assert!(ids[0].as_str() < ids[1].as_str(), "in order: {ids:?}");
}

#[tokio::test]
async fn non_loopback_and_malformed_registrations_are_refused() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    for (body, why) in [
        (
            json!({"interface": "v3", "url": "http://example.com/hook"}),
            "loopback",
        ),
        (
            json!({"interface": "v3", "url": "https://127.0.0.1/hook"}),
            "loopback",
        ),
        (
            json!({"interface": "v3", "url": "http://192.168.1.2/hook"}),
            "loopback",
        ),
        (json!({"interface": "v3", "url": "not a url"}), "not a URL"),
        (
            json!({"interface": "v4", "url": "http://127.0.0.1/"}),
            "unknown variant",
        ),
        (
            json!({"interface": "v3", "url": "http://127.0.0.1/", "header": {"name": "bad name", "value": "v"}}),
            "header",
        ),
    ] {
        let (status, answer) = call(&sandbox, "POST", "/_sandbox/webhooks", &[], Some(body)).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer["errors"].as_str().unwrap().contains(why), "{answer}");
    }
    let options = Options {
        webhooks: vec!["http://example.com/".into()],
        ..Options::default()
    };
    let refused = Sandbox::start(options).await.err().unwrap();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    let flag = sandbox::cli::parse(vec!["--webhook".into(), "http://8.8.8.8/x".into()]);
    assert!(
        flag.unwrap_err()
            .contains("--webhook: `http://8.8.8.8/x` is refused")
    );
}

#[tokio::test]
async fn emit_delivers_a_raw_event_unchanged() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let hook = listener().await;
    register(&sandbox, "legacy", &hook.url, None).await;
    let events = [
        json!({"type": "unit.exploded", "data": {"pieces": [1, 2.5, null]}, "extra": true}),
        json!(["no", "type", "at", "all"]),
    ];
    for event in &events {
        let body = json!({"interface": "legacy", "event": event});
        let (status, answer) =
            call(&sandbox, "POST", "/_sandbox/webhooks/emit", &[], Some(body)).await;
        assert_eq!((status, answer), (200, json!({"listeners": 1})));
    }
    let got = hook.wait_for(2).await;
    assert_eq!(got[0].body, events[0]);
    assert_eq!(got[1].body, events[1]);
}

#[tokio::test]
async fn reset_and_delete_drop_registered_listeners_but_not_flag_ones() {
    let fixed = listener().await;
    let options = sandbox::cli::parse(
        [
            "--addr",
            "127.0.0.1:0",
            "--webhook",
            &fixed.url,
            "--webhook-header",
            "X-Sandbox-Key: from-the-flag",
        ]
        .map(String::from)
        .to_vec(),
    )
    .unwrap()
    .unwrap();
    let sandbox = Sandbox::start(options).await.unwrap();
    let hook = listener().await;
    let answer = register(&sandbox, "v3", &hook.url, None).await;
    assert_eq!(
        answer,
        json!({"listeners": 2}),
        "the flag's listener counts"
    );

    let (status, _) = call(&sandbox, "POST", "/_sandbox/reset", &[], None).await;
    assert_eq!(status, 204);
    call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
    register(&sandbox, "v3", &hook.url, None).await;
    let (status, _) = call(&sandbox, "DELETE", "/_sandbox/webhooks", &[], None).await;
    assert_eq!(status, 204);
    let emit = json!({"interface": "legacy", "event": {"type": "x"}});
    call(&sandbox, "POST", "/_sandbox/webhooks/emit", &[], Some(emit)).await;

    hook.wait_for(0).await;
    let got = fixed.wait_for(2).await;
    assert_eq!(got[0].body["type"], "inspection.created");
    assert_eq!(
        got[1].body,
        json!({"type": "x"}),
        "flag listeners hear both interfaces"
    );
    assert!(
        got.iter()
            .all(|d| header(d, "x-sandbox-key") == Some("from-the-flag"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_logs_each_attempt_on_stderr() {
    let hook = listener_with(&[500], Duration::ZERO).await;
    let mut running = binary::start(&[
        "--addr",
        "127.0.0.1:0",
        "--webhook",
        &hook.url,
        "--webhook-header",
        "x-cli: on",
    ]);
    let base = running.base.clone();
    let lines = &mut running.lines;
    let origin = base.strip_suffix("/v3").unwrap();
    let printed: Vec<String> = lines.take(6).map(Result::unwrap).collect();
    assert!(printed.iter().any(|l| l.contains(&hook.url)), "{printed:?}");

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let response = client
        .post(format!("{origin}/_sandbox/v3/inspections"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let got = hook.wait_for(2).await;
    assert_eq!(header(&got[1], "x-cli"), Some("on"));

    let _ = running.child.kill();
    let mut stderr = String::new();
    running
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    for line in [
        format!(
            "sandbox: webhook inspection.created -> {}: attempt 1: 500",
            hook.url
        ),
        format!(
            "sandbox: webhook inspection.created -> {}: attempt 2: 200",
            hook.url
        ),
    ] {
        assert!(stderr.contains(&line), "{line} not in {stderr}");
    }
    assert!(
        !stderr.contains("x-cli") && !stderr.contains(": on"),
        "{stderr}"
    );
}
