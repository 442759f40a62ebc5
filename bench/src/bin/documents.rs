//! `inspection export v3 DIR --pdf` of N inspections at the documented quota (100 requests
//! per 10 s), against a sandbox of its own: each document through the API (`--documents-from
//! api`, two requests of the quota each: a 202 while it is prepared, then the PDF) and from
//! each record's pre-signed link (`auto`): the time, the API's requests, the links fetched,
//! and the tool's peak memory.
//!
//! `cargo run --release -p bench --bin documents -- N [api,auto]` prints one JSON line. The
//! sandbox runs in a child process (this program with `serve N`), so the peak resident
//! memory measured is the tool's own.

use std::process::Command;

use bench::child::{built_tool, measure, number, sandbox_child, stats, stop};
use sandbox::{DEMO_KEY, Options, Sandbox};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: documents N [api,auto] | documents serve N";
    let number = |at| number(&args, at, usage).map(|n| n as usize);
    let rt = bench::runtime()?;
    match args.first().map(String::as_str) {
        Some("serve") => rt.block_on(serve(number(1)?)),
        _ => {
            let ways = args.get(1).map_or("api,auto", String::as_str);
            rt.block_on(run(number(0)?, ways))
        }
    }
}

/// The child: a sandbox with `records` inspections and the documented quota, until stdin
/// closes.
async fn serve(records: usize) -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = Sandbox::start(Options {
        demo: false,
        extra_inspections: records,
        ..Options::default()
    })
    .await?;
    println!("{}", sandbox.base_url());
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

/// Each way in `ways` against a fresh sandbox, then how much faster the links are.
async fn run(records: usize, ways: &str) -> Result<(), Box<dyn std::error::Error>> {
    let tool = built_tool()?;
    let mut result = json!({ "records": records, "quota": "100 per 10000 ms" });
    for way in ways.split(',') {
        let (mut child, base) = sandbox_child(&["serve", &records.to_string()])?;
        let measured = export(&tool, &base, records, way).await;
        stop(child.take());
        result[way] = measured?;
    }
    if let (Some(api), Some(auto)) = (
        result["api"]["elapsed_ms"].as_f64(),
        result["auto"]["elapsed_ms"].as_f64(),
    ) {
        result["speedup"] = json!((api / auto * 10.0).round() / 10.0);
    }
    println!("{result}");
    Ok(())
}

/// One export with PDFs into a fresh folder, documents from `way`; its peak memory read
/// while it runs, every document checked to be there.
async fn export(
    tool: &std::path::Path,
    base: &str,
    records: usize,
    way: &str,
) -> Result<Value, Box<dyn std::error::Error>> {
    let folder = std::env::temp_dir().join(format!("bench-documents-{way}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let measured = measure(
        Command::new(tool)
            .args(["--quiet", "export", "v3"])
            .arg(&folder)
            .args(["--pdf", "--documents-from", way])
            .env("INSPECTION_V3_BASE_URL", base)
            .env("INSPECTION_V3_API_KEY_ID", DEMO_KEY.0)
            .env("INSPECTION_V3_API_KEY_SECRET", DEMO_KEY.1)
            .env("INSPECTION_CONFIG_DIR", &folder),
    )
    .await?;
    let (elapsed, peak, output) = (measured.elapsed, measured.peak_rss_kib, measured.output);
    if !output.status.success() {
        return Err(format!("inspection export ({way}) failed: {}", output.status).into());
    }
    let summary: Value = serde_json::from_slice(&output.stdout)?;
    let documents = std::fs::read_dir(folder.join("documents"))?.count();
    std::fs::remove_dir_all(&folder)?;
    if documents != records {
        return Err(format!("{way}: {documents} documents of {records}").into());
    }
    let stats = stats(base).await?;
    Ok(json!({
        "elapsed_ms": elapsed.as_millis() as u64,
        "records_per_s": (records as f64 / elapsed.as_secs_f64() * 10.0).round() / 10.0,
        "api_requests": stats["requests"],
        "link_requests": stats["storage_requests"],
        "rate_limited": stats["rate_limited"],
        "documents_by": summary["documents_by"],
        "peak_rss_kib": peak,
    }))
}
