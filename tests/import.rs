//! `inspection import` end to end against the sandbox: a file with bad rows names every
//! one and sends nothing (the sandbox counts no request); files of units and tasks killed
//! with SIGKILL at five seeded moments under 10 % faults (timeouts among them) and resumed
//! leave each row applied exactly once (no task twice, counted in the sandbox) and a
//! results file naming every row; an ERP file goes through a mapping file; bad input is
//! named with its exit code and nothing is sent.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/small_disk.rs"]
mod small_disk;
#[path = "support/cli_process.rs"]
mod tool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use export_folder::{Moments, control, listed, sandbox, scratch, strings, v3_env};
use small_disk::SmallDisk;

/// The sandbox's count of API requests.
async fn requests(sandbox: &sandbox::Sandbox) -> u64 {
    control(sandbox, "GET", "/_sandbox/stats").await["requests"]
        .as_u64()
        .unwrap()
}

/// `import v3 TARGET FILE` with `extra` flags: exit code, summary, stderr.
async fn import(
    sandbox: &sandbox::Sandbox,
    target: &str,
    file: &Path,
    extra: &[&str],
) -> (i32, Value, String) {
    let mut args = strings(&[
        "--quiet",
        "import",
        "v3",
        target,
        &file.display().to_string(),
    ]);
    args.extend(strings(extra));
    let ran = tool::run(&args, &v3_env(sandbox), None).await;
    let summary = serde_json::from_slice(&ran.stdout).unwrap_or(Value::Null);
    (ran.code, summary, ran.stderr)
}

/// The results file's lines, by input line.
fn results(path: &Path) -> BTreeMap<u64, Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["line"].as_u64().unwrap(), v))
        .collect()
}

/// A valid VIN made from `n` (17 characters, no I, O or Q).
fn vin(n: usize) -> String {
    format!("1M8GDM9AXKP{n:06}")
}

fn units_csv(rows: usize) -> String {
    let mut text = String::from("reference_number,make,model,year,vin,hours,extended_data.fleet\n");
    for n in 0..rows {
        text.push_str(&format!(
            "IMP-{n:04},Volvo,FH{},{},{},{},yard-{}\n",
            n % 7,
            1990 + n % 30,
            vin(n),
            n * 3,
            n % 4
        ));
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_with_bad_rows_names_every_one_and_sends_nothing() {
    let sandbox = sandbox("").await;
    let dir = scratch("import-bad");
    let mut lines: Vec<String> = units_csv(1000).lines().map(String::from).collect();
    // (row to break, what it becomes, the column and rule the tool must name)
    let bad: Vec<(usize, String, &str, &str)> = (0..30)
        .map(|k| {
            let n = 10 + k * 33;
            let r = format!("IMP-{n:04}");
            let (row, column, rule) = match k % 10 {
                0 => (
                    format!("{r},Volvo,FH,2020,SHORTVIN,1,a"),
                    "vin",
                    "must be exactly 17 characters, got 8",
                ),
                1 => (
                    format!("{r},Volvo,FH,2020,1M8GDM9AXKP04278O,1,a"),
                    "vin",
                    "never I, O, Q",
                ),
                2 => (
                    format!("{r},Volvo,FH,1799,{},1,a", vin(n)),
                    "year",
                    "must be at least 1800, got 1799",
                ),
                3 => (
                    format!("{r},Volvo,FH,10000,{},1,a", vin(n)),
                    "year",
                    "must be at most 9999, got 10000",
                ),
                4 => (
                    format!("{r},Volvo,FH,2020,{},-5,a", vin(n)),
                    "hours",
                    "must be at least 0, got -5",
                ),
                5 => (
                    format!("{r},Volvo,FH,twenty,{},1,a", vin(n)),
                    "year",
                    "must be a whole number, got `twenty`",
                ),
                6 => (
                    format!("{r},{},FH,2020,{},1,a", "M".repeat(256), vin(n)),
                    "make",
                    "at most 255 characters",
                ),
                7 => (
                    format!(",Volvo,FH,2020,{},1,a", vin(n)),
                    "reference_number",
                    "required",
                ),
                8 => (
                    "IMP-0000,Volvo,FH,2020,1M8GDM9AXKP000000,0,yard-0".to_string(),
                    "reference_number",
                    "the key `IMP-0000` is already on line 2",
                ),
                _ => (
                    format!("{r},Volvo,FH,2020,{},1,a,extra", vin(n)),
                    "",
                    "8 cells where the header has 7",
                ),
            };
            (n, row, column, rule)
        })
        .collect();
    for (n, row, _, _) in &bad {
        lines[n + 1] = row.clone();
    }
    let file = dir.join("units.csv");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let before = requests(&sandbox).await;
    let (code, _, stderr) = import(&sandbox, "units", &file, &[]).await;
    assert_eq!(code, 3, "{stderr}");
    for (n, _, column, rule) in &bad {
        let line = n + 2;
        let named = stderr.lines().any(|l| {
            let at = format!("line {}", fmt_line(line));
            l.contains(&format!("{at}, column {column}:")) && l.contains(rule)
                || column.is_empty() && l.contains(&format!("{at}: ")) && l.contains(rule)
        });
        assert!(
            named,
            "line {line} ({column}: {rule}) is not named:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("30 of its 1,000 rows are invalid; nothing was sent"),
        "{stderr}"
    );
    assert_eq!(requests(&sandbox).await, before, "nothing is sent");
    assert!(!dir.join("units.results.jsonl").exists());

    // A JSON Lines file with a key the target does not take: named, nothing sent.
    let jsonl = dir.join("units.jsonl");
    std::fs::write(&jsonl, "{\"reference_number\": \"J-1\", \"year\": 2001}\n{\"reference_number\": \"J-2\", \"colour\": \"red\"}\n").unwrap();
    let (code, _, stderr) = import(&sandbox, "units", &jsonl, &[]).await;
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("line 2, column colour: not a column of units"),
        "{stderr}"
    );
    assert_eq!(requests(&sandbox).await, before, "nothing is sent");
}

fn fmt_line(n: usize) -> String {
    let s = n.to_string();
    if s.len() > 3 {
        format!("{},{}", &s[..s.len() - 3], &s[s.len() - 3..])
    } else {
        s
    }
}

/// Runs `import` killed at five seeded moments, then to its end (runs failing under
/// faults run again, the last with `extra_last`).
async fn killed_five_times(
    sandbox: &sandbox::Sandbox,
    target: &str,
    file: &Path,
    seed: u64,
    last: &[&str],
) {
    let mut args = strings(&["--quiet", "--rate-limit", "150/1", "import", "v3", target]);
    args.extend(strings(&[&file.display().to_string(), "--timeout", "0.25"]));
    let env = v3_env(sandbox);
    let mut moments = Moments(seed);
    let killed = tool::kill_runs(&args, &env, 5, || moments.next_ms(150, 900), |_| {}).await;
    assert!(
        killed >= 3,
        "the runs were killed while they ran ({killed} of 5)"
    );
    for run in 1..=10 {
        let mut args = args.clone();
        args.extend(strings(last));
        let ran = tool::run(&args, &env, None).await;
        if ran.code == 0 {
            eprintln!("ended in {run} more run(s)");
            return;
        }
        assert!(
            [1, 6, 7, 8].contains(&ran.code),
            "{}: {}",
            ran.code,
            ran.stderr
        );
    }
    panic!("the import did not end in 10 runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn units_killed_five_times_under_faults_are_each_applied_once() {
    let sandbox = sandbox("--faults 0.1 --fault-seed 11 --slow-ms 400").await;
    let dir = scratch("import-units-kill");
    let file = dir.join("units.csv");
    std::fs::write(&file, units_csv(300)).unwrap();
    killed_five_times(&sandbox, "units", &file, 0x1111_2026, &[]).await;
    let units: BTreeMap<String, Value> = listed(&sandbox, "/units")
        .await
        .into_iter()
        .filter_map(|u| Some((u["reference_number"].as_str()?.to_string(), u)))
        .filter(|(r, _)| r.starts_with("IMP-"))
        .collect();
    assert_eq!(units.len(), 300, "every row is a unit, none twice");
    for n in [0usize, 177, 299] {
        let u = &units[&format!("IMP-{n:04}")];
        assert_eq!(u["vin"], Value::from(vin(n)));
        assert_eq!(u["hours"], Value::from(n * 3));
        assert_eq!(
            u["extended_data"]["fleet"],
            Value::from(format!("yard-{}", n % 4))
        );
    }
    let results = results(&dir.join("units.results.jsonl"));
    assert_eq!(
        results.keys().copied().collect::<Vec<_>>(),
        (2..=301).collect::<Vec<u64>>()
    );
    for r in results.values() {
        let outcome = r["outcome"].as_str().unwrap();
        assert!(
            ["created", "updated", "unchanged"].contains(&outcome),
            "{r}"
        );
        assert!(
            r["id"].as_str().is_some_and(|id| id.starts_with("unt_")),
            "{r}"
        );
    }
    // Run again: every row is unchanged and nothing is sent.
    let before = requests(&sandbox).await;
    let (code, summary, stderr) = import(&sandbox, "units", &file, &[]).await;
    assert_eq!(
        (code, summary["unchanged"].as_u64()),
        (0, Some(300)),
        "{stderr}"
    );
    assert_eq!(requests(&sandbox).await, before);
}

fn tasks_csv(rows: usize) -> String {
    let users = [
        "dana.ortiz@example.com",
        "sam.lee@example.com",
        "shop-tech-3",
    ];
    let mut text = String::from("name,reference_number,due_by,assignee_username,description\n");
    for n in 0..rows {
        text.push_str(&format!(
            "Import task {n},EX-0117,2026-12-{:02},{},\"Check brakes, lights\"\n",
            1 + n % 28,
            users[n % 3]
        ));
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_killed_five_times_under_faults_are_each_created_once() {
    let sandbox = sandbox("--faults 0.1 --fault-seed 5 --slow-ms 400").await;
    let dir = scratch("import-tasks-kill");
    let file = dir.join("tasks.csv");
    std::fs::write(&file, tasks_csv(200)).unwrap();
    // The last runs send again what no find shows (never what it shows).
    killed_five_times(&sandbox, "tasks", &file, 0x7a5c_2026, &["--resend-unknown"]).await;
    let mut made: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for task in listed(&sandbox, "/tasks").await {
        let name = task["name"].as_str().unwrap_or_default().to_string();
        if name.starts_with("Import task ") {
            made.entry(name).or_default().push(task);
        }
    }
    let twice: Vec<&String> = made
        .iter()
        .filter(|(_, t)| t.len() > 1)
        .map(|(n, _)| n)
        .collect();
    assert!(twice.is_empty(), "tasks created twice: {twice:?}");
    assert_eq!(made.len(), 200, "every row is a task");
    let results = results(&dir.join("tasks.results.jsonl"));
    assert_eq!(results.len(), 200, "a results line per row");
    for (line, r) in &results {
        let name = format!("Import task {}", line - 2);
        // Created by this run, or by an earlier one that ended with rows to try again.
        assert!(
            ["created", "unchanged"].contains(&r["outcome"].as_str().unwrap()),
            "{r}"
        );
        assert_eq!(r["id"], made[&name][0]["id"], "{r}");
        assert_eq!(
            made[&name][0]["due_by"].as_str().unwrap()[..10],
            format!("2026-12-{:02}", 1 + (line - 2) % 28)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erp_file_goes_through_a_mapping_file_and_is_reported_line_by_line() {
    let sandbox = sandbox("").await;
    let dir = scratch("import-erp");
    let file = dir.join("erp.csv");
    std::fs::write(
        &file,
        "Asset No;VIN;Make;Fleet;Notes\nERP-1;1M8GDM9AXKP100001;Volvo;north;keep\nERP-2;1M8GDM9AXKP100002;MAN;south;\n".replace(';', ","),
    )
    .unwrap();
    let map = dir.join("erp.map");
    std::fs::write(&map, "# ERP export\nAsset No = reference_number\nVIN = vin\nMake = make\nFleet = extended_data.fleet\nNotes = -\n").unwrap();
    let map_arg = map.display().to_string();
    let (code, summary, stderr) = import(
        &sandbox,
        "units",
        &file,
        &["--map", &map_arg, "--results-format", "csv"],
    )
    .await;
    assert_eq!(
        (code, summary["created"].as_u64()),
        (0, Some(2)),
        "{stderr}"
    );
    let units = listed(&sandbox, "/units").await;
    let erp1 = units
        .iter()
        .find(|u| u["reference_number"] == "ERP-1")
        .unwrap();
    assert_eq!(
        (&erp1["vin"], &erp1["make"], &erp1["extended_data"]["fleet"]),
        (
            &Value::from("1M8GDM9AXKP100001"),
            &Value::from("Volvo"),
            &Value::from("north")
        )
    );
    let text = std::fs::read_to_string(dir.join("erp.results.csv")).unwrap();
    assert!(
        text.starts_with("line,key,outcome,id,status,error\n2,ERP-1,created,unt_"),
        "{text}"
    );

    // The same units changed: one updated, one unchanged; a row the service refuses is
    // rejected in the file's own format, its columns as they were, to fix and send again.
    std::fs::write(
        &file,
        "Asset No,VIN,Make,Fleet,Notes\nERP-1,1M8GDM9AXKP100001,Volvo,east,x\nERP-2,1M8GDM9AXKP100002,MAN,south,\n",
    )
    .unwrap();
    let (code, summary, stderr) = import(&sandbox, "units", &file, &["--map", &map_arg]).await;
    assert_eq!(
        (code, &summary["updated"], &summary["unchanged"]),
        (0, &Value::from(1), &Value::from(1)),
        "{stderr}"
    );
    let results = results(&dir.join("erp.results.jsonl"));
    assert_eq!(
        (
            results[&2]["outcome"].as_str(),
            results[&3]["outcome"].as_str()
        ),
        (Some("updated"), Some("unchanged"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_named_with_its_exit_code_and_nothing_is_sent() {
    let sandbox = sandbox("").await;
    let dir = scratch("import-input");
    let ok = dir.join("ok.csv");
    std::fs::write(&ok, "reference_number,make\nA-1,Volvo\n").unwrap();
    let not_csv = dir.join("photo.csv");
    std::fs::write(&not_csv, b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary").unwrap();
    let no_key = dir.join("nokey.csv");
    std::fs::write(&no_key, "make,model\nVolvo,FH\n").unwrap();
    let map = dir.join("bad.map");
    std::fs::write(&map, "Asset No = reference_number\n").unwrap();
    let missing = dir.join("missing.csv");
    let journal_dir = dir.join("journal");
    std::fs::create_dir_all(&journal_dir).unwrap();
    std::fs::write(journal_dir.join("journal.jsonl"), "not a journal\n").unwrap();
    let path = |p: &PathBuf| p.display().to_string();
    let cases: Vec<(&str, Vec<String>, i32, String)> = vec![
        (
            "not CSV",
            vec![path(&not_csv)],
            2,
            format!("{}: no CSV header row", path(&not_csv)),
        ),
        (
            "no key column",
            vec![path(&no_key)],
            3,
            "line 1, column reference_number: the file has no such column".into(),
        ),
        (
            "unreadable",
            vec![path(&missing)],
            2,
            format!("cannot read {}", path(&missing)),
        ),
        (
            "a mapping naming a column the file lacks",
            vec![path(&ok), "--map".into(), path(&map)],
            2,
            format!("{}:1: the file has no column `Asset No`", path(&map)),
        ),
        (
            "no format",
            vec![path(&dir.join("rows.txt"))],
            2,
            "say its format with --format".into(),
        ),
        (
            "a damaged journal",
            vec![path(&ok), "--journal".into(), path(&journal_dir)],
            1,
            "line 1 is not a journal line this tool wrote".into(),
        ),
    ];
    let before = requests(&sandbox).await;
    for (what, args, code, message) in cases {
        let mut full = strings(&["--quiet", "import", "v3", "units"]);
        full.extend(args);
        let ran = tool::run(&full, &v3_env(&sandbox), None).await;
        assert_eq!(ran.code, code, "{what}: {}", ran.stderr);
        assert!(ran.stderr.contains(&message), "{what}: {}", ran.stderr);
    }
    assert_eq!(requests(&sandbox).await, before, "nothing is sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_legacy_assets_a_dry_run_and_a_check_each_do_what_they_say() {
    let sandbox = sandbox("").await;
    let dir = scratch("import-kinds");
    // `--check` and `--dry-run` send nothing; the dry run shows each row's request.
    let file = dir.join("updates.jsonl");
    std::fs::write(
        &file,
        "{\"reference_number\": \"EX-0117\", \"hours\": 4321}\n\n{\"reference_number\": \"FL-0042\", \"extended_data\": {\"depot\": \"north\"}}\n",
    )
    .unwrap();
    let before = requests(&sandbox).await;
    let (code, summary, stderr) = import(&sandbox, "unit_updates", &file, &["--check"]).await;
    assert_eq!(
        (code, &summary["rows"], &summary["invalid"]),
        (0, &Value::from(2), &Value::from(0)),
        "{stderr}"
    );
    let args = strings(&[
        "--quiet",
        "import",
        "v3",
        "unit_updates",
        &file.display().to_string(),
        "--dry-run",
    ]);
    let ran = tool::run(&args, &v3_env(&sandbox), None).await;
    let shown: Vec<Value> = ran
        .stdout_text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(shown.len(), 2, "{}", ran.stderr);
    assert_eq!(
        (&shown[1]["line"], &shown[1]["request"]["method"]),
        (&Value::from(3), &Value::from("PATCH"))
    );
    assert!(
        shown[0]["request"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/units/by_reference_number/EX-0117")
    );
    assert_eq!(
        shown[0]["request"]["body"],
        serde_json::json!({"hours": 4321})
    );
    assert_eq!(
        shown[0]["request"]["headers"]["api-key-secret"],
        "<redacted>"
    );
    assert_eq!(
        requests(&sandbox).await,
        before,
        "a check and a dry run send nothing"
    );

    // Sent: only the fields a row fills change.
    let (code, summary, stderr) = import(&sandbox, "unit_updates", &file, &[]).await;
    assert_eq!(
        (code, &summary["updated"]),
        (0, &Value::from(2)),
        "{stderr}"
    );
    let units = listed(&sandbox, "/units").await;
    let ex = units
        .iter()
        .find(|u| u["reference_number"] == "EX-0117")
        .unwrap();
    assert_eq!(
        (&ex["hours"], &ex["make"]),
        (&Value::from(4321), &Value::from("Caterpillar"))
    );

    // The legacy interface: assets found or created by their external id, each once.
    let assets = dir.join("assets.csv");
    std::fs::write(
        &assets,
        "external_id,extended\nLEG-1,\"{\"\"fleet_id\"\": 4279}\"\nLEG-2,\n",
    )
    .unwrap();
    let mut args = strings(&[
        "--quiet",
        "import",
        "legacy",
        "assets",
        &assets.display().to_string(),
    ]);
    let ran = tool::run(&args, &export_folder::legacy_env(&sandbox), None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let first = results(&dir.join("assets.results.jsonl"));
    assert_eq!(first.len(), 2);
    assert!(
        first
            .values()
            .all(|r| r["outcome"] == "created" && r["id"].is_string()),
        "{first:?}"
    );
    args.push("--force".into());
    let again = tool::run(&args, &export_folder::legacy_env(&sandbox), None).await;
    assert_eq!(again.code, 0, "{}", again.stderr);
    let found = results(&dir.join("assets.results.jsonl"));
    assert_eq!(
        found[&2]["id"], first[&2]["id"],
        "a row sent again finds the asset the first made"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_the_service_refuses_is_rejected_in_the_files_own_format() {
    let sandbox = sandbox("").await;
    let dir = scratch("import-rejects");
    let file = dir.join("orders.csv");
    std::fs::write(
        &file,
        "name,reference_number,due_by,assignee_username,ERP note\nOil change,EX-0117,2026-12-03,sam.lee@example.com,a\nTyres,NO-SUCH-UNIT,2026-12-04,sam.lee@example.com,\"b, c\"\n",
    )
    .unwrap();
    let map = dir.join("orders.map");
    std::fs::write(&map, "ERP note = -\n").unwrap();
    let map_arg = map.display().to_string();
    let (code, summary, stderr) = import(&sandbox, "tasks", &file, &["--map", &map_arg]).await;
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(
        (&summary["created"], &summary["failed"]),
        (&Value::from(1), &Value::from(1))
    );
    assert!(stderr.contains("1 of 2 rows failed"), "{stderr}");
    let results = results(&dir.join("orders.results.jsonl"));
    assert_eq!(
        (&results[&3]["outcome"], &results[&3]["status"]),
        (&Value::from("failed"), &Value::from(422))
    );
    assert!(
        results[&3]["error"]
            .as_str()
            .unwrap()
            .contains("NO-SUCH-UNIT"),
        "{:?}",
        results[&3]
    );
    let rejects = std::fs::read_to_string(dir.join("orders.rejects.csv")).unwrap();
    let mut lines = rejects.lines();
    assert_eq!(
        lines.next(),
        Some("name,reference_number,due_by,assignee_username,ERP note,import_error")
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("Tyres,NO-SUCH-UNIT,2026-12-04,sam.lee@example.com,\"b, c\","),
        "{rejects}"
    );
    assert_eq!(lines.next(), None, "only the failed row");

    // The fixed row imported from the rejects file (its error column left out by the map).
    std::fs::write(
        dir.join("orders.rejects.csv"),
        rejects.replace("NO-SUCH-UNIT", "FL-0042"),
    )
    .unwrap();
    std::fs::write(&map, "ERP note = -\nimport_error = -\n").unwrap();
    let (code, summary, stderr) = import(
        &sandbox,
        "tasks",
        &dir.join("orders.rejects.csv"),
        &["--map", &map_arg],
    )
    .await;
    assert_eq!(
        (code, &summary["created"]),
        (0, &Value::from(1)),
        "{stderr}"
    );
    assert!(!dir.join("orders.rejects.rejects.csv").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_on_a_disk_that_fills_up_stops_the_import_and_no_task_is_made_twice() {
    let sandbox = sandbox("--rate-limit off").await;
    let dir = scratch("import-full-disk");
    let file = dir.join("tasks.csv");
    std::fs::write(&file, tasks_csv(200)).unwrap();
    // About 60 rows' lines fit.
    let Some(disk) = SmallDisk::mount(&dir.join("disk"), 16 << 10) else {
        return;
    };
    let journal = disk.path.join("journal");
    let flag = journal.display().to_string();
    let (code, _, stderr) = import(&sandbox, "tasks", &file, &["--journal", &flag]).await;
    assert_eq!(code, 1, "{stderr}");
    let path = journal.join("journal.jsonl");
    assert!(
        stderr.contains("No space left on device") && stderr.contains(&path.display().to_string()),
        "the path and the cause are named: {stderr}"
    );
    let text = std::fs::read(&path).unwrap();
    assert!(text.ends_with(b"\n"), "a torn journal line is left");
    let imported = |tasks: Vec<Value>| -> BTreeMap<String, usize> {
        let mut made = BTreeMap::new();
        for task in tasks {
            let name = task["name"].as_str().unwrap_or_default();
            if name.starts_with("Import task ") {
                *made.entry(name.to_string()).or_default() += 1;
            }
        }
        made
    };
    let made_before = imported(listed(&sandbox, "/tasks").await).len();

    disk.grow(1 << 20);
    // A task in flight when the disk filled up is looked for first; one the service does
    // not show is sent again only when asked (docs/cli.md).
    let again = ["--journal", &flag, "--resend-unknown"];
    let (code, _, stderr) = import(&sandbox, "tasks", &file, &again).await;
    assert_eq!(code, 0, "{stderr}");
    let made = imported(listed(&sandbox, "/tasks").await);
    assert_eq!(made.len(), 200, "every row is a task");
    assert!(made.values().all(|&n| n == 1), "a task was made twice");
    assert!(
        (1..200).contains(&made_before),
        "the first run made some tasks, not all, before the disk filled up"
    );
    let results = results(&dir.join("tasks.results.jsonl"));
    assert_eq!(results.len(), 200, "a results line per row");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_folder_turned_read_only_stops_the_import_and_loses_no_row() {
    let sandbox = sandbox("--rate-limit off").await;
    let dir = scratch("import-read-only");
    let file = dir.join("units.csv");
    std::fs::write(&file, units_csv(300)).unwrap();
    let Some(disk) = SmallDisk::mount(&dir.join("disk"), 4 << 20) else {
        return;
    };
    let journal = disk.path.join("journal");
    let flag = journal.display().to_string();
    let mut args = strings(&["--quiet", "--rate-limit", "100/1", "import", "v3", "units"]);
    args.extend(strings(&[&file.display().to_string(), "--journal", &flag]));
    let lines =
        || std::fs::read_to_string(journal.join("journal.jsonl")).map_or(0, |t| t.lines().count());
    let mut read_only = None;
    let (ran, acted) = tool::run_acting(
        &args,
        &v3_env(&sandbox),
        || lines() > 40,
        || read_only = Some(disk.read_only(&journal)),
    )
    .await;
    assert!(acted, "the import ended before its journal had 40 lines");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Read-only file system") && ran.stderr.contains(&flag),
        "the path and the cause are named: {}",
        ran.stderr
    );
    read_only.unwrap().undo();
    let before = requests(&sandbox).await;
    let (code, summary, stderr) = import(&sandbox, "units", &file, &["--journal", &flag]).await;
    assert_eq!(code, 0, "{stderr}");
    let sent = requests(&sandbox).await - before;
    let unchanged = summary["unchanged"].as_u64().unwrap();
    assert_eq!(
        sent + unchanged,
        300,
        "each row sent again only if not applied: {summary}"
    );
    let units = listed(&sandbox, "/units").await;
    let imported = units
        .iter()
        .filter(|u| {
            u["reference_number"]
                .as_str()
                .is_some_and(|r| r.starts_with("IMP-"))
        })
        .count();
    assert_eq!(imported, 300, "every row is a unit, none twice");
}
