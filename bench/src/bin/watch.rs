//! What the drift watch (`sandbox watch`) costs: the latency it adds to a page of 100
//! inspections on loopback (the same request alternately straight to the sandbox and
//! through the watch, 400 of each: p50 and p99 of both), and its resident memory while
//! large answers stream through (twenty 64 MiB PDFs: its peak RSS after the first, the
//! tenth and the twentieth), and with 1,000 connections at once (each asking the page of
//! 100 inspections: its peak RSS, and how many whole answers came back). Each watch runs in a child process (this program with `watch UPSTREAM`), so the
//! memory measured is the watch's own.
//!
//! `cargo run --release -p bench --bin watch` prints one JSON line.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const KEYS: [(&str, &str); 2] = [
    ("api-key-id", "demo-key"),
    ("api-key-secret", "demo-secret"),
];

/// The size of each large answer, and how many pass.
const LARGE: usize = 64 << 20;
const LARGE_ANSWERS: usize = 20;

/// Connections at once through the watch, each asking the page of 100 inspections.
const AT_ONCE: usize = 1_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = bench::runtime()?;
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("watch"), Some(upstream)) => rt.block_on(watch(upstream.clone())),
        _ => rt.block_on(measure()),
    }
}

/// The child: a watch in front of `upstream`, until stdin closes.
async fn watch(upstream: String) -> Result<(), Box<dyn std::error::Error>> {
    let options = sandbox::watch::Options {
        upstream,
        enforce: false,
        record: None,
        json_lines: false,
        ir: None,
        timeout: sandbox::watch::DEFAULT_TIMEOUT,
    };
    let watch = sandbox::watch::Watch::start(([127, 0, 0, 1], 0).into(), options).await?;
    println!("http://{}", watch.addr);
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await?;
    assert!(watch.departures().is_empty(), "{}", watch.table());
    Ok(())
}

/// A watch child in front of `upstream`, and the origin it listens on.
fn start_watch(upstream: &str) -> Result<(Child, String), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(["watch", upstream])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    Ok((child, line.trim().to_string()))
}

/// The child's peak resident memory so far (`VmHWM`), in KiB.
fn rss_kib(child: &Child) -> u64 {
    bench::peak_rss_kib_of(&child.id().to_string()).unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

async fn measure() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = sandbox::Sandbox::start(sandbox::Options {
        rate_limit: None,
        extra_inspections: 100,
        ..sandbox::Options::default()
    })
    .await?;
    let direct = format!("http://{}", sandbox.addr);
    let (mut page_watch, via) = start_watch(&direct)?;
    let http = reqwest::Client::builder().no_proxy().build()?;
    let page = "/v3/inspections?per_page=100";
    let get = |origin: &str| {
        let mut request = http.get(format!("{origin}{page}"));
        for (name, value) in KEYS {
            request = request.header(name, value);
        }
        request
    };
    let (mut straight, mut through) = (Vec::new(), Vec::new());
    let mut bytes = 0;
    for n in 0..450 {
        for (origin, times) in [(&direct, &mut straight), (&via, &mut through)] {
            let started = Instant::now();
            let body = get(origin)
                .send()
                .await?
                .error_for_status()?
                .bytes()
                .await?;
            // The first 50 of each warm the connections up.
            if n >= 50 {
                times.push(started.elapsed());
            }
            bytes = body.len();
        }
    }
    straight.sort();
    through.sort();
    drop(page_watch.stdin.take());
    let page_ok = page_watch.wait()?.success();

    // The same page asked 1,000 times at once, each on its own connection.
    let (mut load_watch, via) = start_watch(&direct)?;
    let started = Instant::now();
    let calls = (0..AT_ONCE).map(|_| {
        let request = get(&via);
        async move {
            let body = request.send().await?.error_for_status()?.bytes().await?;
            Ok::<usize, reqwest::Error>(body.len())
        }
    });
    let answered = futures_util::future::join_all(calls).await;
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let whole = answered
        .iter()
        .filter(|r| matches!(r, Ok(n) if *n == bytes))
        .count();
    let load_rss = rss_kib(&load_watch);
    let report = http.get(format!("{via}/_watch/report")).send().await?;
    let load_report: serde_json::Value = serde_json::from_slice(&report.bytes().await?)?;
    drop(load_watch.stdin.take());
    let load_ok = load_watch.wait()?.success();

    let upstream = large_upstream().await?;
    let (mut pdf_watch, via) = start_watch(&upstream)?;
    let mut rss = Vec::new();
    for n in 0..LARGE_ANSWERS {
        let mut answer = http
            .get(format!("{via}/v3/inspections/ins_{n}"))
            .header("accept", "application/pdf")
            .header(KEYS[0].0, KEYS[0].1)
            .header(KEYS[1].0, KEYS[1].1)
            .send()
            .await?
            .error_for_status()?;
        let mut got = 0;
        while let Some(chunk) = answer.chunk().await? {
            got += chunk.len();
        }
        assert_eq!(got, LARGE);
        if n == 0 || n == LARGE_ANSWERS / 2 - 1 || n == LARGE_ANSWERS - 1 {
            rss.push(rss_kib(&pdf_watch));
        }
    }
    drop(pdf_watch.stdin.take());
    let pdf_ok = pdf_watch.wait()?.success();
    println!(
        "{}",
        json!({
            "page_bytes": bytes,
            "direct_p50_ms": percentile(&straight, 0.5),
            "direct_p99_ms": percentile(&straight, 0.99),
            "watched_p50_ms": percentile(&through, 0.5),
            "watched_p99_ms": percentile(&through, 0.99),
            "added_p50_ms": percentile(&through, 0.5) - percentile(&straight, 0.5),
            "large_answers": LARGE_ANSWERS,
            "large_answer_mib": LARGE >> 20,
            "watch_peak_rss_kib_after": {"1": rss[0], "10": rss[1], "20": rss[2]},
            "at_once": AT_ONCE,
            "at_once_whole_answers": whole,
            "at_once_ms": load_ms,
            "at_once_watch_peak_rss_kib": load_rss,
            "at_once_checked": load_report["exchanges"],
            "at_once_unchecked": load_report["unchecked"],
            "no_departure": page_ok && pdf_ok && load_ok,
        })
    );
    Ok(())
}

/// An upstream whose inspection PDFs are 64 MiB each, sent in 64 KiB chunks.
async fn large_upstream() -> Result<String, Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let origin = format!("http://{}", listener.local_addr()?);
    let pdf = || async {
        let chunk = bytes_of(64 << 10);
        let stream = futures_util::stream::iter(
            (0..LARGE / chunk.len()).map(move |_| Ok::<_, std::io::Error>(chunk.clone())),
        );
        axum_response(stream)
    };
    let app = axum::Router::new().route("/v3/inspections/{id}", axum::routing::get(pdf));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(origin)
}

fn bytes_of(n: usize) -> bytes::Bytes {
    bytes::Bytes::from(vec![b'%'; n])
}

fn axum_response(
    stream: impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static,
) -> axum::response::Response {
    axum::response::Response::builder()
        .header("content-type", "application/pdf")
        .header("content-length", LARGE)
        .body(axum::body::Body::from_stream(stream))
        .unwrap_or_default()
}
