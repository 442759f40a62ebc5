//! `--log-format json` end to end against the sandbox: a sync and an export under faults
//! write the client's per-attempt events (each answer, each retry with why and how long,
//! waits, failures) as one JSON object a line on standard error, every line of it JSON;
//! a command that fails ends with its error as such a line (class, exit code, message);
//! no line ever holds the key's secret or a database password.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/cli_process.rs"]
mod tool;

use serde_json::Value;

use export_folder::{scratch, strings, v3_sandbox};

/// Every line of `stderr`, each parsed as a JSON object (a line that is not one fails).
fn json_lines(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            assert!(value.is_object(), "{line}");
            assert!(
                value["ts"].is_string() && value["level"].is_string(),
                "{line}"
            );
            value
        })
        .collect()
}

fn events<'a>(lines: &'a [Value], event: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == event).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_carry_each_attempt_and_the_final_error_and_never_a_secret() {
    let (_sandbox, env) = v3_sandbox("--inspections 60 --faults 0.3 --fault-seed 11").await;
    let dir = scratch("log-format");
    let db = dir.join("fleet.db").display().to_string();

    // A sync under faults: each attempt answered, each retry with its reason and wait.
    let args = [
        "--quiet",
        "--log-format",
        "json",
        "sync",
        "v3",
        &db,
        "--page-size",
        "5",
    ];
    let ran = tool::run(&strings(&args), &env, None).await;
    assert!([0, 6, 7, 8].contains(&ran.code), "{}", ran.stderr);
    let lines = json_lines(&ran.stderr);
    let answers = events(&lines, "response");
    assert!(answers.len() > 10, "{} answers", answers.len());
    for a in &answers {
        assert!(a["operation"].is_string(), "{a}");
        assert!(a["attempt"].as_u64().is_some_and(|n| n >= 1), "{a}");
        assert!(a["http.response.status_code"].is_u64(), "{a}");
        assert!(a["duration_ms"].is_u64(), "{a}");
    }
    let retries = events(&lines, "retry");
    assert!(!retries.is_empty(), "no retry under 30 % faults");
    for r in &retries {
        assert_eq!(r["level"], "WARN", "{r}");
        assert!(r["reason"].is_string() && r["wait_ms"].is_u64(), "{r}");
        assert!(
            r["message"].as_str().unwrap().starts_with("retrying "),
            "{r}"
        );
    }
    assert!(
        retries
            .iter()
            .any(|r| r["http.response.status_code"] == 429),
        "no 429 among {} retries",
        retries.len()
    );
    assert!(!ran.stderr.contains("demo-secret"));
    // The run's count of 429s is the answers' (its summary, and its row in _sync_runs).
    if ran.code == 0 {
        let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
        let met = answers
            .iter()
            .filter(|a| a["http.response.status_code"] == 429)
            .count();
        assert_eq!(summary["rate_limited"], met, "{summary}");
    }

    // An export too (the flag is the tool's, on every command).
    let folder = dir.join("export").display().to_string();
    let args = ["--quiet", "--log-format", "json", "export", "v3", &folder];
    let ran = tool::run(&strings(&args), &env, None).await;
    assert!([0, 6, 7, 8].contains(&ran.code), "{}", ran.stderr);
    assert!(!events(&json_lines(&ran.stderr), "response").is_empty());

    // A failure: the last line is the error, with its class and exit code.
    let mut wrong = env.clone();
    wrong[2].1 = "not-the-secret-91c2".into();
    let args = ["--quiet", "--log-format", "json", "sync", "v3", &db];
    let ran = tool::run(&strings(&args), &wrong, None).await;
    assert_eq!(ran.code, 4, "{}", ran.stderr);
    let lines = json_lines(&ran.stderr);
    let last = lines.last().unwrap();
    assert_eq!(last["event"], "failed", "{last}");
    assert_eq!(last["level"], "ERROR");
    assert_eq!(last["class"], "credentials");
    assert_eq!(last["exit_code"], 4);
    assert!(last["message"].as_str().unwrap().contains("401"), "{last}");
    assert!(!ran.stderr.contains("not-the-secret"), "{}", ran.stderr);

    // A database that cannot be reached: its password never in a line.
    let url = "postgres://sync:hunter2-pw@127.0.0.1:1/fleet?connect_timeout=2";
    let args = ["--quiet", "--log-format", "json", "sync", "v3", url];
    let ran = tool::run(&strings(&args), &env, None).await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    let lines = json_lines(&ran.stderr);
    let last = lines.last().unwrap();
    assert_eq!(last["class"], "database", "{last}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains("sync:***@127.0.0.1"),
        "{last}"
    );
    assert!(!ran.stderr.contains("hunter2"), "{}", ran.stderr);

    // The text format, the default, keeps the plain line.
    let args = ["--quiet", "--log-format", "text", "sync", "v3", url];
    let ran = tool::run(&strings(&args), &env, None).await;
    assert_eq!(ran.code, 10);
    assert!(
        ran.stderr.starts_with("inspection: error (database): "),
        "{}",
        ran.stderr
    );
    let ran = tool::run(
        &strings(&["--log-format", "xml", "sync", "v3", url]),
        &env,
        None,
    )
    .await;
    assert_eq!(ran.code, 2, "{}", ran.stderr);
}
