//! `Client::from_env()` and `legacy::Client::login_from_env()` (issue 14, point 7). One
//! test in its own binary: it sets process environment variables, which no other thread
//! may race with.

use inspection_client::Error;
use inspection_client::v3::Client;

#[tokio::test(flavor = "current_thread")]
async fn clients_from_the_environment_name_what_is_missing_and_never_a_value() {
    v3_from_env();
    legacy_login_from_env().await;
}

fn v3_from_env() {
    let set = |name: &str, value: &str| {
        // SAFETY: the binary's only test, before anything else runs.
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

/// The legacy interface logs in from `INSPECTION_LEGACY_*`: a missing variable is named, a
/// wrong password is the service's 401, and neither error nor `Debug` shows the password.
async fn legacy_login_from_env() {
    use inspection_client::legacy;
    let sandbox = sandbox::Sandbox::start(sandbox::Options::default())
        .await
        .unwrap();
    let set = |name: &str, value: &str| {
        // SAFETY: the binary's only test; the sandbox runs on this thread's runtime.
        unsafe { std::env::set_var(name, value) }
    };
    let (user, password) = sandbox::LEGACY_USER;
    set("INSPECTION_LEGACY_BASE_URL", &sandbox.legacy_base_url());
    set("INSPECTION_LEGACY_USERNAME", user);
    // SAFETY: as above.
    unsafe { std::env::remove_var("INSPECTION_LEGACY_PASSWORD") };
    let err = legacy::Client::login_from_env().await.unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("INSPECTION_LEGACY_PASSWORD")),
        "{err}"
    );

    set("INSPECTION_LEGACY_PASSWORD", "not-the-password-xyz");
    let err = legacy::Client::login_from_env().await.unwrap_err();
    assert_eq!(err.status(), Some(401), "{err}");
    assert!(!format!("{err} {err:?}").contains("not-the-password-xyz"));

    set("INSPECTION_LEGACY_PASSWORD", password);
    let client = legacy::Client::login_from_env().await.unwrap();
    assert!(!format!("{client:?}").contains(password));
    let locations = client.list_locations().send().await.unwrap();
    assert!(!locations.locations.is_empty());
}
