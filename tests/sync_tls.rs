//! `inspection sync v3 postgres://...` over TLS, with libpq's meaning, against real
//! PostgreSQL servers the test starts (`tests/support/postgres.rs`) and certificates it
//! makes with `openssl` (`tests/support/tls_files.rs`): every `sslmode` against a server
//! that takes TLS connections only and against one without TLS; `verify-ca` and
//! `verify-full` refusing, by name, a certificate for another host, an unknown authority,
//! an expired certificate and a missing root file, never going on without TLS; a root file
//! in `~/.postgresql/` making `require` check the chain; `sslrootcert=system`; a
//! certificate without subject alternative names read by its common name, as libpq does;
//! a client certificate the server requires, from the URL, the variables or the home
//! folder, its key refused when others can read it or when it is encrypted; channel
//! binding; `sslnegotiation=direct` against a server older than 17; SNI and ALPN in the
//! handshake. No password in any message.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/tls_files.rs"]
mod tls_files;
#[path = "support/cli_process.rs"]
mod tool;

use std::path::Path;

use export_folder::{sandbox, scratch, strings, v3_env};
use postgres::{PASSWORD, Postgres};
use tls_files::{Authority, Issued};

/// `sync v3 URL --only units --quiet` with these variables besides the service's.
async fn sync(sandbox: &sandbox::Sandbox, url: &str, env: &[(&str, &Path)]) -> tool::Ran {
    let args = strings(&["--quiet", "sync", "v3", url, "--only", "units"]);
    let mut all = v3_env(sandbox);
    all.extend(
        env.iter()
            .map(|(k, v)| (k.to_string(), v.display().to_string())),
    );
    tool::run(&args, &all, None).await
}

/// The URL of the database `fleet` on `host` (`localhost`, `127.0.0.1`) with `query`.
fn url(pg: &Postgres, host: &str, query: &str) -> String {
    format!(
        "postgres://postgres:{PASSWORD}@{host}:{}/fleet?{query}",
        pg.port
    )
}

/// The run succeeded.
#[track_caller]
fn synced(ran: &tool::Ran, what: &str) {
    assert_eq!(ran.code, 0, "{what}: {}", ran.stderr);
}

/// The run ended with `code`, its message holding every one of `said`, and never the
/// password.
#[track_caller]
fn refused(ran: &tool::Ran, code: i32, said: &[&str], what: &str) {
    assert_eq!(ran.code, code, "{what}: {}", ran.stderr);
    for words in said {
        assert!(
            ran.stderr.contains(words),
            "{what}: no `{words}` in {}",
            ran.stderr
        );
    }
    assert!(!ran.stderr.contains(PASSWORD), "{what}: {}", ran.stderr);
}

/// `sslrootcert=FILE`.
fn root(authority: &Authority) -> String {
    format!("sslrootcert={}", authority.root.cert.display())
}

/// A TLS-only server showing `server`, its clients' certificates checked against `ca`.
fn tls_server(name: &str, server: &Issued, ca: &Authority) -> Postgres {
    let pg = Postgres::start_tls(name, &server.cert, &server.key, &ca.root.cert);
    pg.create_database("fleet");
    pg.create_database("clientcert");
    pg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sslmode_against_a_tls_only_server_and_a_plain_one() {
    let dir = scratch("tls-modes");
    let ca = Authority::new(&dir, "test-ca");
    let tls = tls_server("tls-modes", &ca.server("localhost"), &ca);
    let plain = Postgres::start("tls-plain");
    plain.create_database("fleet");
    let sandbox = sandbox("--inspections 0").await;

    // The TLS-only server: every mode that tries TLS gets in.
    let ran = sync(&sandbox, &url(&tls, "localhost", "sslmode=disable"), &[]).await;
    refused(
        &ran,
        10,
        &["no pg_hba.conf entry", "no encryption"],
        "disable",
    );
    for mode in ["allow", "prefer", "require"] {
        let ran = sync(
            &sandbox,
            &url(&tls, "localhost", &format!("sslmode={mode}")),
            &[],
        )
        .await;
        synced(&ran, mode);
    }
    for mode in ["verify-ca", "verify-full"] {
        let query = format!("sslmode={mode}&{}", root(&ca));
        let ran = sync(&sandbox, &url(&tls, "localhost", &query), &[]).await;
        synced(&ran, mode);
    }
    // The default is `prefer`.
    synced(
        &sync(&sandbox, &url(&tls, "localhost", ""), &[]).await,
        "no sslmode",
    );

    // The server without TLS: the modes that need it are refused, naming the server and
    // the mode, never going on without TLS.
    for mode in ["disable", "allow", "prefer"] {
        let ran = sync(
            &sandbox,
            &url(&plain, "localhost", &format!("sslmode={mode}")),
            &[],
        )
        .await;
        synced(&ran, mode);
    }
    let server = format!("localhost:{} offers no TLS", plain.port);
    for (mode, query) in [
        ("require", "sslmode=require".to_string()),
        ("verify-ca", format!("sslmode=verify-ca&{}", root(&ca))),
        ("verify-full", format!("sslmode=verify-full&{}", root(&ca))),
    ] {
        let ran = sync(&sandbox, &url(&plain, "localhost", &query), &[]).await;
        let needs = format!("which sslmode={mode} requires");
        refused(&ran, 10, &[&server, &needs], mode);
    }
    // PGSSLMODE where the URL has none.
    let ran = sync(
        &sandbox,
        &url(&plain, "localhost", ""),
        &[("PGSSLMODE", Path::new("require"))],
    )
    .await;
    refused(
        &ran,
        10,
        &["which sslmode=require requires"],
        "PGSSLMODE=require",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_ca_and_verify_full_refuse_by_name_what_they_cannot_check() {
    let dir = scratch("tls-verify");
    let ca = Authority::new(&dir, "test-ca");
    let other = Authority::new(&dir, "other-ca");
    let server = ca.server("localhost");
    let pg = tls_server("tls-verify", &server, &ca);
    let sandbox = sandbox("--inspections 0").await;
    let full = format!("sslmode=verify-full&{}", root(&ca));

    // Connected by address, the certificate is for `localhost`: verify-full refuses the
    // name, verify-ca checks the chain alone.
    let ran = sync(&sandbox, &url(&pg, "127.0.0.1", &full), &[]).await;
    let said = "TLS with 127.0.0.1 (sslmode=verify-full): its certificate is not for the \
                name `127.0.0.1` (it names localhost)";
    refused(&ran, 10, &[said], "verify-full by address");
    let ca_only = format!("sslmode=verify-ca&{}", root(&ca));
    synced(
        &sync(&sandbox, &url(&pg, "127.0.0.1", &ca_only), &[]).await,
        "verify-ca by address",
    );

    // Another authority's root: unknown.
    let query = format!("sslmode=verify-full&{}", root(&other));
    let ran = sync(&sandbox, &url(&pg, "localhost", &query), &[]).await;
    refused(
        &ran,
        10,
        &["(sslmode=verify-full)", "unknown authority", "other-ca"],
        "other CA",
    );
    let query = format!("sslmode=verify-ca&{}", root(&other));
    let ran = sync(&sandbox, &url(&pg, "localhost", &query), &[]).await;
    refused(
        &ran,
        10,
        &["(sslmode=verify-ca)", "unknown authority"],
        "verify-ca, other CA",
    );

    // No root given: refused before connecting, saying how to give one.
    let ran = sync(&sandbox, &url(&pg, "localhost", "sslmode=verify-ca"), &[]).await;
    refused(
        &ran,
        2,
        &["sslmode=verify-ca checks", "sslrootcert=FILE"],
        "no CA",
    );
    let ran = sync(
        &sandbox,
        &url(
            &pg,
            "localhost",
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.crt",
        ),
        &[],
    )
    .await;
    refused(
        &ran,
        2,
        &["sslrootcert: /nonexistent/ca.crt"],
        "a missing CA file",
    );

    // ~/.postgresql/root.crt: `require` checks the chain once it is there (libpq's rule).
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".postgresql")).unwrap();
    std::fs::copy(&other.root.cert, home.join(".postgresql/root.crt")).unwrap();
    let env = [("HOME", home.as_path())];
    let ran = sync(&sandbox, &url(&pg, "localhost", "sslmode=require"), &env).await;
    refused(
        &ran,
        10,
        &["(sslmode=require)", "unknown authority"],
        "require with a root file",
    );
    // `prefer` goes on without TLS after TLS failed (libpq's rule), which this server
    // refuses: both failures said.
    let ran = sync(&sandbox, &url(&pg, "localhost", "sslmode=prefer"), &env).await;
    refused(
        &ran,
        10,
        &[
            "no encryption",
            "after TLS failed under sslmode=prefer",
            "unknown authority",
        ],
        "prefer",
    );
    std::fs::copy(&ca.root.cert, home.join(".postgresql/root.crt")).unwrap();
    synced(
        &sync(&sandbox, &url(&pg, "localhost", "sslmode=require"), &env).await,
        "require, root.crt",
    );
    synced(
        &sync(
            &sandbox,
            &url(&pg, "localhost", "sslmode=verify-full"),
            &env,
        )
        .await,
        "verify-full, root.crt",
    );

    // The system's roots (SSL_CERT_FILE names them here) imply verify-full.
    let system = [("SSL_CERT_FILE", ca.root.cert.as_path())];
    synced(
        &sync(
            &sandbox,
            &url(&pg, "localhost", "sslrootcert=system"),
            &system,
        )
        .await,
        "system",
    );
    let ran = sync(
        &sandbox,
        &url(&pg, "127.0.0.1", "sslrootcert=system"),
        &system,
    )
    .await;
    refused(
        &ran,
        10,
        &["(sslmode=verify-full)", "not for the name `127.0.0.1`"],
        "system by address",
    );
    let ran = sync(
        &sandbox,
        &url(&pg, "localhost", "sslrootcert=system&sslmode=require"),
        &system,
    )
    .await;
    refused(
        &ran,
        2,
        &["sslmode=require is weaker than sslrootcert=system allows"],
        "system, require",
    );

    // A certificate naming its host in its common name alone: libpq reads that name.
    let cn_only = ca.issue("cn-only", "localhost", None, "serverAuth", None);
    pg.use_certificate(&cn_only.cert, &cn_only.key);
    synced(
        &sync(&sandbox, &url(&pg, "localhost", &full), &[]).await,
        "common name",
    );
    let ran = sync(&sandbox, &url(&pg, "127.0.0.1", &full), &[]).await;
    refused(
        &ran,
        10,
        &["not for the name `127.0.0.1` (it names localhost)"],
        "common name, by address",
    );

    // An expired certificate: refused by the modes that check it, with its date.
    let dates = Some(("20200101000000Z", "20200102000000Z"));
    let expired = ca.issue(
        "expired",
        "localhost",
        Some("DNS:localhost"),
        "serverAuth",
        dates,
    );
    pg.use_certificate(&expired.cert, &expired.key);
    let ran = sync(&sandbox, &url(&pg, "localhost", &full), &[]).await;
    refused(
        &ran,
        10,
        &["TLS with localhost (sslmode=verify-full): its certificate expired on 2020-01-02"],
        "expired",
    );
    synced(
        &sync(&sandbox, &url(&pg, "localhost", "sslmode=require"), &[]).await,
        "require checks nothing",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_the_server_requires_comes_from_the_url_the_variables_or_home() {
    let dir = scratch("tls-client");
    let ca = Authority::new(&dir, "test-ca");
    let other = Authority::new(&dir, "other-ca");
    let pg = tls_server("tls-client", &ca.server("localhost"), &ca);
    let sandbox = sandbox("--inspections 0").await;
    let client = ca.client("client", "postgres");
    let database = |query: &str| {
        let query = format!("sslmode=verify-full&{}{query}", root(&ca));
        url(&pg, "localhost", &query).replace("/fleet?", "/clientcert?")
    };
    let files = |c: &Issued| format!("&sslcert={}&sslkey={}", c.cert.display(), c.key.display());

    let ran = sync(&sandbox, &database(""), &[]).await;
    refused(
        &ran,
        10,
        &["connection requires a valid client certificate"],
        "no certificate",
    );
    synced(
        &sync(&sandbox, &database(&files(&client)), &[]).await,
        "sslcert, sslkey",
    );
    let env = [
        ("PGSSLCERT", client.cert.as_path()),
        ("PGSSLKEY", client.key.as_path()),
    ];
    synced(
        &sync(&sandbox, &database(""), &env).await,
        "PGSSLCERT, PGSSLKEY",
    );
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".postgresql")).unwrap();
    std::fs::copy(&client.cert, home.join(".postgresql/postgresql.crt")).unwrap();
    std::fs::copy(&client.key, home.join(".postgresql/postgresql.key")).unwrap();
    synced(
        &sync(&sandbox, &database(""), &[("HOME", home.as_path())]).await,
        "~/.postgresql",
    );

    // Another authority's client certificate: the server's refusal said.
    let stranger = other.client("stranger", "postgres");
    let ran = sync(&sandbox, &database(&files(&stranger)), &[]).await;
    refused(
        &ran,
        10,
        &["did not accept the client certificate"],
        "a stranger's certificate",
    );

    // A key others can read, an encrypted key: refused by name before connecting.
    let open = dir.join("open.key");
    std::fs::copy(&client.key, &open).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    let query = format!(
        "&sslcert={}&sslkey={}",
        client.cert.display(),
        open.display()
    );
    let ran = sync(&sandbox, &database(&query), &[]).await;
    let said = format!("sslkey {}: others can read it (mode 644)", open.display());
    refused(&ran, 2, &[&said], "a key others read");
    let locked = tls_files::encrypted(&client.key);
    let query = format!(
        "&sslcert={}&sslkey={}",
        client.cert.display(),
        locked.display()
    );
    let ran = sync(&sandbox, &database(&query), &[]).await;
    refused(
        &ran,
        2,
        &[&format!(
            "sslkey {}: the key is encrypted",
            locked.display()
        )],
        "encrypted",
    );
    let ran = sync(&sandbox, &database("&sslpassword=test-only"), &[]).await;
    refused(
        &ran,
        2,
        &["sslpassword: this tool reads unencrypted keys only"],
        "sslpassword",
    );
    assert!(!ran.stderr.contains("test-only"), "{}", ran.stderr);

    // Channel binding (the certificate's hash, SCRAM-SHA-256-PLUS) over TLS; required
    // without TLS, refused.
    synced(
        &sync(
            &sandbox,
            &url(
                &pg,
                "localhost",
                &format!("{}&channel_binding=require", root(&ca)),
            ),
            &[],
        )
        .await,
        "channel binding",
    );
    let ran = sync(
        &sandbox,
        &url(&pg, "localhost", "sslmode=disable&channel_binding=require"),
        &[],
    )
    .await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);

    // Direct TLS (PostgreSQL 17's) against this older server: said so.
    let ran = sync(
        &sandbox,
        &url(&pg, "localhost", "sslmode=require&sslnegotiation=direct"),
        &[],
    )
    .await;
    refused(
        &ran,
        10,
        &["did not answer a direct TLS handshake", "PostgreSQL 17"],
        "direct",
    );
    let ran = sync(
        &sandbox,
        &url(&pg, "localhost", "sslnegotiation=direct"),
        &[],
    )
    .await;
    refused(
        &ran,
        2,
        &["sslnegotiation=direct", "not prefer"],
        "direct, prefer",
    );
}

/// What a client sends first over TLS (its ClientHello), read by a listener that answers
/// PostgreSQL's SSLRequest with `S` and then hangs up.
async fn client_hello(sandbox: &sandbox::Sandbox, host: &str, query: &str) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let listening = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 8];
        socket.read_exact(&mut request).await.unwrap();
        assert_eq!(request, [0, 0, 0, 8, 4, 210, 22, 47], "an SSLRequest");
        socket.write_all(b"S").await.unwrap();
        let mut hello = vec![0u8; 4096];
        let n = socket.read(&mut hello).await.unwrap();
        hello.truncate(n);
        hello
    });
    let url = format!("postgres://postgres:{PASSWORD}@{host}:{port}/fleet?{query}");
    let ran = sync(sandbox, &url, &[]).await;
    assert_eq!(ran.code, 10, "{}", ran.stderr);
    listening.await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handshake_names_a_host_name_not_an_address_and_asks_for_postgresql() {
    let sandbox = sandbox("--inspections 0").await;
    let has = |hello: &[u8], text: &[u8]| hello.windows(text.len()).any(|w| w == text);
    let hello = client_hello(&sandbox, "localhost", "sslmode=require").await;
    assert!(has(&hello, b"localhost"), "SNI for a host name");
    assert!(has(&hello, b"postgresql"), "the ALPN libpq 17 sends");
    let hello = client_hello(&sandbox, "127.0.0.1", "sslmode=require").await;
    assert!(
        !has(&hello, b"127.0.0.1") && has(&hello, b"postgresql"),
        "no SNI for an address"
    );
    let hello = client_hello(&sandbox, "localhost", "sslmode=require&sslsni=0").await;
    assert!(!has(&hello, b"localhost"), "sslsni=0");
}
