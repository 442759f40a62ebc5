//! The sandbox binary starts with one command, prints its base URL and key, and serves.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;

#[path = "common/binary.rs"]
mod binary;

fn get(base: &str, path: &str, headers: &str) -> String {
    let authority = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap();
    let mut stream = TcpStream::connect(authority).unwrap();
    write!(
        stream,
        "GET /v3{path} HTTP/1.1\r\nHost: {authority}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn the_binary_serves_on_the_port_it_prints() {
    let mut running = binary::start(&[
        "--addr",
        "127.0.0.1:0",
        "--key",
        "k1:s1",
        "--empty",
        "--legacy-user",
        "ops@example.com:pw:manager",
    ]);
    let base = running.base.clone();
    let lines = &mut running.lines;
    assert!(
        base.starts_with("http://127.0.0.1:") && base.ends_with("/v3"),
        "{base}"
    );
    assert!(lines.next().unwrap().unwrap().contains("key id `k1`"));
    let rest: Vec<String> = lines.take(3).map(Result::unwrap).collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("legacy login `ops@example.com` / `pw` (manager)")),
        "{rest:?}"
    );

    let denied = get(&base, "/units", "");
    assert!(denied.starts_with("HTTP/1.1 401"), "{denied}");
    let listed = get(&base, "/units", "api-key-id: k1\r\napi-key-secret: s1\r\n");
    assert!(listed.starts_with("HTTP/1.1 200"), "{listed}");
    assert!(
        listed.contains(r#""data":[]"#),
        "--empty starts with no data: {listed}"
    );
}

#[test]
fn a_bad_flag_is_refused_with_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_sandbox"))
        .args(["--faults", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--faults: `2` is not a rate from 0 to 1"),
        "{err}"
    );
    assert!(err.contains("usage: cargo run -p sandbox"), "{err}");
}

/// Issue 14, point 9: a non-loopback address only behind the explicit flag.
#[test]
fn a_non_loopback_address_needs_the_explicit_flag() {
    let refused = sandbox::cli::parse(vec!["--addr".into(), "0.0.0.0:0".into()]).unwrap_err();
    assert!(refused.contains("--listen-beyond-loopback"), "{refused}");
    let allowed = sandbox::cli::parse(vec![
        "--addr".into(),
        "0.0.0.0:0".into(),
        "--listen-beyond-loopback".into(),
    ])
    .unwrap()
    .unwrap();
    assert!(!allowed.addr.ip().is_loopback());
}

/// The storage origin listens where `--storage-addr` says (loopback unless allowed
/// beyond), and the binary prints it beside the other addresses.
#[test]
fn the_storage_origin_listens_where_the_flag_says_and_is_printed() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap().to_string();
    drop(free);
    let mut running = binary::start(&["--addr", "127.0.0.1:0", "--storage-addr", &addr]);
    let printed = (&mut running.lines)
        .map(Result::unwrap)
        .find(|l| l.contains("pre-signed PDF links"))
        .expect("a line naming the storage origin");
    assert!(
        printed.ends_with(&format!("served from http://{addr}")),
        "{printed}"
    );
    let mut stream = TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "GET /nothing HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    assert!(answer.contains("NoSuchKey"), "{answer}");

    let parse = |args: &[&str]| sandbox::cli::parse(args.iter().map(|a| a.to_string()).collect());
    let refused = parse(&["--storage-addr", "0.0.0.0:0"]).unwrap_err();
    assert!(
        refused.contains("--storage-addr") && refused.contains("--listen-beyond-loopback"),
        "{refused}"
    );
    let refused = parse(&["--storage-addr", "somewhere"]).unwrap_err();
    assert!(
        refused.contains("`somewhere` is not an address"),
        "{refused}"
    );
    let allowed = parse(&["--storage-addr", "0.0.0.0:0", "--listen-beyond-loopback"]);
    assert!(!allowed.unwrap().unwrap().storage_addr.ip().is_loopback());
}
