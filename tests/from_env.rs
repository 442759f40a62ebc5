//! `Client::from_env()` (issue 14, point 7). One test in its own binary: it sets process
//! environment variables, which no other test may race with.

use inspection_client::Error;
use inspection_client::v3::Client;

#[test]
fn a_client_from_the_environment_names_what_is_missing_and_never_a_value() {
    let set = |name: &str, value: &str| {
        // SAFETY: this binary's only test; no other thread reads the environment.
        unsafe { std::env::set_var(name, value) }
    };
    set("INSPECTION_V3_BASE_URL", "http://127.0.0.1:9/v3");
    set("INSPECTION_V3_API_KEY_ID", "key-id");
    // SAFETY: as above.
    unsafe { std::env::remove_var("INSPECTION_V3_API_KEY_SECRET") };
    let err = Client::from_env().unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("INSPECTION_V3_API_KEY_SECRET")),
        "{err}"
    );

    set("INSPECTION_V3_API_KEY_SECRET", "env-secret-value");
    let client = Client::from_env().unwrap();
    assert_eq!(client.core().base_url().as_str(), "http://127.0.0.1:9/v3");
    assert!(!format!("{client:?}").contains("env-secret-value"));

    set("INSPECTION_V3_BASE_URL", "http://example.com/v3");
    let err = Client::from_env().unwrap_err();
    assert!(
        matches!(err, Error::Config(_)),
        "plain http off loopback: {err}"
    );
}
