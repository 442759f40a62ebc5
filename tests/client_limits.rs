//! What bounds the Rust client keeps against a server that misbehaves on purpose: bodies
//! that never end, waits and windows near `Duration::MAX`, secrets echoed back. The shared
//! rules are conformance scenarios; these are the cases a scenario cannot stage (endless
//! bodies, memory, the legacy token) and the Rust types (`source()`, `Resume` text).

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use inspection_client::runtime::Resume;
use inspection_client::v3::*;
use inspection_client::{Config, Error, RetryPolicy, legacy};
use support::server::{Canned, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn config() -> Config {
    Client::default_config().no_pacing().retry(RetryPolicy::new(
        1,
        Duration::from_millis(1),
        Duration::from_secs(5),
    ))
}

fn client(base: &str, config: Config) -> Client {
    Client::with_config(base, ApiKey::new("key-id", "key-secret-123"), config).unwrap()
}

/// A server that answers every request with `head` and then a chunked body of `chunk`
/// repeated forever; counts the body bytes it managed to send.
async fn endless(head: &'static str, chunk: &'static [u8]) -> (String, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicU64::new(0));
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let frame = [format!("{:x}\r\n", chunk.len()).as_bytes(), chunk, b"\r\n"].concat();
                while socket.write_all(&frame).await.is_ok() {
                    counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                }
            });
        }
    });
    (base, sent)
}

static MEGABYTE_OF_X: [u8; 1 << 20] = [b'x'; 1 << 20];

#[tokio::test]
async fn a_success_body_that_never_ends_is_cut_at_the_limit() {
    let head =
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
    let (base, sent) = endless(head, &MEGABYTE_OF_X).await;
    let client = client(&base, config().max_response_bytes(4 << 20));
    let result = tokio::time::timeout(Duration::from_secs(30), client.get_unit("u1").send())
        .await
        .expect("the client kept reading an endless body");
    let err = result.unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { limit, .. } if *limit == 4 << 20),
        "{err:?}"
    );
    assert!(err.to_string().contains("GET /units/{unit_id}"), "{err}");
    // What the server got out before the client stopped: the limit, plus what the
    // sockets' buffers hold, never the endless rest.
    let sent = sent.load(Ordering::Relaxed);
    assert!(
        sent < 64 << 20,
        "{sent} bytes were sent: the client read on"
    );
}

#[tokio::test]
async fn an_error_body_that_never_ends_gives_its_message_from_the_start() {
    let head = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
    let (base, sent) = endless(head, &MEGABYTE_OF_X).await;
    let client = client(&base, config());
    let result = tokio::time::timeout(Duration::from_secs(30), client.get_unit("u1").send())
        .await
        .expect("the client kept reading an endless error body");
    match result.unwrap_err() {
        Error::Api(api) => {
            assert_eq!(api.status, 400);
            let message = api.message.unwrap_or_default();
            assert!(
                message.starts_with("xxxx") && message.len() <= 500,
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(sent.load(Ordering::Relaxed) < 64 << 20);
}

#[tokio::test]
async fn a_body_with_a_content_length_over_the_limit_is_refused() {
    let server = Server::start().await;
    server.push(Canned::json(
        200,
        &format!(r#"{{"pad": "{}"}}"#, "y".repeat(2_000)),
    ));
    let client = client(&server.base(), config().max_response_bytes(1_000));
    let err = client.get_unit("u1").send().await.unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { limit: 1_000, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_pdf_over_the_limit_streams_to_a_writer() {
    let pdf: Vec<u8> = [b"%PDF-1.7\n".as_slice(), &[b'p'; 300_000], b"%%EOF\n"].concat();
    let server = Server::start().await;
    server.push(Canned::bytes(200, "application/pdf", &pdf));
    server.push(Canned::status(202));
    server.push(Canned::bytes(200, "application/pdf", &pdf));
    server.push(Canned::bytes(200, "application/pdf", &pdf));
    let client = client(
        &server.base(),
        config()
            .max_response_bytes(100_000)
            .poll_interval(Duration::from_millis(1)),
    );
    let err = client.get_inspection("i1").pdf().await.unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");

    // Through a 202, then the whole file, written as it came.
    let mut out: Vec<u8> = Vec::new();
    let written = client.get_inspection("i1").pdf_to(&mut out).await.unwrap();
    assert_eq!(written, pdf.len() as u64);
    assert_eq!(out, pdf);

    let link = format!("{}/files/share.pdf?sig=abc", server.base());
    let mut out: Vec<u8> = Vec::new();
    let written = client.fetch_presigned_to(&link, &mut out).await.unwrap();
    assert_eq!((written, out.len()), (pdf.len() as u64, pdf.len()));
    assert_eq!(server.recorded()[3].header("api-key-secret"), None);
}

#[tokio::test]
async fn waits_and_windows_near_duration_max_never_panic() {
    let server = Server::start().await;
    let unit = r#"{"id": "u1", "reference_number": "R-1", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}"#;
    // Timeouts, pacing windows and polling intervals as long as a Duration can be.
    let huge = Client::default_config()
        .rate_limit(1_000, Duration::MAX)
        .timeout(Duration::MAX)
        .poll_interval(Duration::MAX);
    let client_huge = client(&server.base(), huge);
    server.push(Canned::json(200, unit));
    client_huge.get_unit("u1").send().await.unwrap();

    // A Retry-After beyond any u64 of seconds: reported at once, not slept on.
    let client = client(&server.base(), config());
    let forever = "99999999999999999999999999";
    server.push(Canned::json(429, r#"{"errors": "slow down"}"#).header("retry-after", forever));
    let err = tokio::time::timeout(Duration::from_secs(5), client.get_unit("u1").send())
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.retry_after == Some(Duration::MAX)),
        "{err:?}"
    );
    server.push(Canned::status(202).header("retry-after", forever));
    let err = tokio::time::timeout(Duration::from_secs(5), client.get_inspection("i").pdf())
        .await
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(&err, Error::NotReady { attempts: 1, retry_after: Some(d), .. } if *d == Duration::MAX),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("longer than the client waits"),
        "{err}"
    );
}

#[tokio::test]
async fn the_legacy_token_and_password_are_scrubbed_from_errors() {
    let server = Server::start().await;
    let token = "eyJhbGciOiJIUzI1NiJ9.tok-ABCDEF";
    server.push(Canned::json(
        401,
        r#"{"errors": "password hunter2-secret is wrong for sam"}"#,
    ));
    let credentials =
        || legacy::AuthenticateRequest::new(legacy::Credentials::new("sam", "hunter2-secret"));
    let config = legacy::Client::default_config().no_pacing().max_attempts(1);
    let err = legacy::Client::login_with_config(&server.base(), credentials(), config.clone())
        .await
        .unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(!text.contains("hunter2-secret"), "{text}");
    assert!(
        text.contains("password <redacted> is wrong for sam"),
        "{text}"
    );

    server.push(Canned::json(
        200,
        &format!(r#"{{"auth_token": "{token}"}}"#),
    ));
    let client = legacy::Client::login_with_config(&server.base(), credentials(), config)
        .await
        .unwrap();
    server.push(Canned::json(
        403,
        &format!(r#"{{"errors": "token {token} may not list locations"}}"#),
    ));
    let err = client.list_locations().send().await.unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(!text.contains(token), "{text}");
    assert!(text.contains("token <redacted> may not"), "{text}");
}

#[tokio::test]
async fn an_interrupted_walk_chains_its_cause_and_its_resume_point_round_trips() {
    let server = Server::start().await;
    let link = format!("{}/units?page=B", server.base());
    server.push(Canned::json(
        200,
        &format!(r#"{{"data": [], "paging": {{"next": "{link}"}}}}"#),
    ));
    server.push(Canned::json(503, r#"{"errors": "down"}"#));
    let client = client(&server.base(), config());
    let mut pages = client.list_units().pages();
    use futures_util::TryStreamExt;
    pages.try_next().await.unwrap();
    let err = pages.try_next().await.unwrap_err();
    let resume = err.resume().expect("a resume point").clone();
    assert_eq!(err.status(), Some(503));
    let source = std::error::Error::source(&err).expect("the page's error is the source");
    assert!(
        source.to_string().contains("answered 503: down"),
        "{source}"
    );
    let expected = format!("link:{link}");
    assert_eq!(resume.to_string(), expected);
    assert_eq!(expected.parse::<Resume>().unwrap(), resume);
    assert!("page=B".parse::<Resume>().is_err());

    // Resuming calls the link itself, first.
    server.push(Canned::json(200, r#"{"data": []}"#));
    let page = client.list_units().resume(resume).send().await.unwrap();
    assert!(page.data.is_empty());
    assert!(server.recorded()[2].uri.ends_with("/units?page=B"));
}

#[tokio::test]
async fn an_api_error_carries_headers_request_id_and_the_scrubbed_body() {
    let server = Server::start().await;
    server.push(
        Canned::json(
            422,
            r#"{"errors": "key-secret-123 is not allowed", "field": "vin"}"#,
        )
        .header("x-request-id", "req-42")
        .header("set-cookie", "session=abc")
        .header("x-echo", "key-secret-123"),
    );
    let err = client(&format!("{}/v3", server.base()), config())
        .get_unit("u1")
        .send()
        .await
        .unwrap_err();
    let api = support::api_error(&err);
    assert_eq!(api.status, 422);
    assert_eq!(api.request_id.as_deref(), Some("req-42"));
    assert_eq!(
        api.body,
        r#"{"errors": "<redacted> is not allowed", "field": "vin"}"#
    );
    assert_eq!(api.message.as_deref(), Some("<redacted> is not allowed"));
    assert_eq!(api.headers["x-echo"], "<redacted>");
    assert!(api.headers.get("set-cookie").is_none());
    assert!(!format!("{err:?}").contains("key-secret-123"));
}

#[tokio::test]
async fn a_transport_error_chains_to_its_cause_without_the_url() {
    // Nothing listens on this port once the listener is dropped.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = client(&format!("http://127.0.0.1:{port}/v3"), config())
        .get_unit("u1")
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    let cause = std::error::Error::source(&err).expect("the HTTP error underneath");
    assert!(!cause.to_string().contains("127.0.0.1"), "{cause}");
}
