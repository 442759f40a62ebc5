//! The accept loop: HTTP/1.1 connections, at most `max_connections` at once, each dropped
//! when it takes longer than `header_timeout` to send a request head. `axum::serve` has
//! neither bound (no timer is given to hyper there, so a head may take forever), hence
//! hyper's own connection builder here.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot, watch};

/// How many connections, and how long a request head may take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
}

/// Serves `router` until `stop` fires or its sender is dropped: then no connection is
/// accepted any more, idle ones close and the others close after their current answer.
///
/// Beyond `max_connections` the loop stops accepting: further clients wait in the
/// listener's backlog and are served as soon as a connection closes, instead of being
/// refused. Tests and tools open bursts of parallel connections and a refusal would make
/// them fail at random, while waiting costs the sandbox nothing (the kernel holds the
/// queue, and refuses on its own once the backlog is full). With the header timeout, an
/// idle or stalled connection frees its place within that bound.
pub async fn run(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: oneshot::Receiver<()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    // Dropped when the loop ends, which tells every connection to finish.
    let (closing_tx, closing_rx) = watch::channel(());
    let mut stop = std::pin::pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            _ = &mut stop => break,
        };
        let Ok(slot) = slot else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut stop => break,
        };
        let (stream, remote) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was accepted:
                // try again shortly rather than spin.
                tracing::debug!("sandbox: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let router = router.clone();
        let mut closing = closing_rx.clone();
        tokio::spawn(async move {
            let _slot = slot;
            // Each request carries the client's address, which the rate limit reads (as
            // `into_make_service_with_connect_info` would put it).
            let inner = TowerToHyperService::new(router);
            let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(remote));
                inner.call(req.map(Body::new))
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            // hyper starts the head clock whenever the connection waits for a request:
            // on a new connection, and again after each answer. So the bound covers a
            // head sent slowly or never finished, and an idle keep-alive connection too;
            // a request being handled (or its body being read) is not timed.
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closing.changed() => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
    }
    drop(closing_tx);
}
