//! The sandbox under abuse, over raw TCP: a request head that never ends and an idle
//! connection are dropped within the header timeout, and connections beyond the limit
//! wait.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use sandbox::{Options, Sandbox};

const JSON: &str = "Content-Type: application/json";

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
