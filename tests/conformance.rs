//! Every conformance scenario (`tests/conformance/*.yaml`) against the sandbox, with the
//! generated Rust client. `CONFORMANCE_ONLY=text` runs the scenarios whose name holds it.

#[path = "support/conformance/mod.rs"]
mod conformance;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use conformance::format::{ClientSpec, FORMAT, File, Interface, SandboxSpec};
use conformance::sandbox::Running;

fn files() -> Vec<(PathBuf, File)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no scenario files in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let file: File = FORMAT
                .read(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, file)
        })
        .collect()
}

/// The operations of `spec/<interface>.yaml`, by name.
fn operations(interface: &str) -> BTreeSet<String> {
    let path = format!("{}/../spec/{interface}.yaml", env!("CARGO_MANIFEST_DIR"));
    let spec: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    spec["operations"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// `<interface>_wire.yaml` calls every operation of `spec/<interface>.yaml`: a new
/// operation fails here until its request on the wire is written down.
#[test]
fn every_operation_has_a_wire_scenario() {
    let files = files();
    for interface in ["v3", "legacy"] {
        let wire = format!("{interface}_wire.yaml");
        let called: BTreeSet<String> = files
            .iter()
            .filter(|(path, _)| path.ends_with(&wire))
            .flat_map(|(_, file)| &file.scenarios)
            .flat_map(|s| &s.steps)
            .filter_map(|step| step.call.clone())
            .collect();
        let missing: Vec<String> = operations(interface).difference(&called).cloned().collect();
        assert!(missing.is_empty(), "{wire} calls no {missing:?}");
    }
}

/// `format.json` as this runner reads it: a key it does not list is refused wherever it
/// stands, and so is a value outside a `one_of`; a setting a scenario leaves out is the
/// default, one given is kept, credentials are filled in one by one.
#[test]
fn the_format_refuses_unknown_keys_and_fills_in_the_defaults() {
    let refused = |yaml: &str| FORMAT.read(yaml).unwrap_err();
    let scenario = |step: &str| {
        format!(
            "scenarios:\n  - {{name: s, interface: v3, steps: [{{call: list_units, {step}}}]}}\n"
        )
    };
    assert_eq!(
        refused(&scenario("expect: {oks: 1}")),
        "unknown key `oks` in scenarios[0].steps[0].expect"
    );
    assert_eq!(
        refused(&scenario(
            "expect_requests: [{method: GET, path: /v3/units, header: {}}]"
        )),
        "unknown key `header` in scenarios[0].steps[0].expect_requests[0]"
    );
    assert_eq!(
        refused(&scenario("mode: page")),
        "scenarios[0].steps[0].mode is one of send, pdf, pages, items, pages_backward, \
         items_backward, items_resumed, not \"page\""
    );
    assert_eq!(
        refused("scenario: []\n"),
        "unknown key `scenario` in the file"
    );

    let file = FORMAT
        .read(&scenario("expect: {ok: {}}").replace(
            "interface: v3,",
            "interface: v3, client: {timeout_ms: 50, credentials: {key_secret: s3cr3t}},",
        ))
        .unwrap();
    let client = &file.scenarios[0].client;
    let defaults = ClientSpec::defaults(Interface::V3);
    assert_eq!((client.timeout_ms, defaults.timeout_ms), (50, 10_000));
    assert_eq!(client.max_attempts, 4);
    assert_eq!(client.credentials.key_id.as_deref(), Some("demo-key"));
    assert_eq!(client.credentials.key_secret.as_deref(), Some("s3cr3t"));
    assert_eq!(client.credentials.password, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes() {
    let only = std::env::var("CONFORMANCE_ONLY").ok();
    let files = files();
    let mut names = BTreeSet::new();
    for (path, file) in &files {
        for s in &file.scenarios {
            assert!(
                names.insert(s.name.as_str()),
                "{}: the scenario name `{}` is used twice",
                path.display(),
                s.name
            );
            assert!(
                !s.steps.is_empty(),
                "{}: `{}` has no steps",
                path.display(),
                s.name
            );
        }
    }
    let (passed, failures, _) = run_all(&files, only.as_deref(), Through::Nothing).await;
    eprintln!(
        "conformance: {passed} scenarios passed, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
    assert!(passed > 0, "no scenario ran");
}

/// Every scenario with the drift watch (`sandbox watch`) between the client and the
/// sandbox: each still passes, and the watch finds no departure from the spec in any of
/// their traffic (the sandbox's injected faults and canned answers apart, which it marks).
/// The files whose scenarios put a proxy of their own in front are left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_passes_through_the_drift_watch_which_finds_nothing() {
    let only = std::env::var("CONFORMANCE_ONLY").ok();
    let files = without_proxies();
    let (passed, failures, sandboxes) = run_all(&files, only.as_deref(), Through::Watch).await;
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
    let mut exchanges = 0;
    for running in sandboxes.values() {
        let watch = running.watch.as_ref().unwrap();
        let report = watch.report();
        exchanges += report["exchanges"].as_u64().unwrap();
        assert!(watch.departures().is_empty(), "{}", watch.table());
    }
    eprintln!(
        "conformance through the drift watch: {passed} scenarios, {exchanges} exchanges checked"
    );
    assert!(passed > 0 && exchanges > 0, "no scenario ran");
}

/// Every scenario through the drift watch in front of a sandbox that drifts on purpose
/// (`--drift`): the watch reports only the drift's departures, each element once, and a
/// scenario fails only when its traffic met a drifting answer (the rest reaches the client
/// as the sandbox sent it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_watch_a_drifting_sandbox_fails_only_the_scenarios_it_touches() {
    let only = std::env::var("CONFORMANCE_ONLY").ok();
    let files = without_proxies();
    let (passed, failures, sandboxes) = run_all(&files, only.as_deref(), Through::Drift).await;
    let untouched: Vec<&String> = failures.iter().filter(|f| !f.contains("[drift]")).collect();
    assert!(
        untouched.is_empty(),
        "failed without meeting the drift:\n{untouched:#?}"
    );
    let drift = [
        "Unit.colour",
        "TaskStatus:archived",
        "InspectionResult:thermal_image",
        "ShareUrl.link",
        "Unit.year",
        "Unit.make",
        "operation list_user_groups",
        "operation list_workflows",
    ];
    let mut seen = BTreeSet::new();
    for running in sandboxes.values() {
        let departures = running.watch.as_ref().unwrap().departures();
        for d in &departures {
            assert!(
                drift.contains(&d.element.as_str()),
                "not the drift's: {d:#?}"
            );
            let twice = departures
                .iter()
                .filter(|o| o.element == d.element && o.kind == d.kind);
            assert_eq!(twice.count(), 1, "{d:#?}");
            seen.insert(d.element.clone());
        }
    }
    eprintln!(
        "drift through the watch: {passed} scenarios passed, {} met the drift; departures seen: {seen:?}",
        failures.len()
    );
    if only.is_none() {
        assert!(seen.len() >= 6, "the scenarios met only {seen:?}");
    }
}

/// The files whose scenarios do not put a proxy of their own in front of the sandbox.
fn without_proxies() -> Vec<(PathBuf, File)> {
    let proxied = |s: &SandboxSpec| s.proxy;
    files()
        .into_iter()
        .filter(|(_, file)| {
            !proxied(&file.sandbox)
                && file
                    .scenarios
                    .iter()
                    .all(|s| !s.sandbox.as_ref().is_some_and(proxied))
        })
        .collect()
}

/// What stands between the clients and the sandbox.
#[derive(Clone, Copy, PartialEq)]
enum Through {
    Nothing,
    /// The drift watch.
    Watch,
    /// The drift watch, and the sandbox drifts (`--drift`).
    Drift,
}

/// Runs the scenarios of `files` (those whose name holds `only`), one sandbox per set of
/// flags, reset before every scenario: how many passed, the failures (with `[drift]` when
/// the scenario's traffic met a drifting answer), and the sandboxes.
async fn run_all(
    files: &[(PathBuf, File)],
    only: Option<&str>,
    through: Through,
) -> (usize, Vec<String>, HashMap<SandboxSpec, Running>) {
    // One scenario at a time in this binary: `expect_events` records the process's events.
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one = ONE_AT_A_TIME.lock().await;
    let mut sandboxes: HashMap<SandboxSpec, Running> = HashMap::new();
    let (mut passed, mut failures) = (0, Vec::new());
    for (path, file) in files {
        let file_name = path.file_name().unwrap().to_string_lossy();
        for scenario in &file.scenarios {
            if only.is_some_and(|o| !scenario.name.contains(o)) {
                continue;
            }
            let mut spec = scenario.sandbox.as_ref().unwrap_or(&file.sandbox).clone();
            if through == Through::Drift {
                spec.args.push("--drift".into());
            }
            if !sandboxes.contains_key(&spec) {
                let watched = through != Through::Nothing;
                let running = Running::start_with(&spec, watched).await.unwrap();
                sandboxes.insert(spec.clone(), running);
            }
            let running = &sandboxes[&spec];
            match conformance::run::scenario(running, scenario).await {
                Ok(()) => passed += 1,
                Err(e) => {
                    let met = running
                        .requests()
                        .await
                        .unwrap_or_default()
                        .iter()
                        .any(|r| {
                            let (method, path) = (r["method"].as_str(), r["path"].as_str());
                            sandbox::drift::departs(method.unwrap_or(""), path.unwrap_or(""))
                        });
                    let mark = if met { " [drift]" } else { "" };
                    failures.push(format!("{file_name}: {}{mark}: {e}", scenario.name));
                }
            }
        }
    }
    (passed, failures, sandboxes)
}

/// The command-line tool as one more runner: every wire scenario it can run (its calls are
/// operations, sent or asked for their PDF, with the default client settings) passes
/// through `inspection`, so each subcommand puts on the wire exactly what the library does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wire_scenarios_pass_through_the_command_line_tool() {
    let only = std::env::var("CONFORMANCE_ONLY").ok();
    let tool = conformance::tool::Tool::new().await;
    let mut sandboxes: HashMap<SandboxSpec, Running> = HashMap::new();
    let (mut passed, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for (path, file) in files() {
        let file_name = path.file_name().unwrap().to_string_lossy().to_string();
        if !file_name.ends_with("_wire.yaml") {
            continue;
        }
        for scenario in &file.scenarios {
            if only
                .as_ref()
                .is_some_and(|o| !scenario.name.contains(o.as_str()))
            {
                continue;
            }
            if !tool.runs(scenario) {
                skipped.push(scenario.name.clone());
                continue;
            }
            let spec = scenario.sandbox.as_ref().unwrap_or(&file.sandbox).clone();
            if !sandboxes.contains_key(&spec) {
                sandboxes.insert(spec.clone(), Running::start(&spec).await.unwrap());
            }
            match conformance::run::scenario_through_tool(&sandboxes[&spec], scenario, &tool).await
            {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{file_name}: {}: {e}", scenario.name)),
            }
        }
    }
    eprintln!(
        "conformance through the tool: {passed} passed, {} failed, {} not for the tool: {skipped:?}",
        failures.len(),
        skipped.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
    // Only a scenario with a client action (parts put to pre-signed URLs) is beyond it.
    assert!(
        skipped.len() <= 1 && (only.is_some() || passed >= 28),
        "ran {passed}, skipped {skipped:?}"
    );
}
