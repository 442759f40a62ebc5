//! The drift watch (`sandbox watch`) in front of a sandbox that drifts on purpose
//! (`--drift`): each of the eight departures is reported once per element, with its class
//! and the spec line to change; the traffic reaches the caller byte for byte; no secret
//! reaches the report or the record; `--enforce` answers 502 naming the departure; a route
//! or a request the spec does not allow is a departure only when the service takes it.

use std::sync::Arc;

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
    let mut request = client.get(format!("{origin}{path}"));
    for (name, value) in KEYS {
        request = request.header(name, value);
    }
    let answer = request.send().await.unwrap();
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
            if path.ends_with("/share_url") {
                // A fresh link each time, expiring 48 hours from the millisecond it is made.
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
