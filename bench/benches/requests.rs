//! Requests through the generated client against the in-process sandbox (rate limit and
//! pacing off), one at a time and eight at a time, against the same requests sent with a
//! bare `reqwest::Client` with the same timeouts: the difference is what the client itself costs per request
//! (building the request, auth headers, pacing and retry bookkeeping, decoding the answer),
//! in wall time and in CPU time.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::future::try_join_all;
use inspection_client::v3::{ApiKey, Client, Unit};
use sandbox::{DEMO_KEY, Options, Sandbox};

const CONCURRENT: usize = 8;

fn requests(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let sandbox = rt
        .block_on(Sandbox::start(Options {
            rate_limit: None,
            ..Options::default()
        }))
        .expect("the sandbox starts");
    let base = sandbox.base_url();
    let (client, bare) = clients(&base);
    let url = format!("{base}/units/unt_001");
    // The bare baseline does what any client must: send with the key headers, read the
    // body and parse it into the same type.
    let bare_get = |bare: reqwest::Client, url: String| async move {
        let body = bare
            .get(&url)
            .header("api-key-id", DEMO_KEY.0)
            .header("api-key-secret", DEMO_KEY.1)
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await?;
        Ok::<Unit, Box<dyn std::error::Error + Send + Sync>>(
            serde_json::from_slice(&body).expect("a unit"),
        )
    };

    let mut group = c.benchmark_group("requests");
    group.throughput(Throughput::Elements(1));
    group.bench_function("client_sequential", |b| {
        b.iter(|| rt.block_on(client.get_unit("unt_001").send()).unwrap())
    });
    group.bench_function("bare_sequential", |b| {
        b.iter(|| rt.block_on(bare_get(bare.clone(), url.clone())).unwrap())
    });
    group.throughput(Throughput::Elements(CONCURRENT as u64));
    group.bench_function("client_concurrent8", |b| {
        b.iter(|| {
            rt.block_on(try_join_all(
                (0..CONCURRENT).map(|_| client.get_unit("unt_001").send()),
            ))
            .unwrap()
        })
    });
    group.bench_function("bare_concurrent8", |b| {
        b.iter(|| {
            rt.block_on(try_join_all(
                (0..CONCURRENT).map(|_| bare_get(bare.clone(), url.clone())),
            ))
            .unwrap()
        })
    });
    group.finish();

    // CPU time of the calling side alone per request, so that waiting on sockets and the
    // scheduler does not count, nor does the sandbox: a client and a bare reqwest of their
    // own, driven by a runtime on this thread, where their connections' tasks then run too,
    // while the sandbox answers from `rt`'s threads. The difference between the two is the
    // client's own CPU per request.
    let here = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime on this thread");
    let (client, bare) = clients(&base);
    let mut cpu = Criterion::default()
        .with_measurement(ThreadCpu)
        .configure_from_args();
    let mut group = cpu.benchmark_group("requests_cpu");
    group.bench_function("client_sequential", |b| {
        b.iter(|| here.block_on(client.get_unit("unt_001").send()).unwrap())
    });
    group.bench_function("bare_sequential", |b| {
        b.iter(|| here.block_on(bare_get(bare.clone(), url.clone())).unwrap())
    });
    group.finish();
    black_box(sandbox);
}

/// The client (pacing off) and a bare reqwest with the same HTTP stack settings as the
/// client's (its default timeouts): what reqwest costs for them is the HTTP stack's, not
/// the client's.
fn clients(base: &str) -> (Client, reqwest::Client) {
    let client = Client::with_config(
        base,
        ApiKey::new(DEMO_KEY.0, DEMO_KEY.1),
        Client::default_config().no_pacing(),
    )
    .expect("a client");
    let bare = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .expect("a reqwest client");
    (client, bare)
}

/// CPU time used by this thread, in nanoseconds.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    assert!(ok, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, shown like wall time.
        static NANOS: WallTime = WallTime;
        NANOS.formatter()
    }
}

criterion_group!(benches, requests);
criterion_main!(benches);
