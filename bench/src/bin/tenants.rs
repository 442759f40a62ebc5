//! `inspection sync --tenants` of three companies against one sandbox that serves them
//! all under one rate limit per client address (a child process): how much of the quota
//! the tenants keep together, and whether any request drew a 429.
//!
//! `cargo run --release -p bench --bin tenants -- N SECONDS` syncs N inspections of each
//! company (5 a page, into SQLite files) at 100 requests per SECONDS (10: the documented
//! quota), and prints one JSON line: the requests sent, the quota windows the run took,
//! the share of the quota kept (the least time the quota allows for those requests, 100
//! at once and then 100 a window, over the time the run took: 100 % is a pace no client
//! can beat without a 429) and the 429s met.

use std::process::Command;
use std::time::Duration;

use bench::child::{built_tool, measure, number, sandbox_child, scratch, stats, stop};
use sandbox::{Company, Options, Sandbox};
use serde_json::{Value, json};

/// The companies: profile name, key id, secret. The first is the sandbox's own key.
const COMPANIES: [(&str, &str, &str); 3] = [
    ("initech", "demo-key", "demo-secret"),
    ("acme", "acme-key", "acme-secret"),
    ("globex", "globex-key", "globex-secret"),
];

/// Requests a quota window allows.
const QUOTA: u64 = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: tenants N SECONDS | tenants serve N SECONDS";
    let number = |at| number(&args, at, usage);
    let rt = bench::runtime()?;
    match args.first().map(String::as_str) {
        Some("serve") => rt.block_on(serve(number(1)? as usize, number(2)?)),
        _ => rt.block_on(run(number(0)?, number(1)?)),
    }
}

/// The child: the three companies with `records` inspections each, at 100 requests per
/// `seconds` per address, until stdin closes.
async fn serve(records: usize, seconds: u64) -> Result<(), Box<dyn std::error::Error>> {
    let companies = COMPANIES[1..].iter().map(|(_, id, secret)| Company {
        key: (id.to_string(), secret.to_string()),
        inspections: records,
    });
    let options = Options {
        demo: false,
        extra_inspections: records,
        companies: companies.collect(),
        rate_limit: Some((QUOTA as u32, Duration::from_secs(seconds))),
        ..Options::default()
    };
    let sandbox = Sandbox::start(options).await?;
    println!("{}", sandbox.base_url());
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

async fn run(records: u64, seconds: u64) -> Result<(), Box<dyn std::error::Error>> {
    let tool = built_tool()?;
    let scratch = scratch("tenants")?;
    let (mut sandbox, base) =
        sandbox_child(&["serve", &records.to_string(), &seconds.to_string()])?;
    let file = files(&scratch, &base)?;
    let measured = measure(
        Command::new(&tool)
            .args(["--quiet", "--rate-limit", &format!("{QUOTA}/{seconds}")])
            .args(["sync", "--tenants", &file, "--format", "json"])
            .env("INSPECTION_CONFIG_DIR", &scratch),
    )
    .await?;
    let counted = stats(&base).await?;
    stop(sandbox.take());
    let _ = std::fs::remove_dir_all(&scratch);
    if !measured.output.status.success() {
        let out = String::from_utf8_lossy(&measured.output.stdout);
        return Err(format!("inspection sync --tenants failed: {out}").into());
    }
    let summary: Value = serde_json::from_slice(&measured.output.stdout)?;
    let requests = counted["requests"].as_u64().unwrap_or(0);
    let elapsed = measured.elapsed.as_secs_f64();
    let windows = elapsed / seconds as f64;
    // The least time the quota allows for these requests: a window's worth at once, then
    // a window's worth at the start of each window after it.
    let least = (requests.div_ceil(QUOTA).saturating_sub(1) * seconds) as f64;
    println!(
        "{}",
        json!({
            "tenants": COMPANIES.len(),
            "records_each": records,
            "quota": format!("{QUOTA} per {seconds} s"),
            "requests": requests,
            "requests_by_tenant": (summary["tenants"].as_array().into_iter().flatten())
                .map(|t| t["summary"]["api_requests"].clone())
                .collect::<Vec<_>>(),
            "rate_limited": counted["rate_limited"],
            "elapsed_ms": measured.elapsed.as_millis() as u64,
            "windows": (windows * 100.0).round() / 100.0,
            "least_s": least,
            "share_of_quota": (least / elapsed * 1000.0).round() / 1000.0,
        })
    );
    Ok(())
}

/// The profiles (one per company) and the tenants file (a SQLite file each, 5 records a
/// page) in `dir`; the tenants file's path.
fn files(dir: &std::path::Path, base: &str) -> Result<String, Box<dyn std::error::Error>> {
    use std::os::unix::fs::PermissionsExt;
    let (mut profiles, mut tenants) = (String::new(), String::new());
    for (name, id, secret) in COMPANIES {
        profiles.push_str(&format!(
            "[{name}]\nINSPECTION_V3_BASE_URL = {base}\nINSPECTION_V3_API_KEY_ID = {id}\n\
             INSPECTION_V3_API_KEY_SECRET = {secret}\n\n"
        ));
        let db = dir.join(format!("{name}.db"));
        tenants.push_str(&format!(
            "[[tenant]]\nname = \"{name}\"\ninterface = \"v3\"\ndatabase = \"{}\"\n\
             page_size = 5\n\n",
            db.display()
        ));
    }
    let profiles_file = dir.join("profiles");
    std::fs::write(&profiles_file, profiles)?;
    std::fs::set_permissions(&profiles_file, std::fs::Permissions::from_mode(0o600))?;
    let file = dir.join("tenants.toml");
    std::fs::write(&file, tenants)?;
    Ok(file.display().to_string())
}
