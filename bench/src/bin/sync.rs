//! `inspection sync v3` of N inspections against a sandbox of its own (a child process,
//! so the peak memory measured is the tool's):
//!
//! * `quota`: at the documented quota (100 requests per 10 s), the export of the
//!   inspections and the sync of the same list (`--only inspections`) into SQLite, each
//!   against a fresh sandbox: records a second, and the sync's share of the export's rate.
//! * `sqlite`, `postgres`: with the sandbox's rate limit off (and the client unpaced),
//!   the whole sync (every list, every child row) into SQLite, or into a PostgreSQL
//!   server this program starts (Debian's binaries, as the tests do): inspections a
//!   second, and the tool's peak memory.
//!
//! `cargo run --release -p bench --bin sync -- N quota|sqlite|postgres` prints one JSON
//! line.

#[path = "../../../tests/support/postgres.rs"]
mod postgres;

use std::process::Command;

use bench::child::{built_tool, measure, number, sandbox_child, scratch, stop};
use sandbox::{DEMO_KEY, Options, Sandbox};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sync N quota|sqlite|postgres | sync serve N quota|off";
    let number = |at| number(&args, at, usage).map(|n| n as usize);
    let rt = bench::runtime()?;
    match args.first().map(String::as_str) {
        Some("serve") => {
            let limited = args.get(2).map(String::as_str) == Some("quota");
            rt.block_on(serve(number(1)?, limited))
        }
        _ => {
            let what = args.get(1).ok_or(usage)?.clone();
            rt.block_on(run(number(0)?, &what))
        }
    }
}

/// The child: a sandbox with `records` inspections, at the documented quota or unlimited,
/// until stdin closes.
async fn serve(records: usize, limited: bool) -> Result<(), Box<dyn std::error::Error>> {
    let mut options = Options {
        demo: false,
        extra_inspections: records,
        ..Options::default()
    };
    if !limited {
        options.rate_limit = None;
    }
    let sandbox = Sandbox::start(options).await?;
    println!("{}", sandbox.base_url());
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

async fn run(records: usize, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    let tool = built_tool()?;
    let n = records.to_string();
    let scratch = scratch("sync")?;
    let db = scratch.join("fleet.db").display().to_string();
    let result = match what {
        "quota" => {
            let export_dir = scratch.join("export").display().to_string();
            let export =
                measured(&tool, &n, "quota", &["export", "v3", &export_dir], records).await?;
            let sync = measured(
                &tool,
                &n,
                "quota",
                &["sync", "v3", &db, "--only", "inspections"],
                records,
            )
            .await?;
            let share = sync["records_per_s"].as_f64().unwrap_or(0.0)
                / export["records_per_s"].as_f64().unwrap_or(f64::INFINITY);
            json!({
                "records": records,
                "quota": "100 per 10000 ms",
                "export": export,
                "sync": sync,
                "share_of_export_rate": (share * 1000.0).round() / 1000.0,
            })
        }
        "sqlite" => {
            let sync = measured(
                &tool,
                &n,
                "off",
                &["--rate-limit", "off", "sync", "v3", &db],
                records,
            )
            .await?;
            json!({ "records": records, "database": "sqlite", "sync": sync })
        }
        "postgres" => {
            let pg = postgres::Postgres::start("bench-sync");
            pg.create_database("fleet");
            let url = pg.url("fleet");
            let sync = measured(
                &tool,
                &n,
                "off",
                &["--rate-limit", "off", "sync", "v3", &url],
                records,
            )
            .await?;
            let rows = pg.psql("fleet", "SELECT count(*) FROM inspections_results_data");
            json!({ "records": records, "database": "postgres", "sync": sync, "result_fields": rows.trim() })
        }
        other => return Err(format!("`{other}`: quota, sqlite or postgres").into()),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    println!("{result}");
    Ok(())
}

/// The tool run with `args` against a fresh sandbox of `n` inspections (`quota` or
/// `off`): its time, records a second and peak memory.
async fn measured(
    tool: &std::path::Path,
    n: &str,
    limit: &str,
    args: &[&str],
    records: usize,
) -> Result<Value, Box<dyn std::error::Error>> {
    let (mut sandbox, base) = sandbox_child(&["serve", n, limit])?;
    let measured = measure(
        Command::new(tool)
            .arg("--quiet")
            .args(args)
            .env("INSPECTION_V3_BASE_URL", &base)
            .env("INSPECTION_V3_API_KEY_ID", DEMO_KEY.0)
            .env("INSPECTION_V3_API_KEY_SECRET", DEMO_KEY.1)
            .env("INSPECTION_CONFIG_DIR", "/nonexistent"),
    )
    .await?;
    let (elapsed, peak, output) = (measured.elapsed, measured.peak_rss_kib, measured.output);
    stop(sandbox.take());
    if !output.status.success() {
        return Err(format!("inspection {} failed: {}", args.join(" "), output.status).into());
    }
    let summary: Value = serde_json::from_slice(&output.stdout)?;
    let written = summary["records"].as_u64().or_else(|| {
        summary["lists"]
            .as_array()?
            .iter()
            .find(|l| l["table"] == "inspections")?["records"]
            .as_u64()
    });
    if written != Some(records as u64) {
        return Err(format!(
            "{}: wrote {written:?} inspections of {records}",
            args.join(" ")
        )
        .into());
    }
    Ok(json!({
        "elapsed_ms": elapsed.as_millis() as u64,
        "records_per_s": (records as f64 / elapsed.as_secs_f64() * 10.0).round() / 10.0,
        "peak_rss_kib": peak,
    }))
}
