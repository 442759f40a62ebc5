//! `inspection import v3 units` of N rows (the tool as a child process, so the time and
//! memory measured are the tool's):
//!
//! * `quota`: against a sandbox of its own at the documented quota (100 requests per
//!   10 s), every row an upsert: the time against the quota's best for as many requests
//!   (100 at once, then 100 more each 10 s), and the sandbox's count of 429 answers.
//! * `check`: `--check` of the file, nothing sent: the time to check every row through
//!   the generated validators, and the tool's peak memory.
//!
//! `cargo run --release -p bench --bin import -- N quota|check` prints one JSON line.

use std::path::Path;
use std::process::{Command, Stdio};

use bench::child::{built_tool, measure, sandbox_child, scratch, stats, stop};
use sandbox::{DEMO_KEY, Options, Sandbox};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: import N quota|check | import serve";
    let rt = bench::runtime()?;
    if args.first().map(String::as_str) == Some("serve") {
        return rt.block_on(serve());
    }
    let rows: usize = args
        .first()
        .ok_or(usage)?
        .parse()
        .map_err(|e| format!("N must be a number of rows: {e}"))?;
    let what = args.get(1).ok_or(usage)?.clone();
    rt.block_on(run(rows, &what))
}

/// The child: an empty sandbox at the documented quota, until stdin closes.
async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = Sandbox::start(Options {
        demo: false,
        ..Options::default()
    })
    .await?;
    println!("{}", sandbox.base_url());
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

/// A units file of `rows` valid rows, every limit of the body exercised.
fn units_file(path: &Path, rows: usize) -> std::io::Result<()> {
    let mut text =
        String::from("reference_number,make,model,year,vin,hours,odometer,extended_data.fleet\n");
    for n in 0..rows {
        text.push_str(&format!(
            "B-{n:07},Volvo,FH{},{},1M8GDM9AXKP{:06},{},{},yard-{}\n",
            n % 9,
            1990 + n % 30,
            n % 1_000_000,
            n % 5000,
            n * 7 % 900_000,
            n % 4
        ));
    }
    std::fs::write(path, text)
}

async fn run(rows: usize, what: &str) -> Result<(), Box<dyn std::error::Error>> {
    let tool = built_tool()?;
    let scratch = scratch("import")?;
    let file = scratch.join("units.csv");
    units_file(&file, rows)?;
    let file_arg = file.display().to_string();
    let result = match what {
        "quota" => {
            let (mut sandbox, base) = sandbox_child(&["serve"])?;
            let run = measured(&tool, &base, &["import", "v3", "units", &file_arg]).await?;
            let counts = stats(&base).await?;
            stop(sandbox.take());
            let ms = run["elapsed_ms"].as_f64().unwrap_or(f64::NAN);
            let requests = counts["requests"].as_u64().unwrap_or(0);
            // The quota's best for these requests: 100 at once, 100 more each 10 s.
            let ceiling_ms = (requests.div_ceil(100).saturating_sub(1) * 10_000) as f64;
            json!({
                "rows": rows,
                "quota": "100 per 10000 ms",
                "run": run,
                "requests": requests,
                "requests_per_s": (requests as f64 / ms * 1000.0 * 100.0).round() / 100.0,
                "ceiling_ms": ceiling_ms,
                "share_of_ceiling": (ceiling_ms / ms * 1000.0).round() / 1000.0,
                "rate_limited": counts["rate_limited"],
            })
        }
        "check" => {
            // Nothing is sent: the address is only where a request would go.
            let run = measured(
                &tool,
                "http://127.0.0.1:9/v3",
                &["import", "v3", "units", &file_arg, "--check"],
            )
            .await?;
            json!({ "rows": rows, "check": run })
        }
        other => return Err(format!("`{other}`: quota or check").into()),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    println!("{result}");
    Ok(())
}

/// The tool run with `args` against `base`: its time and peak memory (it must succeed).
async fn measured(
    tool: &Path,
    base: &str,
    args: &[&str],
) -> Result<Value, Box<dyn std::error::Error>> {
    let measured = measure(
        Command::new(tool)
            .arg("--quiet")
            .args(args)
            .env("INSPECTION_V3_BASE_URL", base)
            .env("INSPECTION_V3_API_KEY_ID", DEMO_KEY.0)
            .env("INSPECTION_V3_API_KEY_SECRET", DEMO_KEY.1)
            .env("INSPECTION_CONFIG_DIR", "/nonexistent")
            .stderr(Stdio::piped()),
    )
    .await?;
    let (elapsed, peak, output) = (measured.elapsed, measured.peak_rss_kib, measured.output);
    if !output.status.success() {
        return Err(format!(
            "inspection {} failed: {}: {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let summary: Value = serde_json::from_slice(&output.stdout)?;
    Ok(json!({
        "elapsed_ms": elapsed.as_millis() as u64,
        "peak_rss_kib": peak,
        "summary": summary,
    }))
}
