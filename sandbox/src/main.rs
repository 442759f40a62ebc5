//! `cargo run -p sandbox -- [flags]`: serves the v3 interface on loopback until Ctrl-C.

use std::process::ExitCode;

use sandbox::Sandbox;
use sandbox::cli::{USAGE, parse};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "forward") {
        return forward(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "watch") {
        return watch(&args[1..]);
    }
    let options = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("sandbox: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    run(async move {
        let keys = options.keys.clone();
        let legacy_users = options.legacy_users.clone();
        let webhooks = options.webhooks.clone();
        let cors = options.cors_origins.clone();
        let sandbox = match Sandbox::start(options).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("sandbox: cannot listen: {e}");
                return ExitCode::FAILURE;
            }
        };
        let base = sandbox.base_url();
        if base != format!("http://{}/v3", sandbox.addr) {
            println!("sandbox: listening on {}, public URL below", sandbox.addr);
        }
        println!("sandbox: serving the v3 interface at {base}");
        if let Some((id, secret)) = keys.first() {
            println!("sandbox: key id `{id}`, secret `{secret}` (sandbox only)");
            println!(
                "sandbox: try  curl -H 'api-key-id: {id}' -H 'api-key-secret: {secret}' {base}/units"
            );
        }
        println!("sandbox: legacy /api at {}", sandbox.legacy_base_url());
        for (name, password, manager) in &legacy_users {
            let role = if *manager { "manager" } else { "user" };
            println!("sandbox: legacy login `{name}` / `{password}` ({role})");
        }
        for url in &webhooks {
            println!("sandbox: webhook events (v3 and legacy) to {url}");
        }
        for origin in &cors {
            println!("sandbox: browser pages from {origin} may call it (CORS)");
        }
        println!(
            "sandbox: inspections' pre-signed PDF links (pdf_share_url) served from {}",
            sandbox.storage_url()
        );
        stopped().await;
        ExitCode::SUCCESS
    })
}

/// `sandbox forward --to ADDR [--listen ADDR]`: the reverse proxy, until stopped.
fn forward(args: &[String]) -> ExitCode {
    let (to, listen) = match sandbox::forward::parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sandbox: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    run(async move {
        let listener = match tokio::net::TcpListener::bind(listen).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("sandbox forward: cannot listen on {listen}: {e}");
                return ExitCode::FAILURE;
            }
        };
        match listener.local_addr() {
            Ok(addr) => println!("sandbox forward: http://{addr} -> http://{to}"),
            Err(e) => {
                eprintln!("sandbox forward: {e}");
                return ExitCode::FAILURE;
            }
        }
        tokio::select! {
            served = sandbox::forward::serve(listener, to) => {
                if let Err(e) = served {
                    eprintln!("sandbox forward: {e}");
                    return ExitCode::FAILURE;
                }
            }
            _ = stopped() => {}
        }
        ExitCode::SUCCESS
    })
}

/// `sandbox watch --upstream URL ...`: the drift watch, until stopped; then its summary
/// on stderr and, with `--report FILE`, the whole report as JSON.
fn watch(args: &[String]) -> ExitCode {
    let (options, listen, report) = match sandbox::watch::parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sandbox: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    run(async move {
        let upstream = options.upstream.clone();
        let watch = match sandbox::watch::Watch::start(listen, options).await {
            Ok(w) => w,
            Err(e) => {
                eprintln!("sandbox watch: cannot start on {listen}: {e}");
                return ExitCode::FAILURE;
            }
        };
        eprintln!("sandbox watch: http://{} -> {upstream}", watch.addr);
        stopped().await;
        eprint!("{}", watch.table());
        if let Some(path) = report {
            let text = serde_json::to_string_pretty(&watch.report()).unwrap_or_default();
            if let Err(e) = std::fs::write(&path, text + "\n") {
                eprintln!("sandbox watch: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        ExitCode::SUCCESS
    })
}

/// Runs `work` on a multi-threaded runtime to its exit code; the runtime, and with it the
/// sandbox and its upload directory, goes when it returns.
fn run(work: impl Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(work),
        Err(e) => {
            eprintln!("sandbox: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Ctrl-C, or (on Unix) the SIGTERM that test runners stop the sandbox with: either way the
/// sandbox stops cleanly, removing the uploads it kept on disk.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
