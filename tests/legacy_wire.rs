//! The legacy client's requests on the wire, recorded by a local server.

#[path = "support/mod.rs"]
mod support;

use chrono::{TimeZone, Utc};
use inspection_client::legacy::*;
use inspection_client::runtime::model::TimeOrRange;
use support::server::{Canned, Server};

const TOKEN: &str = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.e30.sig";

async fn logged_in() -> (Server, Client) {
    let server = Server::start().await;
    server.push(Canned::json(
        200,
        &format!(r#"{{"auth_token": "{TOKEN}", "user": {{"id": "42"}}}}"#),
    ));
    let base = format!("http://{}", server.addr);
    let credentials = AuthenticateRequest::new(Credentials::new("user@example.com", "pw-123"));
    let client = Client::login(&base, credentials).await.unwrap();
    let login = server.take_one();
    assert_eq!(
        (login.method.as_str(), login.uri.as_str()),
        ("POST", "/api/users/authenticate")
    );
    assert_eq!(login.header("accept"), Some("application/json; version=1"));
    assert_eq!(
        login.header("authorization"),
        None,
        "the login carries no token"
    );
    assert_eq!(
        login.json(),
        serde_json::json!({"user": {"username": "user@example.com", "password": "pw-123"}})
    );
    (server, client)
}

#[tokio::test]
async fn the_token_and_version_go_on_every_request() {
    let (server, client) = logged_in().await;
    server.push(Canned::json(200, r#"{"user": {"id": "42"}}"#));
    client.get_user(UserPathRef::Me).send().await.unwrap();
    let r = server.take_one();
    assert_eq!(r.uri, "/api/users/self");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Token {TOKEN}").as_str())
    );
    assert_eq!(r.header("accept"), Some("application/json; version=1"));
}

#[tokio::test]
async fn filters_go_as_json_text_and_ids_as_one_segment() {
    let (server, client) = logged_in().await;
    server.push(Canned::json(200, r#"{"transactions": [], "links": {}}"#));
    let from = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let to = Utc.with_ymd_and_hms(2026, 2, 1, 0, 0, 0).unwrap();
    let filter = AssetTransactionFilter::default()
        .created_at(TimeOrRange::Between(from, to))
        .check_in(None)
        .damage(false);
    client
        .list_asset_transactions(AssetRef::external("WMW/42"))
        .limit(2)
        .after_id("41")
        .filter(filter)
        .send()
        .await
        .unwrap();
    let r = server.take_one();
    let (path, query) = r.uri.split_once('?').unwrap();
    assert_eq!(path, "/api/assets/_WMW%2F42/transactions");
    let pairs: Vec<(String, String)> = query
        .split('&')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), percent_decode(v))
        })
        .collect();
    assert_eq!(pairs[0], ("after_id".into(), "41".into()));
    assert_eq!(pairs[1], ("limit".into(), "2".into()));
    assert_eq!(pairs[2].0, "filter");
    let sent: serde_json::Value = serde_json::from_str(&pairs[2].1).unwrap();
    assert_eq!(
        sent,
        serde_json::json!({"check_in": null, "damage": false,
                           "created_at": ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"]})
    );
}

/// Decodes `application/x-www-form-urlencoded` text.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}
