//! A scriptable local HTTP server for client tests: it records every request and answers
//! with the responses a test queued, in order.

#![allow(dead_code)] // each test file uses a different part of it

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// What a test expects the server to answer next.
#[derive(Clone, Debug)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub delay: Option<Duration>,
}

impl Canned {
    pub fn json(status: u16, body: &str) -> Self {
        Canned {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.as_bytes().to_vec(),
            delay: None,
        }
    }

    pub fn status(status: u16) -> Self {
        Canned {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: None,
        }
    }

    pub fn bytes(status: u16, content_type: &str, body: &[u8]) -> Self {
        Canned {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.to_vec(),
            delay: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }
}

/// One request as it arrived.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    /// Path and query exactly as sent (still percent-encoded).
    pub uri: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }
}

#[derive(Default)]
struct Script {
    queue: VecDeque<Canned>,
    recorded: Vec<Recorded>,
}

/// A server on 127.0.0.1 with an ephemeral port, running until the test ends.
#[derive(Clone)]
pub struct Server {
    pub addr: SocketAddr,
    script: Arc<Mutex<Script>>,
}

impl Server {
    pub async fn start() -> Server {
        let script = Arc::new(Mutex::new(Script::default()));
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Server { addr, script }
    }

    /// The base URL of the v3 interface on this server.
    pub fn base(&self) -> String {
        format!("http://{}/v3", self.addr)
    }

    pub fn push(&self, canned: Canned) -> &Self {
        self.script.lock().unwrap().queue.push_back(canned);
        self
    }

    pub fn recorded(&self) -> Vec<Recorded> {
        self.script.lock().unwrap().recorded.clone()
    }

    /// The one request recorded since the last call (panics on any other count).
    pub fn take_one(&self) -> Recorded {
        let mut script = self.script.lock().unwrap();
        assert_eq!(
            script.recorded.len(),
            1,
            "expected exactly one request: {:?}",
            script.recorded
        );
        script.recorded.remove(0)
    }

    pub fn clear(&self) {
        self.script.lock().unwrap().recorded.clear();
    }
}

async fn answer(State(script): State<Arc<Mutex<Script>>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let canned = {
        let mut s = script.lock().unwrap();
        s.recorded.push(Recorded {
            method: parts.method.to_string(),
            uri: parts.uri.to_string(),
            headers: parts.headers.clone(),
            body,
            at: Instant::now(),
        });
        s.queue.pop_front()
    };
    let Some(canned) = canned else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "no response scripted").into_response();
    };
    if let Some(d) = canned.delay {
        tokio::time::sleep(d).await;
    }
    let mut response = Response::builder().status(canned.status);
    for (k, v) in &canned.headers {
        response = response.header(k, v);
    }
    response.body(axum::body::Body::from(canned.body)).unwrap()
}
