//! The client actions of webhook deliveries: `listen` starts an HTTP listener (axum, on
//! 127.0.0.1 with a free port) and registers it with the sandbox; `deliveries` waits for
//! what it received, then verifies each delivery with `inspection_client::verify_webhook`
//! and parses it with the interface's `parse_event`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use inspection_client::{legacy, v3};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::call::{Args, Outcome, failed};
use super::format::Interface;
use super::sandbox::Running;

/// One POST the listener received: its headers and raw body.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub headers: HeaderMap,
    pub body: Bytes,
}

type Received = Arc<Mutex<Vec<Delivery>>>;

/// A listener that answers every POST 200 and records it, until `close` (or drop).
pub struct Listener {
    pub url: String,
    received: Received,
    stop: Option<oneshot::Sender<()>>,
    server: JoinHandle<()>,
}

async fn receive(
    State(received): State<Received>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    if method != Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED;
    }
    received.lock().unwrap().push(Delivery { headers, body });
    StatusCode::OK
}

impl Listener {
    pub async fn start() -> Result<Listener, String> {
        let socket = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot start a webhook listener: {e}"))?;
        let port = socket
            .local_addr()
            .map_err(|e| format!("cannot start a webhook listener: {e}"))?
            .port();
        let received = Received::default();
        let app = axum::Router::new()
            .fallback(receive)
            .with_state(received.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let _ = axum::serve(socket, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Listener {
            url: format!("http://127.0.0.1:{port}/hook"),
            received,
            stop: Some(stop),
            server,
        })
    }

    /// What came once `count` deliveries did, or when `timeout` passed.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Delivery> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let came = self.received.lock().unwrap().clone();
            if came.len() >= count || tokio::time::Instant::now() >= deadline {
                return came;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Stops listening; kept-alive idle connections (the sandbox's) close at once.
    pub async fn close(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if tokio::time::timeout(Duration::from_secs(2), &mut self.server)
            .await
            .is_err()
        {
            self.server.abort();
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// `{name, value}`: a header of `listen`, or the one `deliveries` verifies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    name: String,
    value: String,
}

/// `listen {header}`: a listener, registered with the sandbox for the scenario's
/// interface. It goes into `slot` before the registration, so it is closed whatever follows.
pub async fn listen(
    sandbox: &Running,
    interface: Interface,
    slot: &mut Option<Listener>,
    mut a: Args,
) -> Result<Outcome, String> {
    let header: Option<Header> = a.take("header")?;
    a.finish()?;
    if slot.is_some() {
        return Err("a scenario has one listener: `listen` came twice".into());
    }
    let listener = slot.insert(Listener::start().await?);
    let mut registration = json!({
        "interface": interface.name(),
        "url": listener.url,
    });
    if let Some(h) = header {
        registration["header"] = json!({"name": h.name, "value": h.value});
    }
    sandbox
        .control("POST", "/_sandbox/webhooks", Some(&registration))
        .await?;
    Ok(Outcome {
        result: Some(json!({"url": listener.url})),
        error: None,
    })
}

/// `deliveries {count, timeout_ms, verify}`: waits for exactly `count` deliveries, then
/// verifies and parses each in order; the events written back, or the first error.
pub async fn deliveries(
    interface: Interface,
    listener: Option<&Listener>,
    mut a: Args,
) -> Result<Outcome, String> {
    let count: usize = a.required("count")?;
    let timeout_ms: u64 = a.take("timeout_ms")?.unwrap_or(5_000);
    let verify: Option<Header> = a.take("verify")?;
    a.finish()?;
    let listener = listener.ok_or("`deliveries` needs a `listen` step before it")?;
    let came = listener
        .wait_for(count, Duration::from_millis(timeout_ms))
        .await;
    if came.len() != count {
        return Err(format!(
            "expected {count} deliveries, the listener received {} within {timeout_ms} ms",
            came.len()
        ));
    }
    let mut events = Vec::new();
    for delivery in &came {
        if let Some(h) = &verify
            && let Err(e) = inspection_client::verify_webhook(&delivery.headers, &h.name, &h.value)
        {
            return Ok(failed(e));
        }
        let parsed = match interface {
            Interface::V3 => v3::parse_event(&delivery.body)
                .map(|e| serde_json::to_value(e).expect("events serialise")),
            Interface::Legacy => legacy::parse_event(&delivery.body)
                .map(|e| serde_json::to_value(e).expect("events serialise")),
        };
        match parsed {
            Ok(event) => events.push(event),
            Err(e) => return Ok(failed(e)),
        }
    }
    Ok(Outcome {
        result: Some(Value::Array(events)),
        error: None,
    })
}
