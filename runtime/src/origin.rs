//! Where credentials may go: HTTPS only (plain HTTP for loopback hosts, for the sandbox),
//! and only to the base URL's own origin.

use url::{Host, Url};

/// Accepts `https://` URLs, and `http://` ones whose host is loopback or one of
/// `plain_http_hosts` (the user's explicit opt-in).
pub fn check_secure(url: &Url, what: &str, plain_http_hosts: &[String]) -> Result<(), String> {
    // Credentials belong in the auth, where they are kept out of Debug, logs and errors; in
    // the URL they would be printed with it.
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "{what} must not carry a user name or password ({}); pass credentials as auth instead",
            origin(url)
        ));
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http"
            if url
                .host_str()
                .is_some_and(|h| plain_http_hosts.iter().any(|p| p.eq_ignore_ascii_case(h))) =>
        {
            tracing::warn!(
                host = url.host_str(),
                "plain http to a host the config allows (Config::danger_plain_http_to)"
            );
            Ok(())
        }
        "http" => Err(format!(
            "{what} must use https (plain http is only allowed for loopback hosts, or a host named in Config::danger_plain_http_to): {}",
            origin(url)
        )),
        other => Err(format!("{what} has unsupported scheme `{other}`")),
    }
}

pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Same scheme, host and port.
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// `https://host:port`, never the path or query (which may hold a signature).
pub fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}
