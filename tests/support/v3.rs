//! A sandbox and a v3 client of it, unpaced (the sandbox's own rate limit is what a test
//! sets in its options).
#![allow(dead_code)] // each test file uses a different part of the support module

use inspection_client::Config;
use inspection_client::v3::{ApiKey, Client};
use sandbox::{DEMO_KEY, Options, Sandbox};

pub async fn sandbox(options: Options) -> (Sandbox, Client) {
    let sandbox = Sandbox::start(options).await.unwrap();
    let client = client(&sandbox, Client::default_config().no_pacing());
    (sandbox, client)
}

/// A client of `sandbox` with the demo key and `config`.
pub fn client(sandbox: &Sandbox, config: Config) -> Client {
    Client::with_config(
        &sandbox.base_url(),
        ApiKey::new(DEMO_KEY.0, DEMO_KEY.1),
        config,
    )
    .unwrap()
}

/// A default sandbox (the demo fleet) and its client.
pub async fn demo() -> (Sandbox, Client) {
    sandbox(Options::default()).await
}
