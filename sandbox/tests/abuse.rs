//! The sandbox under abuse, over raw TCP: a request head that never ends and an idle
//! connection are dropped within the header timeout, connections beyond the limit wait,
//! and every request the framework refuses (a body that is not JSON, too large or
//! malformed, a path or query that does not parse, a method not allowed, a query that is
//! not UTF-8) gets a `{"errors": ...}` body with its status.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use sandbox::{Options, Sandbox};

const KEYS: [&str; 2] = ["api-key-id: demo-key", "api-key-secret: demo-secret"];
const JSON: &str = "Content-Type: application/json";
const LEGACY: &str = "Accept: application/json; version=1";
/// The sandbox's body limit (axum's default).
const LIMIT: usize = 2 * 1024 * 1024;

/// An answer read off the wire.
#[derive(Debug)]
struct Answer {
    status: u16,
    /// Lowercase names.
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `errors` text of a JSON error body; fails the test for any other body.
    fn errors(&self) -> String {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:?}"
        );
        let body: Value = serde_json::from_str(&self.body).expect("a JSON body");
        body["errors"]
            .as_str()
            .unwrap_or_else(|| panic!("no `errors` text: {self:?}"))
            .to_string()
    }

    /// Asserts the answer is `status` with a JSON error whose text holds `naming`.
    #[track_caller]
    fn refused(&self, status: u16, naming: &str) {
        assert_eq!(self.status, status, "{self:?}");
        assert!(self.errors().contains(naming), "{self:?}");
    }
}

/// `METHOD PATH`, the headers and body, as one HTTP/1.1 request (keep-alive).
fn request(line: &str, headers: &[&str], body: &str) -> String {
    let mut head = format!("{line} HTTP/1.1\r\nHost: sandbox\r\n");
    for h in headers {
        head.push_str(&format!("{h}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    head
}

/// Reads one answer: its head, then `Content-Length` bytes of body (to the end without).
async fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.expect("an answer");
        assert!(
            n > 0,
            "closed before an answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[head_end..].to_vec();
    match headers.iter().find(|(n, _)| n == "content-length") {
        Some((_, length)) => {
            let length: usize = length.parse().unwrap();
            while body.len() < length {
                let mut chunk = [0u8; 4096];
                let n = stream.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the body broke off");
                body.extend_from_slice(&chunk[..n]);
            }
        }
        None => {
            stream.read_to_end(&mut body).await.unwrap();
        }
    }
    Answer {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

/// One request on a new connection.
async fn send(sandbox: &Sandbox, line: &str, headers: &[&str], body: &str) -> Answer {
    let mut stream = TcpStream::connect(sandbox.addr).await.unwrap();
    stream
        .write_all(request(line, headers, body).as_bytes())
        .await
        .unwrap();
    read_answer(&mut stream).await
}

/// Whether the server closes the connection (end of stream or reset) within `bound`,
/// reading and dropping whatever it still sends.
async fn closed_within(stream: &mut TcpStream, bound: Duration) -> bool {
    let wait = async {
        let mut chunk = [0u8; 1024];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(bound, wait).await.is_ok()
}

fn quick_timeout() -> Options {
    Options {
        header_timeout: Duration::from_millis(300),
        ..Options::default()
    }
}

#[tokio::test]
async fn a_request_head_that_stalls_or_trickles_is_dropped_within_the_header_timeout() {
    let sandbox = Sandbox::start(quick_timeout()).await.unwrap();

    // Half a request line, then nothing.
    let started = Instant::now();
    let mut stalled = TcpStream::connect(sandbox.addr).await.unwrap();
    stalled.write_all(b"GET /v3/units HT").await.unwrap();
    assert!(
        closed_within(&mut stalled, Duration::from_secs(5)).await,
        "a stalled head keeps its connection"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "closed before the timeout: {:?}",
        started.elapsed()
    );

    // Nothing at all.
    let mut silent = TcpStream::connect(sandbox.addr).await.unwrap();
    assert!(
        closed_within(&mut silent, Duration::from_secs(5)).await,
        "a silent connection stays open"
    );

    // A byte every 50 ms: each one arrives in time, the head as a whole does not.
    let trickle = TcpStream::connect(sandbox.addr).await.unwrap();
    let (mut reader, mut writer) = trickle.into_split();
    let feeder = tokio::spawn(async move {
        for byte in b"GET /v3/units HTTP/1.1\r\nHost: sandbox\r\nX-Slow: ".repeat(10) {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let started = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        let mut chunk = [0u8; 1024];
        while let Ok(n) = reader.read(&mut chunk).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    feeder.abort();
    assert!(closed.is_ok(), "a trickled head keeps its connection");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_but_a_slow_answer_is_not() {
    let sandbox = Sandbox::start(quick_timeout()).await.unwrap();
    let script = json!({"method": "GET", "path": "/slow", "delay_ms": 900, "body": {"ok": true}});
    let added = send(
        &sandbox,
        "POST /_sandbox/script",
        &[JSON],
        &script.to_string(),
    )
    .await;
    assert_eq!(added.status, 200, "{added:?}");

    let mut stream = TcpStream::connect(sandbox.addr).await.unwrap();
    stream
        .write_all(request("GET /slow", &[], "").as_bytes())
        .await
        .unwrap();
    // The head arrived in time; the answer takes three times the header timeout.
    let slow = read_answer(&mut stream).await;
    assert_eq!((slow.status, slow.body.as_str()), (200, r#"{"ok":true}"#));
    assert_eq!(slow.header("content-type"), Some("application/json"));
    stream
        .write_all(request("GET /_sandbox/script", &[], "").as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut stream).await.status, 200, "kept alive");

    let idle_from = Instant::now();
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "an idle keep-alive connection stays open"
    );
    assert!(idle_from.elapsed() >= Duration::from_millis(250));
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_until_one_closes() {
    let sandbox = Sandbox::start(Options {
        max_connections: 2,
        ..Options::default()
    })
    .await
    .unwrap();
    let stats = request("GET /_sandbox/stats", &[], "");
    // Two connections, served and kept open.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(sandbox.addr).await.unwrap();
        stream.write_all(stats.as_bytes()).await.unwrap();
        assert_eq!(read_answer(&mut stream).await.status, 200);
        held.push(stream);
    }

    // The third is queued by the kernel but not accepted: no answer while both are open.
    let mut third = TcpStream::connect(sandbox.addr).await.unwrap();
    third.write_all(stats.as_bytes()).await.unwrap();
    let early = tokio::time::timeout(Duration::from_millis(500), read_answer(&mut third)).await;
    assert!(early.is_err(), "a third connection was served: {early:?}");

    // One closes: the third is served.
    drop(held.remove(0));
    let answer = tokio::time::timeout(Duration::from_secs(5), read_answer(&mut third))
        .await
        .expect("served once a connection closed");
    assert_eq!(answer.status, 200);
    // The one still held keeps working.
    held[0].write_all(stats.as_bytes()).await.unwrap();
    assert_eq!(read_answer(&mut held[0]).await.status, 200);
}

#[tokio::test]
async fn bodies_not_json_too_large_or_malformed_get_json_errors() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let v3 = [KEYS[0], KEYS[1], JSON];

    send(&sandbox, "POST /v3/units", &v3, "{bad")
        .await
        .refused(400, "malformed JSON");

    let text = [KEYS[0], KEYS[1], "Content-Type: text/plain"];
    let unit = r#"{"reference_number": "T-1"}"#;
    send(&sandbox, "POST /v3/units", &text, unit)
        .await
        .refused(415, "`text/plain`");
    send(&sandbox, "POST /v3/units", &KEYS, unit)
        .await
        .refused(415, "application/json");
    // No body, no content type needed: the handler answers (nothing to create from).
    assert_eq!(
        send(&sandbox, "POST /v3/units", &KEYS, "").await.status,
        400
    );
    // Keys come first, as for every other refusal.
    let anonymous = send(
        &sandbox,
        "POST /v3/units",
        &["Content-Type: text/plain"],
        "{}",
    )
    .await;
    assert_eq!(anonymous.status, 401);
    // A `+json` type is JSON.
    let vendor = [
        KEYS[0],
        KEYS[1],
        "Content-Type: application/vnd.api+json; charset=utf-8",
    ];
    let created = send(
        &sandbox,
        "POST /v3/units",
        &vendor,
        r#"{"reference_number": "T-2"}"#,
    )
    .await;
    assert_eq!(created.status, 201, "{created:?}");

    let login = r#"{"user": {"username": "user@example.com", "password": "user-pass"}}"#;
    let legacy_text = [LEGACY, "Content-Type: text/plain"];
    let legacy = send(
        &sandbox,
        "POST /api/users/authenticate",
        &legacy_text,
        login,
    )
    .await;
    assert_eq!(legacy.status, 415);
    legacy.errors();

    // Over the limit, declared up front: refused before a byte of the body is read.
    let too_long = format!("Content-Length: {}", LIMIT + 1);
    for (line, headers) in [
        (
            "POST /v3/units",
            vec![KEYS[0], KEYS[1], JSON, too_long.as_str()],
        ),
        ("POST /api/assets", vec![LEGACY, JSON, too_long.as_str()]),
        ("POST /_sandbox/script", vec![JSON, too_long.as_str()]),
    ] {
        let mut stream = TcpStream::connect(sandbox.addr).await.unwrap();
        let mut head = format!("{line} HTTP/1.1\r\nHost: sandbox\r\n");
        for h in headers {
            head.push_str(&format!("{h}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        read_answer(&mut stream).await.refused(413, "limit");
    }

    // Over the limit in chunks, with no length announced: refused once the limit is
    // passed, by the sandbox's own read (/v3) or by the framework's (/_sandbox).
    for (line, headers) in [
        ("POST /v3/units", vec![KEYS[0], KEYS[1], JSON]),
        ("POST /_sandbox/script", vec![JSON]),
    ] {
        let stream = TcpStream::connect(sandbox.addr).await.unwrap();
        let (reader, mut writer) = stream.into_split();
        let mut head = format!("{line} HTTP/1.1\r\nHost: sandbox\r\n");
        for h in headers {
            head.push_str(&format!("{h}\r\n"));
        }
        head.push_str(&format!(
            "Transfer-Encoding: chunked\r\n\r\n{:x}\r\n",
            LIMIT + 1
        ));
        // Written alongside the read: the answer may come before the server reads it all.
        let feeder = tokio::spawn(async move {
            let _ = writer.write_all(head.as_bytes()).await;
            let _ = writer.write_all(&vec![b' '; LIMIT + 1]).await;
            writer
        });
        let mut whole = reader.reunite(feeder.await.unwrap()).unwrap();
        read_answer(&mut whole).await.refused(413, "limit");
    }

    let recorded = send(&sandbox, "GET /_sandbox/requests", &[], "").await;
    let recorded: Value = serde_json::from_str(&recorded.body).unwrap();
    let statuses: Vec<u64> = recorded
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [400, 415, 415, 400, 401, 201, 415, 413, 413, 413],
        "refused requests are recorded too"
    );
}

#[tokio::test]
async fn path_query_and_method_rejections_get_json_errors() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();

    send(&sandbox, "GET /v3/units/%FF", &KEYS, "")
        .await
        .refused(400, "unit_id");

    let part = send(&sandbox, "PUT /_uploads/multipart/up-1/first", &[], "x").await;
    assert_eq!(part.status, 400);
    part.errors();

    send(&sandbox, "POST /_sandbox/advance?seconds=soon", &[], "")
        .await
        .refused(400, "seconds");

    let method = send(&sandbox, "DELETE /_sandbox/stats", &[], "").await;
    assert_eq!(method.status, 405);
    assert_eq!(
        method.errors(),
        "Method Not Allowed: DELETE /_sandbox/stats"
    );
    assert_eq!(method.header("allow"), Some("GET,HEAD"), "{method:?}");
    let method = send(&sandbox, "PUT /v3/tasks", &KEYS, "").await;
    assert_eq!(method.status, 405);
    method.errors();

    // A canned answer is given exactly as scripted, even a text error.
    let script = json!({"method": "GET", "path": "/v3/units/u", "status": 400, "body_text": "<h1>Bad</h1>",
        "headers": {"content-type": "text/html"}});
    send(
        &sandbox,
        "POST /_sandbox/script",
        &[JSON],
        &script.to_string(),
    )
    .await;
    let canned = send(&sandbox, "GET /v3/units/u", &[], "").await;
    assert_eq!(
        (
            canned.status,
            canned.header("content-type"),
            canned.body.as_str()
        ),
        (400, Some("text/html"), "<h1>Bad</h1>")
    );
}

#[tokio::test]
async fn a_query_that_is_not_utf8_is_a_400_naming_the_parameter() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();

    for (line, headers, naming) in [
        (
            "GET /v3/units?referenceNumber=%FF",
            &KEYS[..],
            "`referenceNumber`",
        ),
        (
            "GET /v3/inspections?per_page=5&type=%C3%28",
            &KEYS,
            "`type`",
        ),
        ("GET /v3/units?%E9t%E9=1", &KEYS, "name"),
        ("GET /api/assets?name=caf%E9", &[LEGACY], "`name`"),
        ("POST /_sandbox/advance?seconds=%FF", &[], "`seconds`"),
    ] {
        send(&sandbox, line, headers, "").await.refused(400, naming);
    }

    // UTF-8 escapes, a `+` and a lone `%` are fine: the filter simply matches nothing.
    for query in [
        "referenceNumber=%C3%A9t%C3%A9+x",
        "referenceNumber=100%",
        "referenceNumber=%zz",
    ] {
        let fine = send(&sandbox, &format!("GET /v3/units?{query}"), &KEYS, "").await;
        assert_eq!(fine.status, 200, "{query}: {fine:?}");
        let body: Value = serde_json::from_str(&fine.body).unwrap();
        assert_eq!(body["data"], json!([]), "{query}");
    }
}

#[test]
fn the_flags_set_the_limits() {
    let defaults = sandbox::cli::parse(Vec::new()).unwrap().unwrap();
    assert_eq!(
        (defaults.max_connections, defaults.header_timeout),
        (1_024, Duration::from_secs(10))
    );
    let args = ["--max-connections", "2", "--header-timeout-ms", "250"];
    let set = sandbox::cli::parse(args.map(String::from).to_vec())
        .unwrap()
        .unwrap();
    assert_eq!(
        (set.max_connections, set.header_timeout),
        (2, Duration::from_millis(250))
    );
    for bad in [["--max-connections", "0"], ["--header-timeout-ms", "soon"]] {
        let refused = sandbox::cli::parse(bad.map(String::from).to_vec()).unwrap_err();
        assert!(refused.starts_with(bad[0]), "{refused}");
    }
}
