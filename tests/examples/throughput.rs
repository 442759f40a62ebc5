//! Requests per second through the generated client against the in-process sandbox
//! (rate limit and pacing off): `cargo run --release -p tests --example throughput`.

use std::time::Instant;

use inspection_client::v3::{ApiKey, Client};
use sandbox::{DEMO_KEY, Options, Sandbox};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sandbox = Sandbox::start(Options {
        rate_limit: None,
        ..Options::default()
    })
    .await?;
    let config = Client::default_config().no_pacing();
    let client = Client::with_config(
        &sandbox.base_url(),
        ApiKey::new(DEMO_KEY.0, DEMO_KEY.1),
        config,
    )?;
    let n = 5_000;
    for concurrency in [1usize, 8] {
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..concurrency {
            let client = client.clone();
            tasks.push(tokio::spawn(async move {
                for _ in 0..n / concurrency {
                    client.get_unit("unt_001").send().await?;
                }
                Ok::<_, inspection_client::Error>(())
            }));
        }
        for t in tasks {
            t.await??;
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "GET /units/{{unit_id}}: {n} requests, {concurrency} at a time: {:.0} requests/s",
            n as f64 / secs
        );
    }
    Ok(())
}
