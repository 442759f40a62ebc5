//! The generated v3 client against the sandbox's rate limit and seeded faults, over real
//! HTTP: 429 with `Retry-After`, pacing that never draws one, and exports that lose and
//! repeat nothing under faults when retried (resumed after interruptions: every language,
//! `tests/conformance/soak.yaml`).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use inspection_client::v3::*;
use inspection_client::{Error, RetryPolicy};
use sandbox::{Faults, Options, Sandbox};

#[path = "support/mod.rs"]
mod support;

use support::v3::client;

#[tokio::test]
async fn the_rate_limit_answers_429_with_retry_after() {
    let sandbox = Sandbox::start(Options {
        rate_limit: Some((3, Duration::from_secs(5))),
        ..Options::default()
    })
    .await
    .unwrap();
    let config = Client::default_config().no_pacing().max_attempts(1);
    let client = client(&sandbox, config);
    for _ in 0..3 {
        client.list_locations().send().await.unwrap();
    }
    let err = client.list_locations().send().await.unwrap_err();
    let api = support::api_error(&err);
    assert_eq!(api.status, 429);
    let retry = api.retry_after.unwrap();
    assert!(
        retry >= Duration::from_secs(1) && retry <= Duration::from_secs(5),
        "{retry:?}"
    );
    assert_eq!(sandbox.stats().await.rate_limited, 1);
}

#[tokio::test]
async fn pacing_keeps_the_sandbox_from_ever_answering_429() {
    let limit = (10, Duration::from_secs(1));
    // The sandbox counts a request when it reads it, the client when it sends it: on a
    // loaded machine (the tests run three at a time on two cores) a request can be read
    // tens of milliseconds late, after one sent later, and land in the window ahead
    // (a cold CI run drew one 429 so). The sandbox's window is 50 ms shorter than the
    // client's for that, and a pacer sending 11 a second still draws 429s.
    let counted = (limit.0, limit.1 - Duration::from_millis(50));
    let run = |paced: bool| async move {
        let sandbox = Sandbox::start(Options {
            rate_limit: Some(counted),
            ..Options::default()
        })
        .await
        .unwrap();
        let config = if paced {
            Client::default_config().rate_limit(limit.0, limit.1)
        } else {
            Client::default_config().no_pacing()
        };
        let client = client(&sandbox, config);
        let start = Instant::now();
        for _ in 0..25 {
            client.list_locations().send().await.unwrap();
        }
        (sandbox.stats().await, start.elapsed())
    };
    let (paced, took) = run(true).await;
    assert_eq!(paced.rate_limited, 0, "paced run: {paced:?}");
    assert_eq!(paced.requests, 25);
    assert!(
        took >= Duration::from_secs(2),
        "25 requests at 10/s took {took:?}"
    );
    let (unpaced, _) = run(false).await;
    assert!(
        unpaced.rate_limited > 0,
        "the unpaced run should exceed the quota: {unpaced:?}"
    );
}

/// Exports 2,000 inspections with a tenth of requests faulted: every record exactly once,
/// and POSTs never repeated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_under_faults_loses_nothing_and_repeats_nothing() {
    let options = Options {
        extra_inspections: 2_000,
        demo: true,
        faults: Faults::mixed(42, 0.10),
        // The raised quota, on both sides.
        rate_limit: Some((200, Duration::from_secs(10))),
        ..Options::default()
    };
    let sandbox = Sandbox::start(options).await.unwrap();
    let config = Client::default_config()
        .rate_limit(200, Duration::from_secs(10))
        .retry(RetryPolicy::new(
            8,
            Duration::from_millis(20),
            Duration::from_secs(2),
        ));
    let client = client(&sandbox, config);

    let start = Instant::now();
    let exported: Vec<Inspection> = client
        .list_inspections()
        .per_page(20)
        .stream()
        .try_collect()
        .await
        .unwrap();
    let took = start.elapsed();
    let stats = sandbox.stats().await;
    let ids: BTreeSet<&str> = exported.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(exported.len(), 2_003, "every record once");
    assert_eq!(ids.len(), 2_003, "no record twice");
    assert!(stats.faults >= 5, "{stats:?}");
    assert_eq!(stats.rate_limited, 0, "{stats:?}");
    eprintln!(
        "export: {} inspections in {took:?}, {} requests to the sandbox ({} faulted, {} rate-limited)",
        exported.len(),
        stats.requests,
        stats.faults,
        stats.rate_limited
    );

    // Creates under the same faults: some fail (a cut answer may hide an applied create),
    // none is retried after it may have been applied, so none is ever created twice.
    let mut outcomes = Vec::new();
    for n in 0..40 {
        let result = client
            .create_unit(NewUnit::new(format!("EXP-{n:03}")))
            .send()
            .await;
        outcomes.push(result);
    }
    assert!(
        outcomes
            .iter()
            .all(|r| r.as_ref().err().and_then(Error::status) != Some(409)),
        "a POST was repeated"
    );
    let units: Vec<Unit> = client
        .list_units()
        .per_page(100)
        .stream()
        .try_collect()
        .await
        .unwrap();
    let created: Vec<&str> = units
        .iter()
        .map(|u| u.reference_number.as_deref().unwrap_or_default())
        .filter(|r| r.starts_with("EXP-"))
        .collect();
    // Every POST that reached the create handler created its unit: had the client sent a
    // POST again after one was applied, the handler would have seen it twice (and 409'd).
    let stats = sandbox.stats().await;
    assert_eq!(stats.unit_posts as usize, created.len(), "{stats:?}");
    assert!(created.len() >= outcomes.iter().filter(|r| r.is_ok()).count());
    assert!(
        created.len() < 40,
        "some creates were cut off by faults: {stats:?}"
    );
}
