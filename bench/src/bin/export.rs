//! A paginated export of N inspections at a raised quota, the client pacing itself to it:
//! how close it gets to the quota's ceiling, how many 429s it met, and its peak memory;
//! then the same export by the command-line tool (`inspection export v3`, records and
//! checkpoint written to a folder), against a sandbox of its own, when the tool is built.
//!
//! `cargo run --release -p bench --bin export -- N` prints one JSON line. The sandbox runs in
//! a child process (this program with `serve`), so the peak resident memory measured is the
//! client's own, not the sandbox's store of N records.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bench::child::{sandbox_child, stats, stop, tool_binary};

use futures_util::TryStreamExt;
use inspection_client::v3::{ApiKey, Client};
use sandbox::{DEMO_KEY, Options, Sandbox};

/// The service's raised quota (200 requests per 10 s), on both sides.
const QUOTA: u32 = 200;
const WINDOW: Duration = Duration::from_secs(10);
/// Pages of 20: 10,000 records take 500 requests, so the quota holds the export back for
/// two whole windows (with pages of 100 it would never be reached).
const PER_PAGE: i32 = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let records = |arg: Option<&String>| -> Result<usize, String> {
        arg.ok_or("usage: export N | export serve N")?
            .parse()
            .map_err(|e| format!("N must be a number of records: {e}"))
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    match args.first().map(String::as_str) {
        Some("serve") => rt.block_on(serve(records(args.get(1))?)),
        _ => rt.block_on(export(records(args.first())?)),
    }
}

/// The child: a sandbox with `records` inspections and the quota, until stdin closes.
async fn serve(records: usize) -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = Sandbox::start(Options {
        demo: false,
        extra_inspections: records,
        rate_limit: Some((QUOTA, WINDOW)),
        ..Options::default()
    })
    .await?;
    println!("{}", sandbox.base_url());
    // The parent closes our stdin when it is done (or dies); then we end too.
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

async fn export(records: usize) -> Result<(), Box<dyn std::error::Error>> {
    let (mut child, base) = sandbox_child(&["serve", &records.to_string()])?;
    let result = measure(&base, records).await;
    stop(child.take());
    let mut result = result?;
    let tool = tool_binary();
    if tool.exists() {
        let (mut child, base) = sandbox_child(&["serve", &records.to_string()])?;
        let measured = measure_tool(&tool, &base, records).await;
        stop(child.take());
        result["tool"] = measured?;
    }
    println!("{result}");
    Ok(())
}

/// The command-line tool's export of every record into a fresh folder, paced to the same
/// quota with the same page size; its peak memory read while it runs.
async fn measure_tool(
    tool: &std::path::Path,
    base: &str,
    records: usize,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let folder = std::env::temp_dir().join(format!("bench-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let rate = format!("{QUOTA}/{}", WINDOW.as_secs());
    let start = Instant::now();
    let mut child = Command::new(tool)
        .args(["--quiet", "--rate-limit", &rate, "export", "v3"])
        .arg(&folder)
        .args(["--page-size", &PER_PAGE.to_string()])
        .env("INSPECTION_V3_BASE_URL", base)
        .env("INSPECTION_V3_API_KEY_ID", DEMO_KEY.0)
        .env("INSPECTION_V3_API_KEY_SECRET", DEMO_KEY.1)
        .env("INSPECTION_CONFIG_DIR", &folder)
        .stdout(Stdio::null())
        .spawn()?;
    let pid = child.id().to_string();
    let mut peak = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        peak = bench::peak_rss_kib_of(&pid).or(peak);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let elapsed = start.elapsed();
    if !status.success() {
        return Err(format!("inspection export failed: {status}").into());
    }
    let lines = std::fs::read_to_string(folder.join("records.jsonl"))?
        .lines()
        .count();
    std::fs::remove_dir_all(&folder)?;
    if lines != records {
        return Err(format!("the tool exported {lines} records of {records}").into());
    }
    let stats = stats(base).await?;
    Ok(serde_json::json!({
        "records": lines,
        "requests": stats["requests"],
        "rate_limited": stats["rate_limited"],
        "elapsed_ms": elapsed.as_millis() as u64,
        "peak_rss_kib": peak,
    }))
}

async fn measure(
    base: &str,
    records: usize,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let client = Client::with_config(
        base,
        ApiKey::new(DEMO_KEY.0, DEMO_KEY.1),
        Client::default_config().rate_limit(QUOTA, WINDOW),
    )?;

    let start = Instant::now();
    let exported = client
        .list_inspections()
        .per_page(PER_PAGE)
        .stream()
        .try_fold(0usize, |n, _inspection| async move { Ok(n + 1) })
        .await?;
    let elapsed = start.elapsed();
    let peak_rss_kib = bench::peak_rss_kib();

    let stats = stats(base).await?;
    let requests = stats["requests"].as_u64().ok_or("stats without requests")?;
    // The least time any client keeping to the quota needs for this many requests: the
    // first QUOTA go at once, each later one a window after the one QUOTA before it.
    let ideal = WINDOW * (requests.saturating_sub(1) / u64::from(QUOTA)) as u32;
    if exported != records {
        return Err(format!("exported {exported} records of {records}").into());
    }
    Ok(serde_json::json!({
        "records": exported,
        "requests": requests,
        "rate_limited": stats["rate_limited"],
        "quota": format!("{QUOTA} per {} ms", WINDOW.as_millis()),
        "elapsed_ms": elapsed.as_millis() as u64,
        "ideal_ms": ideal.as_millis() as u64,
        "share_of_ceiling": ideal.as_secs_f64() / elapsed.as_secs_f64(),
        "peak_rss_kib": peak_rss_kib,
    }))
}
