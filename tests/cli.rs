//! The `inspection` command-line tool end to end against the sandbox (started in this
//! process; the tool is the binary `cargo build -p inspection-cli` makes): an export
//! killed with SIGKILL and resumed ends exactly as an uninterrupted one, `--since last`
//! fetches exactly what came after, a held folder is refused, and bad input is named,
//! gets its exit code and writes nothing. The wire form of every subcommand is held by
//! the conformance scenarios (`tests/conformance.rs`).

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/small_disk.rs"]
mod small_disk;
#[path = "support/cli_process.rs"]
mod tool;

use std::path::Path;

use export_folder::{
    Moments, control, folder_contents, sandbox, scratch, strings, v3_env, v3_sandbox, whole_pdf,
};
use small_disk::SmallDisk;
use std::time::Duration;

use serde_json::Value;

/// The records an export folder's checkpoint covers, if it has one.
fn checkpoint_records(dir: &Path) -> Option<u64> {
    let text = std::fs::read(dir.join("checkpoint.json")).ok()?;
    serde_json::from_slice::<Value>(&text).ok()?["records"].as_u64()
}

/// Runs the export to its end (a run that fails under faults is run again, as a user
/// would), and gives how many runs it took.
async fn export_to_end(args: &[String], env: &[(String, String)]) -> usize {
    tool::run_to_end(args, env, "the export").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_killed_five_times_ends_as_an_uninterrupted_one() {
    let (sandbox, env) =
        v3_sandbox("--inspections 150 --faults 0.1 --fault-seed 7 --slow-ms 200").await;
    let dir = scratch("kill");
    let whole = dir.join("uninterrupted");
    let args = |folder: &Path| {
        strings(&[
            "--quiet",
            "--rate-limit",
            "off",
            "export",
            "v3",
            &folder.display().to_string(),
            "--pdf",
        ])
    };
    export_to_end(&args(&whole), &env).await;
    let expected = folder_contents(&whole);
    assert_eq!(expected.0.len(), 153, "the demo's 3 and the 150 generated");
    assert_eq!(expected.1.len(), 153, "a PDF per inspection");
    assert!(expected.1.values().all(|pdf| whole_pdf(pdf)));

    let killed = dir.join("killed");
    let mut moments = Moments(0x5eed_2026);
    let mut partial = Vec::new();
    let moment = || moments.next_ms(100, 1500);
    tool::kill_runs(&args(&killed), &env, 5, moment, |kill| {
        let written = checkpoint_records(&killed).unwrap_or(0);
        let pdfs = std::fs::read_dir(killed.join("documents")).map_or(0, |d| d.count());
        eprintln!("kill {kill}: {written} records checkpointed, {pdfs} PDFs");
        partial.push((written, pdfs));
    })
    .await;
    // Some kill fell in the middle: records or PDFs were written, not all of them.
    assert!(
        partial
            .iter()
            .any(|&(records, pdfs)| (1..153).contains(&records) || (1..153).contains(&pdfs)),
        "no kill fell in the middle of the export: {partial:?}"
    );
    let runs = export_to_end(&args(&killed), &env).await;
    eprintln!("resumed to the end in {runs} run(s)");
    let got = folder_contents(&killed);
    assert_eq!(
        got.0, expected.0,
        "the records differ from an uninterrupted export"
    );
    assert_eq!(
        got.1.keys().collect::<Vec<_>>(),
        expected.1.keys().collect::<Vec<_>>(),
        "the documents differ"
    );
    assert!(got.1 == expected.1, "a PDF's bytes differ");
    let leftovers: Vec<String> = std::fs::read_dir(killed.join("documents"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "partial files left: {leftovers:?}");
    // The PDFs came from the records' links (under faults of their own), with no key.
    let stats = sandbox.stats().await;
    assert!(
        stats.storage_requests > 0 && stats.storage_faults > 0,
        "{stats:?}"
    );
    assert_eq!(stats.storage_with_credentials, 0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_last_fetches_exactly_what_came_after() {
    let (sandbox, env) = v3_sandbox("--inspections 40").await;
    let dir = scratch("since");
    let folder = dir.join("export").display().to_string();
    let first = tool::run(&strings(&["--quiet", "export", "v3", &folder]), &env, None).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let before = folder_contents(Path::new(&folder)).0;
    assert_eq!(before.len(), 43);

    // Nothing new: nothing fetched, nothing written.
    let again = tool::run(
        &strings(&["--quiet", "export", "v3", &folder, "--since", "last"]),
        &env,
        None,
    )
    .await;
    assert_eq!(again.code, 0, "{}", again.stderr);
    let summary: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(summary["records"], 0, "{summary}");

    control(&sandbox, "POST", "/_sandbox/advance?seconds=60").await;
    let mut new_ids = Vec::new();
    for _ in 0..3 {
        let created = control(&sandbox, "POST", "/_sandbox/v3/inspections").await;
        new_ids.push(created["id"].as_str().unwrap().to_string());
    }
    let next = tool::run(
        &strings(&["--quiet", "export", "v3", &folder, "--since", "last"]),
        &env,
        None,
    )
    .await;
    assert_eq!(next.code, 0, "{}", next.stderr);
    let after = folder_contents(Path::new(&folder)).0;
    let mut added: Vec<String> = after
        .iter()
        .filter(|line| !before.contains(line))
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    added.sort();
    new_ids.sort();
    assert_eq!(
        added, new_ids,
        "exactly the inspections made after the first export"
    );
    assert_eq!(after.len(), before.len() + 3, "and nothing twice");

    // The same full export again has nothing to resume: it says so, exits 0, writes nothing
    // (running it again would otherwise write every record twice).
    let full = tool::run(&strings(&["export", "v3", &folder]), &env, None).await;
    assert_eq!(full.code, 0, "{}", full.stderr);
    assert!(full.stderr.contains("--since last"), "{}", full.stderr);
    let summary: Value = serde_json::from_slice(&full.stdout).unwrap();
    assert_eq!(summary["records"], 0, "{summary}");
    assert_eq!(folder_contents(Path::new(&folder)).0, after);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_held_by_a_running_export_is_refused_and_taken_over_once_it_dies() {
    // Slow answers keep the first export running while the second tries.
    let (_sandbox, env) = v3_sandbox("--inspections 200 --fault-slow 1 --slow-ms 300").await;
    let dir = scratch("lock");
    let folder = dir.join("export").display().to_string();
    let args = strings(&["--quiet", "export", "v3", &folder]);
    let mut first = tool::spawn(&args, &env);
    // The lock is taken before the first request.
    for _ in 0..100 {
        if Path::new(&folder).join("checkpoint.json").exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let second = tool::run(&args, &env, None).await;
    assert_eq!(second.code, 9, "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains(&format!("by process {}", first.id())),
        "{}",
        second.stderr
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let third = tool::run(&args, &env, None).await;
    assert_eq!(
        third.code, 0,
        "a dead export's lock is taken over: {}",
        third.stderr
    );
    assert_eq!(folder_contents(Path::new(&folder)).0.len(), 203);
    std::fs::remove_dir_all(dir).unwrap();
}

/// One bad input: the command line, what the message must name, the exit code.
struct Bad {
    args: Vec<String>,
    names: Vec<String>,
    code: i32,
}

fn bad(args: &[&str], names: &[&str], code: i32) -> Bad {
    Bad {
        args: strings(args),
        names: strings(names),
        code,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_named_gets_its_exit_code_and_writes_nothing() {
    let sandbox = sandbox("").await;
    let dir = scratch("bad");
    let body = dir.join("body.json");
    std::fs::write(&body, "{\"reference_number\": \"A-1\",").unwrap();
    let body = body.display().to_string();
    let body = body.as_str();
    let folder = dir.join("never").display().to_string();
    let folder = folder.as_str();
    let cases = [
        bad(
            &["v3", "list-units", "--per-pgae", "5"],
            &["--per-pgae", "--per-page"],
            2,
        ),
        bad(
            &["v3", "list-units", "--per-page", "101"],
            &["per_page", "100", "101"],
            3,
        ),
        bad(
            &["v3", "list-units", "--per-page", "ten"],
            &["--per-page", "ten"],
            2,
        ),
        bad(&["v3", "create-unit", "--body", body], &[body, "line 1"], 2),
        bad(
            &["v3", "create-unit", "--make", "Cat"],
            &["reference_number"],
            2,
        ),
        bad(
            &[
                "v3",
                "create-unit",
                "--reference-number",
                "A-1",
                "--vin",
                "IIIIIIIIIIIIIIIII",
            ],
            &["vin"],
            3,
        ),
        bad(
            &["v3", "list-inspections", "--created-after", "2026-13-01"],
            &["--created-after", "2026-13-01"],
            2,
        ),
        bad(
            &["export", "v3", folder, "--since", "yesterday"],
            &["--since", "yesterday"],
            2,
        ),
        bad(&["export", "legacy", folder, "--pdf"], &["--pdf"], 2),
    ];
    let env = v3_env(&sandbox);
    for case in &cases {
        control(&sandbox, "DELETE", "/_sandbox/requests").await;
        let ran = tool::run(&case.args, &env, None).await;
        assert_eq!(ran.code, case.code, "{:?}: {}", case.args, ran.stderr);
        for name in &case.names {
            assert!(
                ran.stderr.contains(name),
                "{:?} names no `{name}`: {}",
                case.args,
                ran.stderr
            );
        }
        assert!(
            ran.stdout.is_empty(),
            "{:?} printed {}",
            case.args,
            ran.stdout_text()
        );
        let sent = control(&sandbox, "GET", "/_sandbox/requests").await;
        assert_eq!(sent, Value::Array(vec![]), "{:?} sent a request", case.args);
    }
    assert!(
        !Path::new(folder).exists(),
        "a refused export made its folder"
    );

    // Credentials: missing, in a profile others can read, in a profile that cannot be read.
    let missing = tool::run(&strings(&["v3", "list-units"]), &env[..2], None).await;
    tool::assert_failed(&missing, 4, "INSPECTION_V3_API_KEY_SECRET");
    let config = dir.join("config");
    std::fs::create_dir_all(&config).unwrap();
    let profile = config.join("profiles");
    std::fs::write(
        &profile,
        "[default]\nINSPECTION_V3_API_KEY_SECRET = demo-secret\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&profile, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let mut with_profile = env[..2].to_vec();
    with_profile.push(("INSPECTION_CONFIG_DIR".into(), config.display().to_string()));
    #[cfg(unix)]
    {
        let open = tool::run(&strings(&["v3", "list-units"]), &with_profile, None).await;
        assert_eq!(open.code, 4, "{}", open.stderr);
        assert!(
            open.stderr.contains("chmod 600") && open.stderr.contains("profiles"),
            "{}",
            open.stderr
        );
        assert!(!open.stderr.contains("demo-secret"), "{}", open.stderr);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&profile, std::fs::Permissions::from_mode(0o600)).unwrap();
        let owner_only = tool::run(
            &strings(&["v3", "list-units", "--per-page", "1"]),
            &with_profile,
            None,
        )
        .await;
        assert_eq!(
            owner_only.code, 0,
            "a profile only its owner reads is used: {}",
            owner_only.stderr
        );
    }
    std::fs::remove_file(&profile).unwrap();
    std::fs::create_dir(&profile).unwrap(); // a folder where the file should be: unreadable
    let unreadable = tool::run(
        &strings(&["--profile", "default", "v3", "list-units"]),
        &with_profile,
        None,
    )
    .await;
    tool::assert_failed(&unreadable, 4, "cannot read the profile file");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_shows_the_request_without_a_secret_and_sends_nothing() {
    let (sandbox, env) = v3_sandbox("").await;
    let ran = tool::run(
        &strings(&[
            "v3",
            "create-unit",
            "--reference-number",
            "A-9",
            "--year",
            "2021",
            "--dry-run",
        ]),
        &env,
        None,
    )
    .await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let shown: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(shown["method"], "POST");
    assert_eq!(shown["url"], format!("{}/units", sandbox.base_url()));
    assert_eq!(shown["headers"]["api-key-secret"], "<redacted>");
    assert_eq!(shown["headers"]["api-key-id"], "demo-key");
    assert_eq!(
        shown["body"],
        serde_json::json!({"reference_number": "A-9", "year": 2021})
    );
    assert!(!ran.stdout_text().contains("demo-secret"));
    let sent = control(&sandbox, "GET", "/_sandbox/requests").await;
    assert_eq!(sent, Value::Array(vec![]), "a dry run sent a request");

    // The legacy login body's password, and the token, are never shown either.
    let legacy = vec![(
        "INSPECTION_LEGACY_BASE_URL".to_string(),
        sandbox.legacy_base_url(),
    )];
    let login = tool::run(
        &strings(&["legacy", "authenticate", "--body", "-", "--dry-run"]),
        &legacy,
        Some(br#"{"user": {"username": "u@example.com", "password": "hunter22"}}"#),
    )
    .await;
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert!(
        !login.stdout_text().contains("hunter22"),
        "{}",
        login.stdout_text()
    );
    assert!(
        login.stdout_text().contains("<redacted>"),
        "{}",
        login.stdout_text()
    );
}

#[tokio::test]
async fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let ran = tool::run(&strings(&["completions", shell]), &[], None).await;
        assert_eq!(ran.code, 0, "{shell}: {}", ran.stderr);
        let script = ran.stdout_text();
        for word in [
            "list-inspections",
            "upsert-unit-by-reference-number",
            "export",
            "--since",
        ] {
            assert!(script.contains(word), "{shell} completions lack `{word}`");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_print_a_page_or_every_record_a_line_and_auth_check_says_whether_keys_work() {
    let (_sandbox, env) = v3_sandbox("--inspections 30").await;
    let page = tool::run(
        &strings(&["v3", "list-inspections", "--per-page", "5"]),
        &env,
        None,
    )
    .await;
    assert_eq!(page.code, 0, "{}", page.stderr);
    let page: Value = serde_json::from_slice(&page.stdout).unwrap();
    assert_eq!(page["data"].as_array().map(Vec::len), Some(5), "{page}");

    let all = tool::run(
        &strings(&["v3", "list-inspections", "--per-page", "7", "--all"]),
        &env,
        None,
    )
    .await;
    assert_eq!(all.code, 0, "{}", all.stderr);
    let ids: Vec<String> = all
        .stdout_text()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        (ids.len(), distinct.len()),
        (33, 33),
        "every record once, a line each"
    );

    let some = tool::run(
        &strings(&["v3", "list-inspections", "--all", "--max-items", "4"]),
        &env,
        None,
    )
    .await;
    assert_eq!(some.code, 0, "{}", some.stderr);
    assert_eq!(some.stdout_text().lines().count(), 4);

    let check = tool::run(&strings(&["v3", "auth-check"]), &env, None).await;
    assert_eq!(check.code, 0, "{}", check.stderr);
    let said: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(said["credentials"], "accepted");
    let mut wrong = env.clone();
    wrong[2].1 = "not-the-secret".into();
    let refused = tool::run(&strings(&["v3", "auth-check"]), &wrong, None).await;
    assert_eq!(refused.code, 4, "{}", refused.stderr);
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);
    assert!(
        !refused.stderr.contains("not-the-secret"),
        "{}",
        refused.stderr
    );

    // Progress: a JSON line on a standard error that is not a terminal, none with --quiet.
    let dir = scratch("progress");
    let folder = dir.join("export").display().to_string();
    let export = tool::run(&strings(&["export", "v3", &folder]), &env, None).await;
    assert_eq!(export.code, 0, "{}", export.stderr);
    let done: Value = serde_json::from_str(export.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(
        (done["event"].as_str(), done["records"].as_u64()),
        (Some("done"), Some(33))
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_export_goes_on_from_its_watermark_through_the_json_filter() {
    let sandbox = sandbox("--legacy-rate-limit off --legacy-transactions 60").await;
    let env = export_folder::legacy_env(&sandbox);
    let dir = scratch("legacy");
    let folder = dir.join("export").display().to_string();
    let first = tool::run(
        &strings(&["--quiet", "export", "legacy", &folder, "--page-size", "7"]),
        &env,
        None,
    )
    .await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let before = folder_contents(Path::new(&folder)).0;
    assert_eq!(before.len(), 60);

    control(&sandbox, "POST", "/_sandbox/advance?seconds=60").await;
    let created = tool::run(
        &strings(&["legacy", "create-transaction", "--body", "-"]),
        &env,
        Some(br#"{"transaction": {"asset_id": "44"}}"#),
    )
    .await;
    assert_eq!(created.code, 0, "{}", created.stderr);
    let created: Value = serde_json::from_slice(&created.stdout).unwrap();
    let new_id = created["transaction"]["id"].clone();

    let next = tool::run(
        &strings(&["--quiet", "export", "legacy", &folder, "--since", "last"]),
        &env,
        None,
    )
    .await;
    assert_eq!(next.code, 0, "{}", next.stderr);
    let after = folder_contents(Path::new(&folder)).0;
    let added: Vec<Value> = after
        .iter()
        .filter(|line| !before.contains(line))
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["id"].clone())
        .collect();
    assert_eq!(
        added,
        vec![new_id],
        "exactly the transaction made after the first export"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every document in an export folder is whole, none left under a whole one's name half
/// written, and the records file holds whole lines only, as many bytes as its checkpoint
/// covers.
fn nothing_torn(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir.join("documents")) {
        for entry in entries.map(Result::unwrap) {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.ends_with(".pdf") {
                let pdf = std::fs::read(entry.path()).unwrap();
                assert!(whole_pdf(&pdf), "{name} is not whole");
            }
        }
    }
    let records = std::fs::read(dir.join("records.jsonl")).unwrap_or_default();
    assert!(
        records.is_empty() || records.ends_with(b"\n"),
        "a torn record"
    );
    let text = std::fs::read(dir.join("checkpoint.json")).unwrap();
    let covered = serde_json::from_slice::<Value>(&text).unwrap()["records_bytes"].as_u64();
    assert_eq!(
        Some(records.len() as u64),
        covered,
        "records past the checkpoint"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_on_a_disk_that_fills_up_stops_whole_and_resumes_once_space_is_freed() {
    let (_sandbox, env) = v3_sandbox("--inspections 150").await;
    let dir = scratch("full-disk");
    // A roomy disk first: what an uninterrupted export holds and how much room it takes.
    let Some(roomy) = SmallDisk::mount(&dir.join("roomy"), 8 << 20) else {
        return;
    };
    for pdf in [true, false] {
        let args = |folder: &Path| {
            let mut args = strings(&["--quiet", "export", "v3", &folder.display().to_string()]);
            if pdf {
                args.push("--pdf".into());
            }
            args
        };
        let whole = roomy.path.join(format!("whole-{pdf}"));
        assert_eq!(tool::run(&args(&whole), &env, None).await.code, 0);
        let needed = roomy.used();
        let expected = folder_contents(&whole);
        std::fs::remove_dir_all(&whole).unwrap();

        // Full part-way: through the documents with --pdf, through the records without.
        let small = SmallDisk::mount(&dir.join(format!("small-{pdf}")), needed * 3 / 5).unwrap();
        let folder = small.path.join("export");
        let ran = tool::run(&args(&folder), &env, None).await;
        assert_eq!(ran.code, 1, "{}", ran.stderr);
        assert!(
            ran.stderr.contains("No space left on device")
                && ran.stderr.contains(&folder.display().to_string()),
            "the path and the cause are named: {}",
            ran.stderr
        );
        nothing_torn(&folder);
        let held = folder_contents(&folder);
        assert!(
            held.0.len() < 153 || held.1.len() < 153,
            "the disk did fill up"
        );

        small.grow(8 << 20);
        let ran = tool::run(&args(&folder), &env, None).await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(
            folder_contents(&folder) == expected,
            "the resumed export differs from an uninterrupted one (pdf: {pdf})"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_whose_folder_turns_read_only_stops_whole_and_resumes_once_writable() {
    let (_sandbox, env) = v3_sandbox("--inspections 150 --rate-limit off").await;
    let dir = scratch("read-only");
    // Documents through the API at 50 a second: slow enough to be caught part-way.
    let args = |folder: &Path| {
        strings(&[
            "--quiet",
            "--rate-limit",
            "50/1",
            "export",
            "v3",
            &folder.display().to_string(),
            "--pdf",
            "--documents-from",
            "api",
        ])
    };
    let whole = dir.join("whole");
    assert_eq!(tool::run(&args(&whole), &env, None).await.code, 0);
    let expected = folder_contents(&whole);

    // A filesystem of its own, where a folder can be made read-only under the export.
    let Some(disk) = SmallDisk::mount(&dir.join("disk"), 8 << 20) else {
        return;
    };
    let folder = disk.path.join("export");
    let documents = folder.join("documents");
    let saved = || std::fs::read_dir(&documents).map_or(0, |d| d.count());
    let mut read_only = None;
    let (ran, acted) = tool::run_acting(
        &args(&folder),
        &env,
        || saved() >= 20,
        || read_only = Some(disk.read_only(&folder)),
    )
    .await;
    assert!(acted, "the export ended before 20 documents were seen");
    let mut read_only = read_only.unwrap();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Read-only file system")
            && ran.stderr.contains(&folder.display().to_string()),
        "the path and the cause are named: {}",
        ran.stderr
    );
    nothing_torn(&folder);
    let covered = checkpoint_records(&folder).unwrap_or(0);
    assert!(
        covered < 153,
        "the export was stopped part-way, not at {covered}"
    );

    read_only.undo();
    let ran = tool::run(&args(&folder), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        folder_contents(&folder) == expected,
        "the resumed export differs from an uninterrupted one"
    );
}

/// A copy of an export folder's files (its documents folder included).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// How a damaged export folder must be met: mended by the documented rule (the records
/// file cut back to what the checkpoint covers), or refused naming these words and the
/// way out, `--restart`.
enum Met {
    Mended,
    Refused(&'static [&'static str]),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_checkpoint_or_records_file_is_mended_or_refused_and_never_trusted() {
    let (_sandbox, env) = v3_sandbox("--inspections 150 --rate-limit off").await;
    let dir = scratch("damaged");
    // Paced to 4 requests a second (20 records a page), to be caught part-way.
    let args = |folder: &Path, rate: &str, extra: &[&str]| {
        let mut args = strings(&["--quiet", "--rate-limit", rate, "export", "v3"]);
        args.push(folder.display().to_string());
        args.extend(strings(&["--page-size", "20"]));
        args.extend(strings(extra));
        args
    };
    let whole = dir.join("whole");
    let ran = tool::run(&args(&whole, "off", &[]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = folder_contents(&whole);

    // An export stopped part-way (SIGKILL once its checkpoint covers 40 to 100 records).
    let partial = dir.join("partial");
    let mut child = tool::spawn(&args(&partial, "4/1", &[]), &env);
    while !checkpoint_records(&partial).is_some_and(|n| (40..=100).contains(&n)) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the export ended first"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let covered = checkpoint_records(&partial).unwrap();
    let records = std::fs::read(partial.join("records.jsonl")).unwrap();
    let line = &expected.0[0];

    type Damage = Box<dyn Fn(&Path)>;
    let write = |name: &'static str, f: Box<dyn Fn(Vec<u8>) -> Vec<u8>>| -> Damage {
        Box::new(move |folder: &Path| {
            let path = folder.join(name);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, f(bytes)).unwrap();
        })
    };
    let checkpoint_field = |field: &'static str, value: Value| {
        write(
            "checkpoint.json",
            Box::new(move |bytes| {
                let mut c: Value = serde_json::from_slice(&bytes).unwrap();
                c[field] = value.clone();
                serde_json::to_vec(&c).unwrap()
            }),
        )
    };
    let line = line.clone();
    let cases: Vec<(&str, Damage, Met)> = vec![
        (
            "checkpoint cut short",
            write("checkpoint.json", Box::new(|b| b[..b.len() / 2].to_vec())),
            Met::Refused(&["checkpoint.json", "damaged"]),
        ),
        (
            "checkpoint not JSON",
            write("checkpoint.json", Box::new(|_| b"\x00\x13garbage".to_vec())),
            Met::Refused(&["checkpoint.json", "damaged"]),
        ),
        (
            "checkpoint of a newer format",
            checkpoint_field("format", Value::from(99)),
            Met::Refused(&["checkpoint.json", "format 99, newer"]),
        ),
        (
            "checkpoint of another interface",
            checkpoint_field("interface", Value::from("legacy")),
            Met::Refused(&["`legacy list_inspections`"]),
        ),
        (
            "checkpoint of another list",
            checkpoint_field("list", Value::from("list_units")),
            Met::Refused(&["`v3 list_units`"]),
        ),
        (
            "records longer than the checkpoint covers",
            write(
                "records.jsonl",
                Box::new(move |mut b| {
                    b.extend_from_slice(format!("{line}\n{line}\n").as_bytes());
                    b
                }),
            ),
            Met::Mended,
        ),
        (
            "records with a torn last line",
            write(
                "records.jsonl",
                Box::new(|mut b| {
                    b.extend_from_slice(b"{\"id\": \"ins_0");
                    b
                }),
            ),
            Met::Mended,
        ),
        (
            "records shorter than the checkpoint covers",
            write("records.jsonl", Box::new(|b| b[..b.len() / 2].to_vec())),
            Met::Refused(&["records.jsonl", "shorter"]),
        ),
    ];
    assert!(records.len() > 1 && covered > 0);
    for (n, (case, damage, met)) in cases.iter().enumerate() {
        let folder = dir.join(format!("case-{n}"));
        copy_folder(&partial, &folder);
        damage(&folder);
        let damaged = std::fs::read(folder.join("records.jsonl")).unwrap();
        let ran = tool::run(&args(&folder, "4/1", &[]), &env, None).await;
        if let Met::Refused(names) = met {
            assert!(ran.code == 1 || ran.code == 2, "{case}: {}", ran.stderr);
            for name in names.iter().chain(&["--restart"]) {
                assert!(
                    ran.stderr.contains(name),
                    "{case}: no `{name}` in {}",
                    ran.stderr
                );
            }
            let kept = std::fs::read(folder.join("records.jsonl")).unwrap();
            assert!(kept == damaged, "{case}: a refused folder was changed");
            let ran = tool::run(&args(&folder, "4/1", &["--restart"]), &env, None).await;
            assert_eq!(ran.code, 0, "{case}: {}", ran.stderr);
            let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
            let aside = summary["set_aside"].as_array().map_or(0, Vec::len);
            assert!(aside >= 1, "{case}: nothing set aside: {summary}");
        } else {
            assert_eq!(ran.code, 0, "{case}: {}", ran.stderr);
        }
        assert!(
            folder_contents(&folder) == expected,
            "{case}: the folder differs from an uninterrupted export's"
        );
    }
}
