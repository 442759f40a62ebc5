//! The drift watch (`sandbox watch`) in front of a sandbox that drifts on purpose
//! (`--drift`): each of the eight departures is reported once per element, with its class
//! and the spec line to change; the traffic reaches the caller byte for byte; no secret
//! reaches the report or the record; `--enforce` answers 502 naming the departure; a route
//! or a request the spec does not allow is a departure only when the service takes it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use sandbox::ir::{Element, Ir, Segment};
use sandbox::watch::{Class, Kind, Options, Watch};
use sandbox::{LEGACY_MANAGER, Sandbox};

const KEYS: [(&str, &str); 2] = [
    ("api-key-id", "demo-key"),
    ("api-key-secret", "demo-secret"),
];

async fn sandbox(drift: bool) -> Sandbox {
    Sandbox::start(sandbox::Options {
        rate_limit: None,
        legacy_rate_limit: None,
        drift,
        ..sandbox::Options::default()
    })
    .await
    .unwrap()
}

fn options(upstream: &Sandbox) -> Options {
    Options {
        upstream: upstream.legacy_base_url(),
        enforce: false,
        record: None,
        json_lines: false,
        ir: None,
        timeout: sandbox::watch::DEFAULT_TIMEOUT,
    }
}

async fn watch(options: Options) -> Watch {
    Watch::start(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

/// Status, headers (but `date`) and the body's bytes of `GET origin+path` with the keys.
async fn get(origin: &str, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let answer = keyed(&client, &format!("{origin}{path}"))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let mut headers: Vec<(String, String)> = answer
        .headers()
        .iter()
        .filter(|(n, _)| *n != "date")
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    headers.sort();
    (status, headers, answer.bytes().await.unwrap().to_vec())
}

/// The drifting requests, each with the departure it shows: element, kind, class.
const DRIFTS: &[(&str, &str, Kind, Class)] = &[
    (
        "/v3/units/unt_001",
        "Unit.colour",
        Kind::UnlistedProperty,
        Class::Additive,
    ),
    (
        "/v3/tasks/tsk_complete",
        "TaskStatus:archived",
        Kind::UnknownValue,
        Class::Additive,
    ),
    (
        "/v3/inspections/ins_demo_full",
        "InspectionResult:thermal_image",
        Kind::UnknownMember,
        Class::Additive,
    ),
    (
        "/v3/inspections/ins_demo_full/share_url",
        "ShareUrl.link",
        Kind::MissingField,
        Class::Breaking,
    ),
    (
        "/v3/units/unt_002",
        "Unit.year",
        Kind::WrongType,
        Class::Breaking,
    ),
    (
        "/v3/units/unt_003",
        "Unit.make",
        Kind::UnexpectedNull,
        Class::Breaking,
    ),
    (
        "/v3/user_groups",
        "operation list_user_groups",
        Kind::UnlistedStatus,
        Class::Docs,
    ),
    (
        "/v3/workflows",
        "operation list_workflows",
        Kind::MissingHeader,
        Class::Breaking,
    ),
];

/// The spec line a position names (`spec/v3.yaml:358:3`), from the repository root.
fn spec_line(position: &str) -> String {
    let mut parts = position.rsplitn(3, ':');
    let (_column, line, file) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
    let text =
        std::fs::read_to_string(format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let n: usize = line.parse().unwrap();
    text.lines().nth(n - 1).unwrap().to_string()
}

#[tokio::test]
async fn each_departure_is_reported_once_with_its_class_and_spec_line() {
    let upstream = sandbox(true).await;
    let watch = watch(options(&upstream)).await;
    let via = format!("http://{}", watch.addr);
    for (path, ..) in DRIFTS {
        for _ in 0..2 {
            let through = get(&via, path).await;
            let direct = get(&upstream.legacy_base_url(), path).await;
            if path.ends_with("/share_url") || path.starts_with("/v3/inspections/") {
                // A fresh link each time (an inspection's `pdf_share_url` too), expiring 48
                // hours from the second it is made: two answers a second apart differ there.
                assert_eq!(through.0, direct.0);
                assert_eq!(through.2.len(), direct.2.len(), "{path}");
            } else {
                assert_eq!(through, direct, "{path}: the watch changed the answer");
            }
        }
    }
    let departures = watch.departures();
    let found: Vec<(&str, Kind, Class, u64)> = departures
        .iter()
        .map(|d| (d.element.as_str(), d.kind, d.class, d.count))
        .collect();
    let expected: Vec<(&str, Kind, Class, u64)> = DRIFTS
        .iter()
        .map(|(_, element, kind, class)| (*element, *kind, *class, 2))
        .collect();
    assert_eq!(found, expected, "{:#}", watch.report());
    // Each names the line that declares its element (or the type that would hold it).
    for d in &departures {
        let position = d.position.as_deref().unwrap_or_else(|| panic!("{d:?}"));
        let line = spec_line(position);
        let name = match d.element.split_once(['.', ':']) {
            Some((_, member)) if line.contains(&format!("{member}:")) => member.to_string(),
            Some((ty, _)) => ty.to_string(),
            None => d.element.trim_start_matches("operation ").to_string(),
        };
        assert!(
            line.trim_start().starts_with(&format!("{name}:")),
            "{d:?}: {line}"
        );
    }
    let report = watch.report().to_string();
    assert!(!report.contains("demo-secret"), "{report}");
}

#[tokio::test]
async fn the_honest_sandbox_departs_in_nothing() {
    let upstream = sandbox(false).await;
    let watch = watch(options(&upstream)).await;
    let via = format!("http://{}", watch.addr);
    for (path, ..) in DRIFTS {
        let (status, _, body) = get(&via, path).await;
        assert!(
            status < 300,
            "{path}: {status} {}",
            String::from_utf8_lossy(&body)
        );
    }
    for path in [
        "/v3/units",
        "/v3/tasks?per_page=2",
        "/v3/inspections",
        "/v3/units/nope",
    ] {
        get(&via, path).await;
    }
    // Read over HTTP as soon as the last answer is in: the checks of the answers already
    // passed on are waited for, so it counts all twelve.
    let (status, _, body) = get(&via, "/_watch/report").await;
    let report: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, &report["exchanges"]), (200, &json!(12)));
    assert_eq!(watch.departures().len(), 0, "{:#}", watch.report());
    assert_eq!(watch.report()["exchanges"], 12);
    // The sandbox's workflows carry two properties the spec does not list, where it says
    // a workflow's fields are not shown: gaps filled, not departures.
    let gaps: Vec<String> = watch.gaps().into_iter().map(|g| g.element).collect();
    assert_eq!(gaps, ["Workflow.department_name", "Workflow.location_id"]);
}

#[tokio::test]
async fn enforce_answers_502_naming_the_departure_and_passes_the_rest() {
    let upstream = sandbox(true).await;
    let watch = watch(Options {
        enforce: true,
        ..options(&upstream)
    })
    .await;
    let via = format!("http://{}", watch.addr);
    let (status, _, body) = get(&via, "/v3/units/unt_002").await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 502, "{body}");
    let why = body["errors"].as_str().unwrap();
    assert!(
        why.starts_with("drift watch: wrong_type at Unit.year (spec/v3.yaml:"),
        "{why}"
    );
    let (status, _, body) = get(&via, "/v3/workflows").await;
    assert_eq!(status, 502, "{}", String::from_utf8_lossy(&body));
    let through = get(&via, "/v3/units?per_page=2").await;
    assert_eq!(
        through,
        get(&upstream.legacy_base_url(), "/v3/units?per_page=2").await
    );
}

/// The IR without `name` (a route the spec would not know) and with `per_page` of
/// `list_units` at most 2 (a rule the service does not hold).
fn stricter_ir(without: &str) -> Arc<Ir> {
    let mut ir = (*sandbox::ir::embedded()).clone();
    let v3 = ir.interfaces.iter_mut().find(|i| i.name == "v3").unwrap();
    v3.operations.retain(|op| op.name != without);
    let list = v3
        .operations
        .iter_mut()
        .find(|op| op.name == "list_units")
        .unwrap();
    let per_page = list
        .query
        .iter_mut()
        .find(|q| q.name == "per_page")
        .unwrap();
    per_page.constraints.max = Some(2);
    Arc::new(ir)
}

#[tokio::test]
async fn a_route_or_request_the_spec_does_not_allow_departs_only_when_the_service_takes_it() {
    let upstream = sandbox(false).await;
    let ir = stricter_ir("list_workflows");
    assert!(ir.interfaces[1].operations.iter().all(|op| {
        !matches!(op.call.segments.as_slice(), [Segment::Text { text }] if text == "workflows")
    }));
    let watch = watch(Options {
        ir: Some(ir),
        ..options(&upstream)
    })
    .await;
    let via = format!("http://{}", watch.addr);
    get(&via, "/v3/workflows").await;
    get(&via, "/v3/units?per_page=5").await;
    // The service refuses these too: spec and service agree.
    get(&via, "/v3/nothing_here").await;
    get(&via, "/v3/units?per_page=500").await;
    let found: Vec<(String, Kind, Class)> = watch
        .departures()
        .into_iter()
        .map(|d| (d.element, d.kind, d.class))
        .collect();
    assert_eq!(
        found,
        [
            (
                "route GET /v3/workflows".to_string(),
                Kind::UnknownRoute,
                Class::Additive
            ),
            (
                "operation list_units".to_string(),
                Kind::RequestAccepted,
                Class::Additive
            ),
        ],
        "{:#}",
        watch.report()
    );
}

#[tokio::test]
async fn the_record_holds_every_exchange_without_a_secret() {
    let upstream = sandbox(false).await;
    let dir = std::env::temp_dir().join(format!("watch-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let watch = watch(Options {
        record: Some(dir.clone()),
        ..options(&upstream)
    })
    .await;
    let via = format!("http://{}", watch.addr);
    get(&via, "/v3/units/unt_001").await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let login = json!({"user": {"username": LEGACY_MANAGER.0, "password": LEGACY_MANAGER.1}});
    let answer = client
        .post(format!("{via}/api/users/authenticate"))
        .header("accept", "application/json; version=1")
        .header("content-type", "application/json")
        .body(login.to_string())
        .send()
        .await
        .unwrap();
    let token: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    let token = token["auth_token"].as_str().unwrap().to_string();
    client
        .get(format!("{via}/api/assets?limit=1"))
        .header("accept", "application/json; version=1")
        .header("authorization", format!("Token {token}"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    // Each exchange is recorded by its check, which runs once the answer has passed.
    watch.settle();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    let first: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(first["path"], "/v3/units/unt_001");
    assert_eq!(first["response"]["body"]["id"], "unt_001");
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for secret in ["demo-secret", LEGACY_MANAGER.1, token.as_str()] {
            assert!(!text.contains(secret), "{}: {text}", file.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A position is asked of the IR the generator wrote: the spec's own line.
#[test]
fn positions_name_the_spec_line_of_each_element() {
    let ir = sandbox::ir::embedded();
    let v3 = ir.interface("v3").unwrap();
    let at = v3.position(&Element::Field("Unit", "vin")).unwrap();
    assert!(spec_line(&at).trim_start().starts_with("vin:"), "{at}");
    let at = v3.position(&Element::Operation("get_unit")).unwrap();
    assert_eq!(spec_line(&at), "  get_unit:");
    // An element the spec lacks is placed at the type that would hold it.
    let at = v3
        .position(&Element::Member("TaskStatus", "archived"))
        .unwrap();
    assert_eq!(spec_line(&at), "  TaskStatus:");
}

/// An answer with no body is checked on its head: a DELETE's 204 counts, and an unlisted
/// status without a body is still a departure.
#[tokio::test]
async fn an_answer_without_a_body_is_checked_too() {
    let upstream = sandbox(false).await;
    let watch = watch(options(&upstream)).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut request = client.delete(format!("http://{}/v3/tasks/tsk_idle", watch.addr));
    for (name, value) in KEYS {
        request = request.header(name, value);
    }
    let answer = request.send().await.unwrap();
    assert_eq!(answer.status(), 204);
    assert_eq!(watch.report()["exchanges"], 1, "{:#}", watch.report());
    assert!(watch.departures().is_empty(), "{:#}", watch.report());
}

/// An upstream that misbehaves as the request's path says, on a raw socket: `/v3/units`
/// answers a JSON list larger than the watch checks; `/reset` resets the connection
/// half-way through its body; `/stall-head` never answers; `/stall-body` stops half-way
/// through its body; `/short` promises 1,000 bytes, sends 500 and closes; `/close` closes
/// without an answer. The head of each answer it sends is also kept, to compare.
async fn misbehaving_upstream() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let text = String::from_utf8_lossy(&head).to_string();
                let path = text.split(' ').nth(1).unwrap_or("/").to_string();
                let answer = |length: usize, kind: &str| {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
                    )
                };
                let half = vec![b'x'; 50_000];
                match path.as_str() {
                    "/v3/units" => {
                        let body = huge_body();
                        let _ = socket
                            .write_all(answer(body.len(), "application/json").as_bytes())
                            .await;
                        let _ = socket.write_all(&body).await;
                    }
                    "/reset" | "/v3/units/unt_reset" => {
                        // A unit's answer is JSON, which an enforcing watch reads whole.
                        let kind = match path.starts_with("/v3/") {
                            true => "application/json",
                            false => "application/pdf",
                        };
                        let _ = socket.write_all(answer(100_000, kind).as_bytes()).await;
                        let _ = socket.write_all(&half).await;
                        let _ = socket.flush().await;
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let _ = socket.set_zero_linger();
                        drop(socket); // RST
                    }
                    "/stall-head" => tokio::time::sleep(Duration::from_secs(5)).await,
                    "/stall-body" => {
                        let _ = socket
                            .write_all(answer(100_000, "application/pdf").as_bytes())
                            .await;
                        let _ = socket.write_all(&half).await;
                        tokio::time::sleep(Duration::from_secs(5)).await;
                    }
                    "/short" => {
                        let _ = socket
                            .write_all(answer(1_000, "application/pdf").as_bytes())
                            .await;
                        let _ = socket.write_all(&half[..500]).await;
                    }
                    _ => {} // "/close": closed unanswered
                }
            });
        }
    });
    origin
}

/// A watch over [`misbehaving_upstream`], giving up on a silent upstream after 0.5 s.
async fn watch_misbehaving(enforce: bool, record: Option<std::path::PathBuf>) -> Watch {
    watch(Options {
        upstream: misbehaving_upstream().await,
        enforce,
        record,
        json_lines: false,
        ir: None,
        timeout: Duration::from_millis(500),
    })
    .await
}

/// `GET url` with the keys.
fn keyed(client: &reqwest::Client, url: &str) -> reqwest::RequestBuilder {
    KEYS.iter().fold(client.get(url), |request, (name, value)| {
        request.header(*name, *value)
    })
}

/// The watch's own answer to a failure: its status, and a text starting with `says`.
async fn assert_the_watch_says(answer: reqwest::Response, status: u16, says: &str) {
    assert_eq!(answer.status(), status, "{says}");
    let text = answer.text().await.unwrap();
    assert!(text.starts_with(says), "{text}");
}

/// A JSON list of units over the watch's check cap (16 MiB).
fn huge_body() -> Vec<u8> {
    let unit = r#"{"id":"unt_big","reference_number":"BIG"}"#;
    let mut body = b"[".to_vec();
    while body.len() <= sandbox::watch::MAX_CHECKED {
        body.extend_from_slice(unit.as_bytes());
        body.push(b',');
    }
    body.extend_from_slice(unit.as_bytes());
    body.push(b']');
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misbehaving_upstream_reaches_the_caller_as_the_failure_it_was() {
    let record = std::env::temp_dir().join(format!("watch-faults-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&record);
    let watch = watch_misbehaving(false, Some(record.clone())).await;
    let via = format!("http://{}", watch.addr);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let call = |path: &str| keyed(&client, &format!("{via}{path}")).send();

    // Over the check's cap: passed on byte for byte, unchecked, counted.
    let answer = call("/v3/units").await.unwrap();
    assert_eq!(answer.status(), 200);
    let body = answer.bytes().await.unwrap();
    assert!(body == huge_body(), "the large answer changed on its way");

    // Failures within the body: the caller sees the head the upstream sent, then the body
    // breaks off, never a whole answer made up.
    for path in ["/reset", "/stall-body", "/short"] {
        let answer = call(path).await.unwrap();
        assert_eq!(answer.status(), 200, "{path}");
        assert_eq!(
            answer.content_length(),
            Some(if path == "/short" { 1_000 } else { 100_000 })
        );
        let body = answer.bytes().await;
        assert!(
            body.is_err(),
            "{path}: a broken answer reached the caller as whole"
        );
    }
    // Failures before an answer: the watch's own answer, saying so.
    let answer = call("/stall-head").await.unwrap();
    let says = "watch: the upstream sent no answer within 0.5 s";
    assert_the_watch_says(answer, 504, says).await;
    let answer = call("/close").await.unwrap();
    assert_the_watch_says(answer, 502, "watch: the upstream did not answer").await;

    let report = watch.report();
    let unchecked: u64 = report["unchecked"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_u64)
        .sum();
    assert_eq!(unchecked, 1, "{report:#}");
    assert_eq!(
        report["upstream_failed"],
        json!({
            "broke off within its answer": 2,
            "timed out within its answer": 1,
            "timed out before its answer": 1,
            "no answer": 1,
        }),
        "{report:#}"
    );
    for text in std::fs::read_dir(&record)
        .map(|d| {
            d.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                .collect()
        })
        .unwrap_or_else(|_| Vec::new())
        .iter()
        .chain([&report.to_string()])
    {
        assert!(!text.contains("demo-secret"), "a secret was kept: {text}");
    }
    let _ = std::fs::remove_dir_all(&record);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_connections_at_once_each_get_their_answer_byte_for_byte() {
    let upstream = sandbox(false).await;
    let watch = watch(options(&upstream)).await;
    let via = format!("http://{}", watch.addr);
    let direct = upstream.legacy_base_url();
    // (Inspections carry links signed anew in every answer: not comparable.)
    let paths = [
        "/v3/units",
        "/v3/units/unt_001",
        "/v3/workflows",
        "/v3/tasks",
    ];
    let mut expected = Vec::new();
    for path in paths {
        expected.push(get(&direct, path).await.2);
    }
    // Each call its own connection, all open at once.
    let calls = (0..1_000).map(|n| {
        let via = via.clone();
        async move {
            let client = reqwest::Client::builder()
                .no_proxy()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap();
            let url = format!("{via}{}", paths[n % paths.len()]);
            let answer = keyed(&client, &url).send().await.unwrap();
            (n, answer.status().as_u16(), answer.bytes().await.unwrap())
        }
    });
    let answers = futures_util::future::join_all(calls).await;
    for (n, status, body) in answers {
        assert_eq!(status, 200, "call {n}");
        assert!(
            body == expected[n % paths.len()],
            "call {n}: the answer changed on its way"
        );
    }
    let report = watch.report();
    assert_eq!(report["exchanges"], 1_000, "{report:#}");
    assert!(watch.departures().is_empty(), "{}", watch.table());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enforcing_a_misbehaving_upstream_answers_the_failure_never_a_made_up_body() {
    let watch = watch_misbehaving(true, None).await;
    let via = format!("http://{}", watch.addr);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    // Read whole to be checked before it passes: it broke off, so the watch's own 502.
    let answer = keyed(&client, &format!("{via}/v3/units/unt_reset"))
        .send()
        .await;
    let says = "watch: the upstream's answer broke off";
    assert_the_watch_says(answer.unwrap(), 502, says).await;
    let answer = client
        .get(format!("{via}/stall-head"))
        .send()
        .await
        .unwrap();
    assert_the_watch_says(answer, 504, "watch: the upstream sent no answer").await;
    let report = watch.report();
    assert_eq!(
        report["upstream_failed"],
        json!({"broke off within its answer": 1, "timed out before its answer": 1}),
        "{report:#}"
    );
}
