//! Webhook event deliveries (the webhooks contract): listeners per interface, from
//! `--webhook` and `POST /_sandbox/webhooks`, plus a task's own `webhook_url`. Every
//! destination has one worker fed by a channel: the API answers without waiting, and each
//! destination still gets its events in the order they happened (the sender enqueues while
//! it holds the store lock that ordered them).

mod controls;

pub use controls::router;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Url;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::http::Reject;
use crate::lock;

/// Attempts per event and destination: the first, then retries on a failure or non-2xx.
const ATTEMPTS: u32 = 3;
/// The wait before the first retry; it doubles for the next.
const FIRST_BACKOFF: Duration = Duration::from_millis(20);
/// A listener that never answers holds up only its own queue, and only this long.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);

/// Which interface's listeners an event goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interface {
    V3,
    Legacy,
}

/// A header sent with deliveries, typically authentication: its value is never printed.
#[derive(Clone)]
pub struct Header {
    name: HeaderName,
    value: HeaderValue,
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: <redacted>", self.name)
    }
}

impl Header {
    pub fn new(name: &str, value: &str) -> Result<Header, String> {
        let name = HeaderName::try_from(name.trim())
            .map_err(|_| format!("`{}` is not a valid header name", name.trim()))?;
        let mut value = HeaderValue::try_from(value.trim())
            .map_err(|_| format!("the value of header `{name}` is not a valid header value"))?;
        value.set_sensitive(true);
        Ok(Header { name, value })
    }

    /// `Name: value`, as `--webhook-header` takes it. The error never repeats the value.
    pub fn parse(line: &str) -> Result<Header, String> {
        let (name, value) = line
            .split_once(':')
            .ok_or("expected `Name: value` (a header name, a colon, then its value)")?;
        Header::new(name, value)
    }
}

/// The URL, if it is `http://` on a loopback host: the sandbox never calls out of the machine.
pub fn loopback_url(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| format!("`{url}` is not a URL ({e})"))?;
    if parsed.scheme() == "http" && is_loopback(&parsed) {
        Ok(parsed)
    } else {
        Err(format!(
            "`{url}` is refused: the sandbox delivers webhooks only to http:// URLs on a \
             loopback host (127.0.0.0/8, [::1] or localhost)"
        ))
    }
}

/// Whether a task status counts as done: moving to one of these from another completes it.
pub fn is_done(status: Option<&str>) -> bool {
    matches!(status, Some("completed" | "complete"))
}

/// Reads and checks a task body's `webhook_url`: `None` when absent, `Some(None)` for null
/// (no URL any more), else the URL (422 unless loopback http).
pub fn task_url(value: Option<&Value>) -> Result<Option<Option<String>>, Reject> {
    let reject = |why: String| Reject::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    match value {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(url)) => loopback_url(url)
            .map(|_| Some(Some(url.clone())))
            .map_err(|e| reject(format!("webhook_url: {e}"))),
        Some(_) => Err(reject("webhook_url: expected a URL string or null".into())),
    }
}

/// Takes `webhook_url` out of a legacy task body: kept beside the task, never echoed.
pub fn take_task_url(fields: &mut Map<String, Value>) -> Result<Option<Option<String>>, Reject> {
    let value = fields.remove("webhook_url");
    task_url(value.as_ref())
}

/// `{"type", "data", "created_at"}`, the envelope of both interfaces.
pub fn envelope(kind: &str, data: Value, now: DateTime<Utc>) -> Value {
    json!({
        "type": kind,
        "data": data,
        "created_at": now.to_rfc3339_opts(SecondsFormat::Millis, true),
    })
}

/// One event, encoded once and shared by every destination's queue.
struct Event {
    /// Its type, for the log.
    label: String,
    body: Bytes,
}

/// A destination's queue; its worker delivers one event at a time, in order, and stops
/// once every sender is dropped and the queue is drained.
#[derive(Clone)]
struct Queue(mpsc::UnboundedSender<Arc<Event>>);

impl Queue {
    fn spawn(client: reqwest::Client, url: Url, headers: Vec<Header>) -> Queue {
        let (tx, mut rx) = mpsc::unbounded_channel::<Arc<Event>>();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                deliver(&client, &url, &headers, &event).await;
            }
        });
        Queue(tx)
    }

    fn send(&self, event: &Arc<Event>) {
        // A closed queue only means the runtime is shutting down.
        let _ = self.0.send(event.clone());
    }
}

/// Up to `ATTEMPTS` POSTs, each logged on stderr; `true` once one gets a 2xx.
async fn deliver(client: &reqwest::Client, url: &Url, headers: &[Header], event: &Event) -> bool {
    let mut backoff = FIRST_BACKOFF;
    for attempt in 1..=ATTEMPTS {
        let outcome = post(client, url, headers, event).await;
        let shown = match &outcome {
            Ok(status) => status.as_u16().to_string(),
            Err(e) => format!("failed: {e}"),
        };
        eprintln!(
            "sandbox: webhook {} -> {url}: attempt {attempt}: {shown}",
            event.label
        );
        if outcome.is_ok_and(|s| s.is_success()) {
            return true;
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(backoff).await;
            backoff *= 2;
        }
    }
    false
}

async fn post(
    client: &reqwest::Client,
    url: &Url,
    headers: &[Header],
    event: &Event,
) -> Result<StatusCode, String> {
    let mut request = client
        .post(url.clone())
        .header(header::CONTENT_TYPE, "application/json")
        .body(event.body.clone());
    for h in headers {
        request = request.header(h.name.clone(), h.value.clone());
    }
    match request.send().await {
        Ok(response) => Ok(response.status()),
        Err(e) => Err(root_cause(&e)),
    }
}

/// The innermost error's message: reqwest's own only says that sending failed.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut inner = e;
    while let Some(source) = inner.source() {
        inner = source;
    }
    inner.to_string()
}

/// Where events go: listeners per interface and tasks' own URLs.
pub struct Webhooks {
    client: reqwest::Client,
    /// `--webhook-header`s, sent with every delivery.
    common: Vec<Header>,
    /// `--webhook` listeners: both interfaces, kept over resets.
    fixed: Vec<Queue>,
    /// Listeners registered through `POST /_sandbox/webhooks`, in order.
    registered: Mutex<Vec<(Interface, Queue)>>,
    /// One worker per task `webhook_url`, started on first use.
    task_urls: Mutex<HashMap<String, Queue>>,
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhooks")
            .field("common", &self.common)
            .field("fixed", &self.fixed.len())
            .field("registered", &lock(&self.registered).len())
            .finish_non_exhaustive()
    }
}

impl Webhooks {
    /// Checks the `--webhook` URLs and headers and starts those listeners' workers (in the
    /// current tokio runtime).
    pub fn new(urls: &[String], headers: &[(String, String)]) -> Result<Webhooks, String> {
        let common = headers
            .iter()
            .map(|(name, value)| Header::new(name, value))
            .collect::<Result<Vec<_>, _>>()?;
        let client = reqwest::Client::builder()
            // Loopback only: a proxy from the environment must not see the deliveries.
            .no_proxy()
            .timeout(ATTEMPT_TIMEOUT)
            .build()
            .map_err(|e| format!("cannot start the webhook client: {e}"))?;
        let fixed = urls
            .iter()
            .map(|url| {
                let url = loopback_url(url)?;
                Ok(Queue::spawn(client.clone(), url, common.clone()))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Webhooks {
            client,
            common,
            fixed,
            registered: Mutex::default(),
            task_urls: Mutex::default(),
        })
    }

    /// Drops registered listeners and task URL workers (a worker finishes its queue first).
    pub fn reset(&self) {
        self.unregister_all();
        lock(&self.task_urls).clear();
    }

    /// Adds a listener for `interface`; answers how many listeners it now has (`--webhook`
    /// ones included).
    pub fn register(
        &self,
        interface: Interface,
        url: &str,
        header: Option<Header>,
    ) -> Result<usize, String> {
        let url = loopback_url(url)?;
        let mut headers = self.common.clone();
        headers.extend(header);
        let queue = Queue::spawn(self.client.clone(), url, headers);
        let mut registered = lock(&self.registered);
        registered.push((interface, queue));
        Ok(self.fixed.len() + registered.iter().filter(|(i, _)| *i == interface).count())
    }

    /// Drops every registered listener; `--webhook` ones stay.
    pub fn unregister_all(&self) {
        lock(&self.registered).clear();
    }

    fn listeners(&self, interface: Interface) -> Vec<Queue> {
        let registered = lock(&self.registered);
        let mine = registered.iter().filter(|(i, _)| *i == interface);
        self.fixed
            .iter()
            .cloned()
            .chain(mine.map(|(_, q)| q.clone()))
            .collect()
    }

    /// The worker of a task's URL (already checked when the task stored it).
    fn task_queue(&self, url: &str) -> Option<Queue> {
        let mut task_urls = lock(&self.task_urls);
        if let Some(queue) = task_urls.get(url) {
            return Some(queue.clone());
        }
        let parsed = loopback_url(url).ok()?;
        let queue = Queue::spawn(self.client.clone(), parsed, self.common.clone());
        task_urls.insert(url.to_string(), queue.clone());
        Some(queue)
    }

    /// Delivers `event` as is to the interface's listeners; answers how many.
    pub fn emit(&self, interface: Interface, event: &Value) -> usize {
        let label = match event.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            _ => "(no type)".to_string(),
        };
        let listeners = self.listeners(interface);
        let event = Arc::new(Event {
            label,
            body: Bytes::from(event.to_string()),
        });
        for queue in &listeners {
            queue.send(&event);
        }
        listeners.len()
    }

    /// Delivers a `kind` event with `data` to the interface's listeners, and to `task_url`.
    pub fn publish(
        &self,
        interface: Interface,
        kind: &str,
        data: Value,
        now: DateTime<Utc>,
        task_url: Option<&str>,
    ) {
        let event = Arc::new(Event {
            label: kind.to_string(),
            body: Bytes::from(envelope(kind, data, now).to_string()),
        });
        let own = task_url.and_then(|url| self.task_queue(url));
        for queue in self.listeners(interface).iter().chain(&own) {
            queue.send(&event);
        }
    }
}

/// `localhost` or a loopback IP: the only hosts a webhook may reach over plain http.
fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        Some(host) if host.eq_ignore_ascii_case("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_http_urls_are_accepted() {
        for ok in [
            "http://127.0.0.1:9/x",
            "http://127.1.2.3/",
            "http://[::1]:80/hook",
            "http://localhost:8080",
            "http://LOCALHOST/",
        ] {
            assert!(loopback_url(ok).is_ok(), "{ok}");
        }
        for refused in [
            "https://127.0.0.1/",
            "http://10.0.0.1/",
            "http://example.com/",
            "http://localhost.example.com/",
            "http://[::2]/",
            "ftp://localhost/",
            "not a url",
        ] {
            assert!(loopback_url(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn a_header_line_is_name_colon_value_and_its_value_stays_hidden() {
        let h = Header::parse("X-Hook-Key:  s3cret ").unwrap();
        assert_eq!(
            (h.name.as_str(), h.value.as_bytes()),
            ("x-hook-key", &b"s3cret"[..])
        );
        assert!(!format!("{h:?}").contains("s3cret"));
        let e = Header::parse("s3cret").unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
        assert!(Header::parse("bad name: v").is_err());
    }
}
