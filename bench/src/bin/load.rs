//! The sandbox under concurrent load: `C` clients, each on a connection of its own, call
//! both interfaces for `S` seconds with the rate limits off (reads and writes of each),
//! then the writes are counted back. It reports every status per operation and fails when
//! one is not among those the operation or its interface lists, or when a created record
//! is missing or there twice; p50/p99 latency; the sandbox's resident memory after the
//! first second and at the end.
//!
//! `cargo run --release -p bench --bin load -- C S` prints one JSON line. The sandbox runs
//! in a child process (this program with `serve`), so the memory measured is its own.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = bench::runtime()?;
    match args.first().map(String::as_str) {
        Some("serve") => rt.block_on(serve()),
        _ => {
            let number = |i: usize| -> Result<u64, String> {
                args.get(i)
                    .ok_or("usage: load CONNECTIONS SECONDS")?
                    .parse()
                    .map_err(|e| format!("{e}"))
            };
            rt.block_on(load(number(0)? as usize, Duration::from_secs(number(1)?)))
        }
    }
}

/// The child: a sandbox with no rate limit and room for every connection, until stdin closes.
async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = sandbox::Sandbox::start(sandbox::Options {
        rate_limit: None,
        legacy_rate_limit: None,
        max_connections: 4_096,
        ..sandbox::Options::default()
    })
    .await?;
    println!("{}", sandbox.legacy_base_url());
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    Ok(())
}

/// One kind of request the clients send, by its operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Call {
    GetUnit,
    CreateUnit,
    ListLocations,
    CreateLocation,
}

impl Call {
    const ALL: [Call; 4] = [
        Call::GetUnit,
        Call::CreateUnit,
        Call::ListLocations,
        Call::CreateLocation,
    ];

    /// Its interface and operation in the spec.
    fn operation(self) -> (&'static str, &'static str) {
        match self {
            Call::GetUnit => ("v3", "get_unit"),
            Call::CreateUnit => ("v3", "create_unit"),
            Call::ListLocations => ("legacy", "list_locations"),
            Call::CreateLocation => ("legacy", "create_location"),
        }
    }
}

/// What one client saw: each call's statuses and latencies, and what it created.
#[derive(Default)]
struct Seen {
    statuses: BTreeMap<(Call, u16), u64>,
    failures: u64,
    latencies_us: Vec<u64>,
    units: Vec<String>,
    locations: Vec<String>,
}

async fn load(clients: usize, seconds: Duration) -> Result<(), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut origin = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut origin)?;
    let origin = Arc::new(origin.trim().to_string());
    let token = Arc::new(login(&origin).await?);
    let deadline = Instant::now() + seconds;
    let pid = child.id();
    let early = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss_kib(pid)
    });
    let tasks: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(client(n, origin.clone(), token.clone(), deadline)))
        .collect();
    let mut seen = Vec::new();
    for task in tasks {
        seen.push(task.await??);
    }
    let rss_early = early.await?.unwrap_or(0);
    let rss_end = rss_kib(pid).unwrap_or(0);
    let result = report(
        &origin,
        &token,
        clients,
        seconds,
        seen,
        (rss_early, rss_end),
    )
    .await;
    drop(child.stdin.take());
    wait(child);
    let report = result?;
    println!("{report}");
    if let Some(problems) = report["problems"].as_array().filter(|p| !p.is_empty()) {
        return Err(format!("{} problems: {problems:?}", problems.len()).into());
    }
    Ok(())
}

fn wait(mut child: Child) {
    let _ = child.wait();
}

/// The legacy token of the sandbox's manager.
async fn login(origin: &str) -> Result<String, Box<dyn std::error::Error>> {
    let (manager, password) = sandbox::LEGACY_MANAGER;
    let answer = reqwest::Client::new()
        .post(format!("{origin}/api/users/authenticate"))
        .header("accept", "application/json; version=1")
        .header("content-type", "application/json")
        .body(json!({"user": {"username": manager, "password": password}}).to_string())
        .send()
        .await?
        .error_for_status()?
        .bytes()
        .await?;
    let answer: Value = serde_json::from_slice(&answer)?;
    Ok(answer["auth_token"]
        .as_str()
        .ok_or("no auth_token")?
        .to_string())
}

/// One client on its own connection: the four calls in turn until the deadline.
async fn client(
    n: usize,
    origin: Arc<String>,
    token: Arc<String>,
    deadline: Instant,
) -> Result<Seen, reqwest::Error> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(30))
        .build()?;
    let mut seen = Seen::default();
    let mut i = 0u64;
    while Instant::now() < deadline {
        let call = Call::ALL[(i % 4) as usize];
        let name = format!("LOAD-{n}-{i}");
        let req = match call {
            Call::GetUnit => http.get(format!("{origin}/v3/units/unt_001")),
            Call::CreateUnit => http
                .post(format!("{origin}/v3/units"))
                .header("content-type", "application/json")
                .body(json!({"reference_number": name}).to_string()),
            Call::ListLocations => http.get(format!("{origin}/api/locations")),
            Call::CreateLocation => http
                .post(format!("{origin}/api/locations"))
                .header("content-type", "application/json")
                .body(json!({"location": {"name": name}}).to_string()),
        };
        let req = match call.operation().0 {
            "v3" => req
                .header("api-key-id", sandbox::DEMO_KEY.0)
                .header("api-key-secret", sandbox::DEMO_KEY.1),
            _ => req
                .header("authorization", format!("Token {token}"))
                .header("accept", "application/json; version=1"),
        };
        let started = Instant::now();
        match req.send().await {
            Ok(resp) => {
                let status = resp.status().as_u16();
                // The whole body, as a client reads it.
                let _ = resp.bytes().await;
                seen.latencies_us
                    .push(u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX));
                *seen.statuses.entry((call, status)).or_default() += 1;
                if status == 201 {
                    match call {
                        Call::CreateUnit => seen.units.push(name),
                        Call::CreateLocation => seen.locations.push(name),
                        _ => {}
                    }
                }
            }
            Err(_) => seen.failures += 1,
        }
        i += 1;
    }
    Ok(seen)
}

/// The figures, and every problem: an unlisted status, a failed request, a created record
/// missing or there twice.
async fn report(
    origin: &str,
    token: &str,
    clients: usize,
    seconds: Duration,
    seen: Vec<Seen>,
    (rss_early, rss_end): (u64, u64),
) -> Result<Value, Box<dyn std::error::Error>> {
    let root = bench::repo_root();
    let api = codegen::load_dir(&root, &root.join("spec")).map_err(|e| format!("{e:?}"))?;
    let mut statuses: BTreeMap<(Call, u16), u64> = BTreeMap::new();
    let mut latencies = Vec::new();
    let (mut units, mut locations, mut failures) = (Vec::new(), Vec::new(), 0);
    for s in seen {
        for (k, v) in s.statuses {
            *statuses.entry(k).or_default() += v;
        }
        latencies.extend(s.latencies_us);
        units.extend(s.units);
        locations.extend(s.locations);
        failures += s.failures;
    }
    let mut problems = Vec::new();
    if failures > 0 {
        problems.push(format!("{failures} requests got no answer"));
    }
    for ((call, status), count) in &statuses {
        let (interface, name) = call.operation();
        let i = api
            .interfaces
            .iter()
            .find(|i| i.name == interface)
            .ok_or("no interface")?;
        let op = i
            .operations
            .iter()
            .find(|o| o.name == name)
            .ok_or("no operation")?;
        let listed = op.responses.iter().any(|r| r.status == *status) || i.lists(op, *status);
        if !listed {
            problems.push(format!(
                "{name} answered {status} ({count} times), which it does not list"
            ));
        }
    }
    let unit_counts = counted(origin, token, "/v3/units?per_page=100", "data").await?;
    let location_counts = counted(origin, token, "/api/locations?limit=50", "locations").await?;
    for (kind, created, found) in [
        ("unit", &units, &unit_counts),
        ("location", &locations, &location_counts),
    ] {
        let missing = created.iter().filter(|n| !found.contains_key(*n)).count();
        let twice = found.values().filter(|c| **c > 1).count();
        let stray = found.keys().filter(|n| !created.contains(n)).count();
        if missing + twice + stray > 0 {
            problems.push(format!(
                "{kind}s: {missing} created but missing, {twice} there twice, {stray} never created"
            ));
        }
    }
    latencies.sort_unstable();
    let pct = |p: usize| {
        latencies
            .get(latencies.len() * p / 100)
            .copied()
            .unwrap_or(0)
    };
    let shown: BTreeMap<String, u64> = statuses
        .iter()
        .map(|((call, status), n)| (format!("{} {status}", call.operation().1), *n))
        .collect();
    Ok(json!({
        "clients": clients,
        "seconds": seconds.as_secs(),
        "requests": latencies.len(),
        "requests_per_s": latencies.len() as f64 / seconds.as_secs_f64(),
        "p50_ms": pct(50) as f64 / 1000.0,
        "p99_ms": pct(99) as f64 / 1000.0,
        "statuses": shown,
        "created": {"units": units.len(), "locations": locations.len()},
        "sandbox_rss_kib": {"after_1s": rss_early, "end": rss_end},
        "problems": problems,
    }))
}

/// The records named `LOAD-...` a list holds, walking every page, by name (reference
/// number for units) and how often each appears.
async fn counted(
    origin: &str,
    token: &str,
    first: &str,
    items: &str,
) -> Result<HashMap<String, u64>, Box<dyn std::error::Error>> {
    let http = reqwest::Client::new();
    let mut counts = HashMap::new();
    let mut next = Some(format!("{origin}{first}"));
    while let Some(url) = next.take() {
        let page = http
            .get(&url)
            .header("api-key-id", sandbox::DEMO_KEY.0)
            .header("api-key-secret", sandbox::DEMO_KEY.1)
            .header("authorization", format!("Token {token}"))
            .header("accept", "application/json; version=1")
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await?;
        let page: Value = serde_json::from_slice(&page)?;
        for record in page[items].as_array().into_iter().flatten() {
            let name = record["reference_number"]
                .as_str()
                .or(record["name"].as_str())
                .unwrap_or_default();
            if name.starts_with("LOAD-") {
                *counts.entry(name.to_string()).or_default() += 1;
            }
        }
        let link = page["paging"]["next"]
            .as_str()
            .or(page["links"]["next"].as_str())
            .filter(|l| !l.is_empty());
        next = link.map(|l| {
            if l.starts_with("http") {
                l.to_string()
            } else {
                format!("{origin}{l}")
            }
        });
    }
    Ok(counts)
}

/// The resident memory of process `pid`, in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
