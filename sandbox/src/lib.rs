//! A local, stateful implementation of the inspection service's v3 interface, from
//! memory, for tests and offline development: key auth, documented limits, 409s, upserts,
//! cursor paging, filters, PDFs that render (202 first), expiring share links, the rate
//! limit per client address, reproducible fault injection, and webhook event deliveries
//! to loopback listeners.

pub mod cli;
pub mod clock;
pub mod company;
mod controls;
pub mod cors;
mod cursor;
mod demo;
pub mod drift;
pub mod faults;
pub mod forward;
mod http;
pub mod ir;
mod json_shape;
mod legacy;
mod pdf;
pub mod public_url;
mod rate;
mod routes;
mod serve;
pub mod storage;
mod store;
mod v3;
pub mod watch;
mod webhooks;

/// Locks, surviving a panic elsewhere (the data stays usable for tests).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde::Serialize;

pub use company::Company;
pub use faults::Faults;

/// How list pages point at the next page. Both by default, so both client styles work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PagingStyle {
    #[default]
    Both,
    /// Only `paging.next`, an absolute URL.
    NextUrl,
    /// Only `paging.cursor`, to send back as `page`.
    Cursor,
}

/// How to start a sandbox.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Accepted key pairs (id, secret) of the first company.
    pub keys: Vec<(String, String)>,
    /// Companies beside the first, each with its own key and data, under the same rate
    /// limit per client address.
    pub companies: Vec<Company>,
    /// Requests per window per client address; `None` for no limit.
    pub rate_limit: Option<(u32, Duration)>,
    /// The same for the legacy `/api` interface, a budget of its own; `None` for no limit.
    pub legacy_rate_limit: Option<(u32, Duration)>,
    /// Load the demo fleet.
    pub demo: bool,
    /// Extra generated inspections (for export tests), on top of the demo ones.
    pub extra_inspections: usize,
    pub faults: Faults,
    pub paging: PagingStyle,
    /// Legacy `/api` accounts: (username, password, is manager).
    pub legacy_users: Vec<(String, String, bool)>,
    /// Legacy transactions to generate, a day apart, ending now.
    pub legacy_transactions: usize,
    /// The smallest part of a multipart upload but its last, checked when it completes.
    pub legacy_min_part_size: u64,
    /// Webhook listeners of both interfaces, kept over resets: `http://` loopback URLs.
    pub webhooks: Vec<String>,
    /// Headers (name, value) sent with every webhook delivery.
    pub webhook_headers: Vec<(String, String)>,
    /// Connections served at once; more wait to be accepted until one closes.
    pub max_connections: usize,
    /// How long a connection may take to send a request head, counted from when it
    /// starts waiting for one; so also how long a keep-alive connection may stay idle.
    pub header_timeout: Duration,
    /// The URL clients reach the sandbox at, when not its listening address (behind a
    /// proxy): every absolute URL in an answer names it. `http(s)://host[:port][/path]`.
    pub public_url: Option<String>,
    /// Take the public origin of each request from its `Forwarded` / `X-Forwarded-*`
    /// headers (only behind a proxy that sets them: anyone can send them).
    pub trust_forwarded: bool,
    /// Origins (`http://127.0.0.1:5173`, as [`cors::parse`] gives them) whose pages may call
    /// the sandbox from a browser: preflights answered, answers marked for them (see
    /// `cors.rs`). Empty (the default): no CORS at all.
    pub cors_origins: Vec<String>,
    /// The spec the routes and request checks follow, as the generator's IR; `None` for
    /// the one built in (`generated/ir.json`). An operation another spec adds is routed
    /// and checked, and answers 501 until the sandbox implements it.
    pub ir: Option<Arc<ir::Ir>>,
    /// Depart from the spec on purpose, in the ways `drift.rs` lists (for testing a drift
    /// watch).
    pub drift: bool,
    /// Where the storage origin listens (inspections' pre-signed PDF links); port 0 picks
    /// a free port.
    pub storage_addr: SocketAddr,
}

/// The legacy accounts a default sandbox has: a manager and a plain user.
pub const LEGACY_MANAGER: (&str, &str) = ("manager@example.com", "manager-pass");
pub const LEGACY_USER: (&str, &str) = ("user@example.com", "user-pass");

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            keys: vec![(DEMO_KEY.0.to_string(), DEMO_KEY.1.to_string())],
            companies: Vec::new(),
            rate_limit: Some((100, Duration::from_secs(10))),
            legacy_rate_limit: Some(DEFAULT_LEGACY_RATE_LIMIT),
            demo: true,
            extra_inspections: 0,
            faults: Faults::default(),
            paging: PagingStyle::Both,
            legacy_users: vec![
                (LEGACY_MANAGER.0.into(), LEGACY_MANAGER.1.into(), true),
                (LEGACY_USER.0.into(), LEGACY_USER.1.into(), false),
            ],
            legacy_transactions: 5,
            legacy_min_part_size: DEFAULT_MIN_PART_SIZE,
            webhooks: Vec::new(),
            webhook_headers: Vec::new(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            public_url: None,
            trust_forwarded: false,
            cors_origins: Vec::new(),
            ir: None,
            drift: false,
            storage_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        }
    }
}

/// The legacy `/api` rate limit of a default sandbox: v3's documented 100 requests per 10
/// seconds, since the legacy docs give no numbers (only that the one-time user endpoint is
/// rate limited, with a 429).
pub const DEFAULT_LEGACY_RATE_LIMIT: (u32, Duration) = (100, Duration::from_secs(10));

/// The smallest part of a multipart upload but its last: 5 MiB (the public docs: "Each
/// part must be at least 5MB in size (except the last part)"; the storage service behind
/// the pre-signed URLs counts 5 MiB).
pub const DEFAULT_MIN_PART_SIZE: u64 = 5 * 1024 * 1024;

/// Connections a default sandbox serves at once.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1_024;

/// How long a default sandbox waits for a request head (and keeps an idle connection).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The key pair a default sandbox accepts.
pub const DEMO_KEY: (&str, &str) = ("demo-key", "demo-secret");

/// Counters a test can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Requests to `/v3`, all of them.
    pub requests: u64,
    /// 429s answered because the rate limit was exceeded (not injected ones).
    pub rate_limited: u64,
    /// 429s answered on `/api` because the legacy rate limit was exceeded.
    pub legacy_rate_limited: u64,
    /// Faults injected.
    pub faults: u64,
    /// Units created by POST /units.
    pub units_created: u64,
    /// POST /units requests that reached the create handler (a repeated POST shows here).
    pub unit_posts: u64,
    /// Requests to the storage origin (pre-signed links), all of them.
    pub storage_requests: u64,
    /// Of those, requests that carried a credential (a key header, `Authorization`, a
    /// cookie), which a pre-signed link never needs.
    pub storage_with_credentials: u64,
    /// Faults injected on the storage origin.
    pub storage_faults: u64,
}

#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    rate_limited: AtomicU64,
    legacy_rate_limited: AtomicU64,
    faults: AtomicU64,
}

/// Shared state of a running sandbox.
#[derive(Debug)]
pub struct App {
    /// The v3 data of each company, the first's first (see `company.rs`).
    stores: Vec<tokio::sync::Mutex<store::Store>>,
    legacy: tokio::sync::Mutex<legacy::store::LegacyStore>,
    clock: clock::Clock,
    /// Accepted keys (id, secret) and the company each is for.
    keys: Vec<(String, String, usize)>,
    /// `http://127.0.0.1:PORT` or `--public-url`, for absolute links.
    origin: String,
    /// See `Options::trust_forwarded`.
    trust_forwarded: bool,
    limiter: rate::RateLimiter,
    legacy_limiter: rate::RateLimiter,
    /// See `Options::legacy_min_part_size`.
    legacy_min_part_size: u64,
    /// Where uploaded media is kept, on disk.
    spill: legacy::spill::SpillDir,
    faults: faults::FaultPlan,
    paging: PagingStyle,
    stats: Counters,
    /// What the data is loaded from, again on a reset.
    seed: Seed,
    controls: controls::Controls,
    webhooks: webhooks::Webhooks,
    /// The origin serving pre-signed links.
    storage: storage::Storage,
}

/// The options the data is loaded from.
#[derive(Debug, Clone)]
struct Seed {
    demo: bool,
    /// Generated inspections of each company, the first's first.
    extra_inspections: Vec<usize>,
    legacy_users: Vec<(String, String, bool)>,
    legacy_transactions: usize,
}

impl Seed {
    fn load(
        &self,
        now: DateTime<Utc>,
        origin: &str,
    ) -> (Vec<store::Store>, legacy::store::LegacyStore) {
        let stores = (self.extra_inspections.iter())
            .map(|&extra| {
                let mut store = store::Store::default();
                if self.demo {
                    demo::load(&mut store, now, origin);
                }
                for inspection in demo::generated_inspections(now, extra, origin) {
                    store.push_inspection(inspection);
                }
                store
            })
            .collect();
        let mut legacy_store = legacy::store::LegacyStore::default();
        let transactions = if self.demo {
            self.legacy_transactions
        } else {
            0
        };
        legacy::store::load(&mut legacy_store, &self.legacy_users, transactions, now);
        (stores, legacy_store)
    }
}

impl App {
    /// The v3 data of the company whose request is under way (see `company.rs`).
    fn store(&self) -> &tokio::sync::Mutex<store::Store> {
        &self.stores[company::current().min(self.stores.len() - 1)]
    }

    /// What `find` finds in the first company's data that has it: for what is reached
    /// without a key (share links, pre-signed PDFs).
    async fn find_in_any<T>(&self, find: impl Fn(&store::Store) -> Option<T>) -> Option<T> {
        for store in &self.stores {
            if let Some(found) = find(&*store.lock().await) {
                return Some(found);
            }
        }
        None
    }

    /// The company whose key this is.
    fn company_of(&self, id: &str, secret: &str) -> Option<usize> {
        (self.keys.iter())
            .find(|(i, s, _)| i == id && s == secret)
            .map(|k| k.2)
    }

    /// Back to the state at start-up: data, clock, rate-limit windows, fault draws,
    /// counters, canned answers, recorded requests and registered webhook listeners.
    async fn reset(&self) {
        self.clock.reset();
        let (stores, legacy_store) = self.seed.load(self.clock.now(), &self.origin);
        for (held, fresh) in self.stores.iter().zip(stores) {
            *held.lock().await = fresh;
        }
        *self.legacy.lock().await = legacy_store;
        self.limiter.reset();
        self.legacy_limiter.reset();
        self.faults.reset();
        for counter in [
            &self.stats.requests,
            &self.stats.rate_limited,
            &self.stats.legacy_rate_limited,
            &self.stats.faults,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        self.controls.reset();
        self.webhooks.reset();
        self.storage.reset();
    }
}

/// A running sandbox; it stops when dropped.
pub struct Sandbox {
    pub addr: SocketAddr,
    app: Arc<App>,
    /// The API's listener and the storage origin's.
    _shutdown: (
        tokio::sync::oneshot::Sender<()>,
        tokio::sync::oneshot::Sender<()>,
    ),
}

impl Sandbox {
    /// Binds, loads the data and serves in the background of the current tokio runtime.
    /// A `webhooks` URL that is not loopback http, or a bad header, is `InvalidInput`.
    pub async fn start(options: Options) -> std::io::Result<Sandbox> {
        let webhooks = webhooks::Webhooks::new(&options.webhooks, &options.webhook_headers)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        let addr = listener.local_addr()?;
        let storage_listener = tokio::net::TcpListener::bind(options.storage_addr).await?;
        let storage_origin = format!("http://{}", storage_listener.local_addr()?);
        let origin = options
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        let clock = clock::Clock::default();
        let companies = &options.companies;
        let seed = Seed {
            demo: options.demo,
            extra_inspections: std::iter::once(options.extra_inspections)
                .chain(companies.iter().map(|c| c.inspections))
                .collect(),
            legacy_users: options.legacy_users,
            legacy_transactions: options.legacy_transactions,
        };
        let keys = (options.keys.iter().map(|(i, s)| (i.clone(), s.clone(), 0)))
            .chain(
                (companies.iter().enumerate())
                    .map(|(n, c)| (c.key.0.clone(), c.key.1.clone(), n + 1)),
            )
            .collect();
        let (stores, legacy_store) = seed.load(clock.now(), &origin);
        let app = Arc::new(App {
            stores: stores.into_iter().map(tokio::sync::Mutex::new).collect(),
            legacy: tokio::sync::Mutex::new(legacy_store),
            clock,
            keys,
            origin,
            trust_forwarded: options.trust_forwarded,
            limiter: rate::RateLimiter::new(options.rate_limit),
            legacy_limiter: rate::RateLimiter::new(options.legacy_rate_limit),
            legacy_min_part_size: options.legacy_min_part_size,
            spill: legacy::spill::SpillDir::new(),
            faults: faults::FaultPlan::new(options.faults.clone()),
            paging: options.paging,
            stats: Counters::default(),
            seed,
            controls: controls::Controls::default(),
            webhooks,
            storage: storage::Storage::new(storage_origin, &options.faults),
        });
        let router = api_router(&app, options.ir, options.drift, options.cors_origins);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let limits = serve::Limits {
            max_connections: options.max_connections,
            header_timeout: options.header_timeout,
        };
        let (storage_tx, storage_rx) = tokio::sync::oneshot::channel::<()>();
        let storage_router = storage::router(app.clone());
        tokio::spawn(serve::run(
            storage_listener,
            storage_router,
            limits,
            storage_rx,
        ));
        tokio::spawn(serve::run(listener, router, limits, rx));
        Ok(Sandbox {
            addr,
            app,
            _shutdown: (tx, storage_tx),
        })
    }

    /// The legacy base URL (its paths start with `/api`), e.g. `http://127.0.0.1:41234`
    /// (the public URL, when one is set).
    pub fn legacy_base_url(&self) -> String {
        self.app.origin.clone()
    }

    /// The v3 base URL, e.g. `http://127.0.0.1:41234/v3`.
    pub fn base_url(&self) -> String {
        format!("{}/v3", self.app.origin)
    }

    /// The storage origin serving inspections' pre-signed PDF links (`pdf_share_url`),
    /// e.g. `http://127.0.0.1:41235`.
    pub fn storage_url(&self) -> String {
        self.app.storage.origin.clone()
    }

    /// What the storage origin does with links from now on (fail, expire, or serve).
    pub fn set_links(&self, mode: storage::LinkMode) {
        self.app.storage.set_mode(mode);
    }

    /// Moves the sandbox's clock forward (share links expire, timestamps move).
    pub fn advance(&self, by: chrono::Duration) {
        self.app.clock.advance(by);
    }

    pub async fn stats(&self) -> Stats {
        read_stats(&self.app).await
    }
}

async fn read_stats(app: &App) -> Stats {
    let (mut units_created, mut unit_posts) = (0, 0);
    for store in &app.stores {
        let store = store.lock().await;
        units_created += store.units_created;
        unit_posts += store.unit_posts;
    }
    Stats {
        requests: app.stats.requests.load(Ordering::Relaxed),
        rate_limited: app.stats.rate_limited.load(Ordering::Relaxed),
        legacy_rate_limited: app.stats.legacy_rate_limited.load(Ordering::Relaxed),
        faults: app.stats.faults.load(Ordering::Relaxed),
        units_created,
        unit_posts,
        storage_requests: app.storage.requests.load(Ordering::Relaxed),
        storage_with_credentials: app.storage.with_credentials.load(Ordering::Relaxed),
        storage_faults: app.storage.faulted.load(Ordering::Relaxed),
    }
}

/// The API's routes (both interfaces, the controls, the webhooks' controls) and the layers
/// around them, outermost last: drift, framework errors, the record and the script, the
/// public URL's rewriting, CORS.
fn api_router(
    app: &Arc<App>,
    ir: Option<Arc<ir::Ir>>,
    drift: bool,
    cors_origins: Vec<String>,
) -> Router {
    let ir = ir.unwrap_or_else(ir::embedded);
    let router = Router::new()
        .nest("/v3", v3::router(app.clone(), &ir))
        .merge(legacy::router(app.clone(), &ir))
        .route("/shared/{token}", get(v3::shared))
        .merge(controls::router())
        .merge(webhooks::router())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(http::BODY_LIMIT));
    // Inside the record: the requests a drifting answer met are recorded as ever.
    let router = match drift {
        true => router.layer(from_fn(drift::depart)),
        false => router,
    };
    let router = router
        // JSON bodies for the framework's own errors; canned answers stay as scripted.
        .layer(from_fn(http::framework_errors))
        // Outermost: every request is recorded, and a canned answer comes first.
        .layer(from_fn_with_state(app.clone(), controls::record_and_script))
        // Outside even that: canned answers' `{origin}` links are rewritten too.
        .layer(from_fn_with_state(app.clone(), public_url::rewrite))
        .with_state(app.clone());
    // Outermost: preflights are answered before anything records or checks them.
    match cors_origins.is_empty() {
        true => router,
        false => {
            let cors = Arc::new(cors::Cors::new(cors_origins, &ir));
            router.layer(from_fn_with_state(cors, cors::answer))
        }
    }
}

/// Paths the service does not have.
async fn not_found(uri: axum::http::Uri) -> axum::response::Response {
    http::error(
        axum::http::StatusCode::NOT_FOUND,
        format!("No route for {}", uri.path()),
    )
}
