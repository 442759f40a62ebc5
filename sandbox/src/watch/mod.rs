//! `sandbox watch --upstream URL`: a proxy that holds live traffic to the spec. Every
//! request goes on to the upstream (the real service, or a sandbox) and every answer back
//! to the caller as it came (bodies streamed; a JSON answer is also kept, up to a cap, to
//! be checked once its last byte has gone to the caller, so that checking adds nothing to
//! the caller's wait; reading the report waits for those checks). Each exchange is
//! matched to its operation in the IR and held to it: the status listed, the media type,
//! the body against the answer's type, the `Retry-After` of a 429; a request the spec refuses but the service accepted, and a
//! route the spec does not know that the service answered, are departures too. Each
//! departure is reported once per (operation, spec element, kind) with a count, a first
//! example (secrets redacted), the spec position to change and the class of that change.
//!
//! The one header not passed on is `Accept-Encoding`, so that answers come uncompressed
//! and can be read; the answer's bytes reach the caller unchanged. `--enforce` answers 502
//! naming the departure instead of a departing answer (which it then reads whole first).

mod answer;
mod checks;
mod exchange;
mod record;
pub mod redact;
mod report;
mod routes;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::Value;

pub use report::{Class, Departure, Kind, Report};

use crate::ir::Ir;
use crate::lock;

/// How a watch runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The service's origin (`https://host`, or a sandbox's `http://127.0.0.1:PORT`); a
    /// request's path and query are appended as they came.
    pub upstream: String,
    /// Answer 502 naming the departure instead of a departing answer.
    pub enforce: bool,
    /// Write each exchange, redacted, as a JSON file here.
    pub record: Option<PathBuf>,
    /// Print each departure as a JSON line on stdout when first seen.
    pub json_lines: bool,
    /// The IR the traffic is held to (the embedded one by default).
    pub ir: Option<Arc<Ir>>,
    /// How long the upstream may go silent (before its answer's head, or between two
    /// reads of its body) before the exchange fails: 504 before the head, the answer cut
    /// off after it.
    pub timeout: std::time::Duration,
}

/// The upstream's silence the watch waits out by default (`--timeout`).
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Answers larger than this are passed on unchecked (and counted as such).
pub const MAX_CHECKED: usize = 16 << 20;

/// The bytes of answers all the exchanges under way may keep for their checks (and
/// records) at once: however many connections, the watch's memory stays bounded by it; an
/// answer that finds no room passes on unchecked, counted in the report.
pub const KEPT_BUDGET: usize = 64 << 20;

/// Checks of answers already passed on that run at once: each holds its answer's body
/// (up to `MAX_CHECKED`), so this bounds what the watch holds for checking.
const CHECKS_AT_ONCE: usize = 8;

/// The watch's own paths, never passed on: `GET /_watch/report`.
pub const PREFIX: &str = "/_watch/";

/// A running watch.
pub struct Watch {
    pub addr: SocketAddr,
    state: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

struct Shared {
    ir: Arc<Ir>,
    options: Options,
    http: reqwest::Client,
    report: Mutex<Report>,
    sequence: AtomicU64,
    secrets: redact::Secrets,
    /// The checks of answers already passed on.
    checks: Arc<checks::Checks>,
    /// Room for the checks running at once (`CHECKS_AT_ONCE`).
    check_slots: Arc<tokio::sync::Semaphore>,
    /// The bytes of answers kept for their checks at once, in KiB (`KEPT_BUDGET`).
    kept_room: Arc<tokio::sync::Semaphore>,
}

impl Watch {
    /// Listens on `listen` (port 0: a free one) and watches until dropped or stopped.
    pub async fn start(listen: SocketAddr, options: Options) -> std::io::Result<Watch> {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        Watch::on(listener, options).await
    }

    /// Watches on a listener already bound (its address may be needed before the
    /// upstream starts: a sandbox whose links name the watch).
    pub async fn on(listener: tokio::net::TcpListener, options: Options) -> std::io::Result<Watch> {
        let ir = options.ir.clone().unwrap_or_else(crate::ir::embedded);
        if let Some(dir) = &options.record {
            std::fs::create_dir_all(dir)?;
        }
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(options.timeout)
            .read_timeout(options.timeout)
            .build()
            .map_err(std::io::Error::other)?;
        let state = Arc::new(Shared {
            secrets: redact::Secrets::of(&ir),
            ir,
            options,
            http,
            report: Mutex::new(Report::default()),
            sequence: AtomicU64::new(0),
            checks: Arc::default(),
            check_slots: Arc::new(tokio::sync::Semaphore::new(CHECKS_AT_ONCE)),
            kept_room: Arc::new(tokio::sync::Semaphore::new(KEPT_BUDGET >> 10)),
        });
        let addr = listener.local_addr()?;
        let app = axum::Router::new()
            .route("/_watch/report", axum::routing::get(report_json))
            .fallback(pass_on)
            .with_state(state.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let stopped = async {
                let _ = rx.await;
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await;
        });
        Ok(Watch {
            addr,
            state,
            stop: Some(tx),
        })
    }

    /// Waits for the checks of the answers already passed on, which run once an answer
    /// has gone to its caller: then the report and the record hold every one of them.
    /// The readers below wait so themselves.
    pub fn settle(&self) {
        self.state.checks.settle();
    }

    /// The report so far, as JSON.
    pub fn report(&self) -> Value {
        self.settle();
        lock(&self.state.report).json()
    }

    /// The departures so far.
    pub fn departures(&self) -> Vec<Departure> {
        self.settle();
        lock(&self.state.report).departures.clone()
    }

    /// What filled a gap the spec admits so far (properties of records it says are not
    /// shown).
    pub fn gaps(&self) -> Vec<Departure> {
        self.settle();
        lock(&self.state.report).gaps.clone()
    }

    /// The summary table a maintainer reads on exit.
    pub fn table(&self) -> String {
        self.settle();
        lock(&self.state.report).table()
    }

    /// Stops listening (exchanges under way finish).
    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn report_json(State(state): State<Arc<Shared>>) -> axum::Json<Value> {
    // Waiting for the checks under way blocks: not on a thread that serves exchanges.
    let report = tokio::task::spawn_blocking(move || {
        state.checks.settle();
        lock(&state.report).json()
    })
    .await
    .unwrap_or_default();
    axum::Json(report)
}

async fn pass_on(State(state): State<Arc<Shared>>, request: Request) -> Response {
    exchange::run(state, request).await
}

/// `sandbox watch --upstream URL [--listen ADDR] [--report FILE] [--record DIR]
/// [--enforce]`: the options, where to listen (127.0.0.1 and a free port by default) and
/// where to write the report on exit.
pub fn parse_args(args: &[String]) -> Result<(Options, SocketAddr, Option<PathBuf>), String> {
    let mut options = Options {
        upstream: String::new(),
        enforce: false,
        record: None,
        json_lines: true,
        ir: None,
        timeout: DEFAULT_TIMEOUT,
    };
    let mut listen: SocketAddr = ([127, 0, 0, 1], 0).into();
    let mut report = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("watch: {name} needs a value"))
        };
        match flag.as_str() {
            "--upstream" => options.upstream = value("--upstream")?,
            "--listen" => {
                let v = value("--listen")?;
                listen = v.parse().map_err(|_| {
                    format!("watch: --listen `{v}` is not an address like 127.0.0.1:8080")
                })?;
            }
            "--report" => report = Some(PathBuf::from(value("--report")?)),
            "--record" => options.record = Some(PathBuf::from(value("--record")?)),
            "--enforce" => options.enforce = true,
            "--timeout" => {
                let v = value("--timeout")?;
                options.timeout = v
                    .parse::<f64>()
                    .ok()
                    .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        format!("watch: --timeout `{v}` is not a number of seconds above 0")
                    })?;
            }
            other => return Err(format!("watch: unknown flag `{other}`")),
        }
    }
    let upstream = options.upstream.trim_end_matches('/').to_string();
    let scheme_ok = upstream.starts_with("http://") || upstream.starts_with("https://");
    if upstream.is_empty() || !scheme_ok {
        return Err(
            "watch: --upstream URL (https://host, the service's origin) is required".into(),
        );
    }
    if !listen.ip().is_loopback() {
        return Err(format!(
            "watch: --listen {listen} is not a loopback address"
        ));
    }
    options.upstream = upstream;
    Ok((options, listen, report))
}

impl Shared {
    fn next_sequence(&self) -> u64 {
        self.sequence.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts an exchange the upstream failed, by how.
    fn upstream_failed(&self, how: &str) {
        *lock(&self.report)
            .upstream_failed
            .entry(how.to_string())
            .or_default() += 1;
    }
}
