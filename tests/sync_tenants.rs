//! `inspection sync --tenants FILE` end to end against a sandbox serving several
//! companies (`--company`, each its own key and data, one rate limit per address) and a
//! real PostgreSQL: three tenants into three schemas of one database, killed with SIGKILL
//! at seeded moments and resumed, each schema equal to that company's own uninterrupted
//! sync; a tenant with a wrong key and one whose schema is read-only fail alone, with
//! their classes, while the third completes, every JSON log line naming its tenant and
//! none holding a secret; and three tenants under one quota draw no 429.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/sync_tables.rs"]
mod sync_tables;
#[path = "support/cli_process.rs"]
mod tool;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use export_folder::{Moments, assert_same_tables, sandbox, scratch, strings};
use postgres::Postgres;
use sync_tables::{dump_schema as dump, rows_in as count};

/// The companies the sandbox serves beside the first: name, key id, secret, inspections.
const COMPANIES: [(&str, &str, &str, usize); 2] = [
    ("acme", "acme-key", "s3cret-acme", 300),
    ("globex", "globex-key", "s3cret-globex", 200),
];

/// The sandbox flags serving the companies, with `extra`.
fn companies(extra: &str) -> String {
    let mut flags = String::from("--inspections 60");
    for (_, id, secret, n) in COMPANIES {
        flags.push_str(&format!(" --company {id}:{secret}:{n}"));
    }
    format!("{flags} {extra}")
}

/// A profiles file in `dir` with a profile per company (`initech` is the first company,
/// the demo key); `wrong` names one whose secret is wrong. Gives the environment that
/// points the tool at it.
fn profiles(dir: &Path, sandbox: &sandbox::Sandbox, wrong: Option<&str>) -> Vec<(String, String)> {
    let mut text = String::new();
    let all = [("initech", "demo-key", "demo-secret")]
        .into_iter()
        .chain(COMPANIES.iter().map(|(n, id, s, _)| (*n, *id, *s)));
    for (name, id, secret) in all {
        let secret = if wrong == Some(name) {
            "not-the-secret"
        } else {
            secret
        };
        text.push_str(&format!(
            "[{name}]\nINSPECTION_V3_BASE_URL = {}\nINSPECTION_V3_API_KEY_ID = {id}\n\
             INSPECTION_V3_API_KEY_SECRET = {secret}\n\n",
            sandbox.base_url()
        ));
    }
    owner_only(&dir.join("profiles"), &text);
    vec![("INSPECTION_CONFIG_DIR".into(), dir.display().to_string())]
}

fn owner_only(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A tenants file of `(name, database URL, schema)` in `dir`, `page_size` records a page.
fn tenants(dir: &Path, tenants: &[(&str, String, &str)], page_size: u32) -> PathBuf {
    let mut text = String::new();
    for (name, url, schema) in tenants {
        text.push_str(&format!(
            "[[tenant]]\nname = \"{name}\"\ninterface = \"v3\"\ndatabase = \"{url}\"\n\
             schema = \"{schema}\"\npage_size = {page_size}\n\n"
        ));
    }
    let path = dir.join("tenants.toml");
    owner_only(&path, &text);
    path
}

fn tenants_args(file: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&["--quiet", "sync", "--tenants"]);
    args.push(file.display().to_string());
    args.extend(strings(extra));
    args
}

const NAMES: [&str; 3] = ["initech", "acme", "globex"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_tenants_killed_and_resumed_each_equal_their_company_s_own_sync() {
    let pg = Postgres::start("sync-tenants");
    pg.create_database("fleet");
    pg.create_database("alone");
    let sandbox = sandbox(&companies("--fault-slow 0.3 --slow-ms 120")).await;
    let dir = scratch("sync-tenants-kill");
    let env = profiles(&dir, &sandbox, None);

    // Each company alone, one after the other: what its schema must hold.
    for name in NAMES {
        let args = strings(&[
            "--quiet",
            "--profile",
            name,
            "sync",
            "v3",
            &pg.url("alone"),
            "--schema",
            name,
        ]);
        tool::run_to_end(&args, &env, name).await;
    }
    let totals = NAMES.map(|n| count(&pg, "alone", n, "inspections"));
    assert_eq!(totals, [63, 303, 203], "each company's own data");

    let file = tenants(&dir, &NAMES.map(|n| (n, pg.url("fleet"), n)), 3);
    let args = tenants_args(&file, &[]);
    let mut moments = Moments(0x7e4a_2026);
    let mut partial = Vec::new();
    tool::kill_runs(
        &args,
        &env,
        4,
        || moments.next_ms(300, 1500),
        |kill| {
            let held = NAMES.map(|n| count(&pg, "fleet", n, "inspections"));
            eprintln!("kill {kill}: inspections {held:?}");
            partial.push(held);
        },
    )
    .await;
    assert!(
        partial
            .iter()
            .any(|held| held.iter().zip(totals).any(|(n, all)| (1..all).contains(n))),
        "no kill fell in the middle of a tenant's inspections: {partial:?}"
    );
    let ran = tool::run(&tenants_args(&file, &["--format", "json"]), &env, None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(
        (summary["succeeded"].as_u64(), summary["failed"].as_u64()),
        (Some(3), Some(0))
    );
    for name in NAMES {
        assert_same_tables(&dump(&pg, "fleet", name), &dump(&pg, "alone", name));
    }
    assert_eq!(sandbox.stats().await.rate_limited, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_with_a_wrong_key_and_one_with_a_read_only_schema_fail_alone() {
    let pg = Postgres::start("sync-tenants-fail");
    pg.create_database("fleet");
    // `clerk` may use the database but not write into `reports`, a schema it does not own.
    pg.psql(
        "fleet",
        "CREATE ROLE clerk LOGIN PASSWORD 'clerk-pass'; CREATE SCHEMA reports; \
         GRANT USAGE ON SCHEMA reports TO clerk",
    );
    let sandbox = sandbox(&companies("")).await;
    let dir = scratch("sync-tenants-fail");
    let env = profiles(&dir, &sandbox, Some("globex"));
    let clerk = pg
        .url("fleet")
        .replace("postgres:", "clerk:")
        .replacen("clerk:", "postgres:", 1);
    let clerk = clerk.replace(&format!(":{}@", postgres::PASSWORD), ":clerk-pass@");
    let file = tenants(
        &dir,
        &[
            ("acme", pg.url("fleet"), "acme"),
            ("globex", pg.url("fleet"), "globex"),
            ("initech", clerk, "reports"),
        ],
        50,
    );
    let args = strings(&[
        "--quiet",
        "--log-format",
        "json",
        "sync",
        "--tenants",
        &file.display().to_string(),
        "--format",
        "json",
    ]);
    let ran = tool::run(&args, &env, None).await;
    assert_eq!(ran.code, 12, "{}", ran.stderr);
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let by_name = |name: &str| {
        summary["tenants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["tenant"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("acme")["outcome"], "synced");
    assert_eq!(count(&pg, "fleet", "acme", "inspections"), 303);
    assert_eq!(
        (
            by_name("globex")["error"]["class"].as_str(),
            by_name("globex")["error"]["exit_code"].as_u64()
        ),
        (Some("credentials"), Some(4))
    );
    assert_eq!(
        by_name("initech")["error"]["exit_code"],
        10,
        "{}",
        by_name("initech")
    );
    assert!(
        by_name("initech")["error"]["message"]
            .as_str()
            .unwrap()
            .contains("reports"),
        "{}",
        by_name("initech")
    );

    // Every JSON log line parses; each but the run's last names its tenant.
    let lines: Vec<Value> = ran
        .stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (last, events) = lines.split_last().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["exit_code"].as_u64()),
        (Some("failed"), Some(12))
    );
    assert!(
        events
            .iter()
            .all(|l| NAMES.contains(&l["tenant"].as_str().unwrap_or(""))),
        "{}",
        ran.stderr
    );
    let failed: Vec<&str> = events
        .iter()
        .filter(|l| l["event"] == "tenant_failed")
        .map(|l| l["tenant"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    for secret in [
        "s3cret-acme",
        "not-the-secret",
        "demo-secret",
        "clerk-pass",
        postgres::PASSWORD,
    ] {
        assert!(
            !ran.stderr.contains(secret) && !ran.stdout_text().contains(secret),
            "{secret} shown"
        );
    }

    // The text summary: a line per tenant, in the file's order, the same outcomes.
    let again = tool::run(&tenants_args(&file, &[]), &env, None).await;
    assert_eq!(again.code, 12, "{}", again.stderr);
    let lines: Vec<String> = again.stdout_text().lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].starts_with("acme: synced into postgres://postgres:***@127.0.0.1:")
            && lines[0].contains(", schema acme (run 2): units 3, inspections "),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("globex: failed (credentials, exit 4): "),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("initech: failed (database, exit 10): "),
        "{}",
        lines[2]
    );
    assert!(
        again
            .stderr
            .contains("error (some tenants failed): 2 of 3 tenants failed: globex, initech"),
        "{}",
        again.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_tenants_under_one_quota_never_draw_a_429() {
    // The tool paces to 11 a second against the sandbox's 12: the margin is for this
    // test's busy machine, where a request can reach the sandbox tens of milliseconds late
    // (the benchmark holds the documented quota itself, on a quiet one).
    let sandbox = sandbox(&companies("--rate-limit 12/1")).await;
    let dir = scratch("sync-tenants-quota");
    let env = profiles(&dir, &sandbox, None);
    let file = tenants(
        &dir,
        &NAMES.map(|n| (n, dir.join(format!("{n}.db")).display().to_string(), "")),
        10,
    );
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("schema = \"\"\n", "");
    owner_only(&file, &text);
    let started = std::time::Instant::now();
    let ran = tool::run(
        &tenants_args(&file, &["--rate-limit", "11/1", "--format", "json"]),
        &env,
        None,
    )
    .await;
    let elapsed = started.elapsed();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let stats = sandbox.stats().await;
    assert_eq!(
        stats.rate_limited, 0,
        "the tenants together went over the quota"
    );
    let summary: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let requests: Vec<u64> = summary["tenants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["summary"]["api_requests"].as_u64().unwrap())
        .collect();
    assert_eq!(requests.iter().sum::<u64>(), stats.requests, "{requests:?}");
    // Paced together: 11 a second in all, not 11 each.
    let windows = stats.requests / 11;
    assert!(
        elapsed >= Duration::from_secs(windows.saturating_sub(1)),
        "{} requests in {elapsed:?}",
        stats.requests
    );
}
