//! A sandbox and a v3 client of it, unpaced (the sandbox's own rate limit is what a test
//! sets in its options).
#![allow(dead_code)] // each test file uses a different part of the support module

use inspection_client::v3::{ApiKey, Client};
use sandbox::{DEMO_KEY, Options, Sandbox};

pub async fn sandbox(options: Options) -> (Sandbox, Client) {
    let sandbox = Sandbox::start(options).await.unwrap();
    let config = Client::default_config().no_pacing();
    let client = Client::with_config(
        &sandbox.base_url(),
        ApiKey::new(DEMO_KEY.0, DEMO_KEY.1),
        config,
    )
    .unwrap();
    (sandbox, client)
}

/// A default sandbox (the demo fleet) and its client.
pub async fn demo() -> (Sandbox, Client) {
    sandbox(Options::default()).await
}
