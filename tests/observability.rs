//! The Rust client's traces through a real OpenTelemetry SDK (`tracing-opentelemetry` into
//! `opentelemetry_sdk`'s in-memory exporter), as docs/rust.md tells a user to wire them:
//! a span per call and one per attempt, with OpenTelemetry's HTTP client attribute names,
//! the path template and never a secret. Which events each attempt reports, in every
//! language, is a conformance scenario (`tests/conformance/events.yaml`).

#[path = "support/mod.rs"]
mod support;

use std::time::Duration;

use inspection_client::RetryPolicy;
use inspection_client::v3::*;
use opentelemetry::trace::{Status, TracerProvider as _};
use opentelemetry::{Key, Value};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use support::server::{Canned, Server};
use tracing_subscriber::layer::SubscriberExt;

const SECRET: &str = "OTEL-SECRET-71c2e9";

fn attr(span: &SpanData, key: &str) -> Option<Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_string()))
        .map(|kv| kv.value.clone())
}

#[tokio::test]
async fn a_retried_call_reaches_an_opentelemetry_sdk_as_conventional_spans() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("inspection"));
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));

    let server = Server::start().await;
    server.push(Canned::status(503));
    server.push(Canned::json(
        200,
        r#"{"id": "u-7", "reference_number": "R-7", "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z"}"#,
    ));
    let config = Client::default_config().no_pacing().retry(RetryPolicy::new(
        3,
        Duration::from_millis(5),
        Duration::from_secs(1),
    ));
    let client =
        Client::with_config(&server.base(), ApiKey::new("key-id", SECRET), config).unwrap();
    let unit = client.get_unit("u-7").send().await.unwrap();
    assert_eq!(unit.id.as_str(), "u-7");
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let attempts: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.name == "GET /units/{unit_id}")
        .collect();
    let calls: Vec<&SpanData> = spans.iter().filter(|s| s.name == "get_unit").collect();
    assert_eq!((calls.len(), attempts.len()), (1, 2), "{spans:#?}");
    let call = calls[0];
    for a in &attempts {
        assert_eq!(a.span_kind, opentelemetry::trace::SpanKind::Client);
        assert_eq!(a.parent_span_id, call.span_context.span_id());
        assert_eq!(attr(a, "http.request.method"), Some("GET".into()));
        assert_eq!(attr(a, "url.template"), Some("/units/{unit_id}".into()));
        assert_eq!(attr(a, "server.address"), Some("127.0.0.1".into()));
        assert!(attr(a, "server.port").is_some());
    }
    // Spans end in the order they finish: the failed attempt first.
    let (first, second) = (attempts[0], attempts[1]);
    assert_eq!(
        attr(first, "http.response.status_code"),
        Some(Value::I64(503))
    );
    assert_eq!(attr(first, "error.type"), Some("503".into()));
    assert!(
        matches!(first.status, Status::Error { .. }),
        "{:?}",
        first.status
    );
    assert_eq!(attr(first, "http.request.resend_count"), None);
    assert_eq!(
        attr(second, "http.response.status_code"),
        Some(Value::I64(200))
    );
    assert_eq!(
        attr(second, "http.request.resend_count"),
        Some(Value::I64(1))
    );
    assert_eq!(attr(second, "error.type"), None);
    // The retry is an event on the failed attempt, saying why.
    let retry = first
        .events
        .iter()
        .find(|e| {
            e.attributes
                .iter()
                .any(|kv| kv.key.as_str() == "inspection.event" && kv.value.as_str() == "retry")
        })
        .expect("a retry event on the failed attempt");
    assert!(
        retry
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "inspection.reason" && kv.value.as_str() == "status"),
        "{retry:?}"
    );
    // No attribute, event or name anywhere holds the key secret or the concrete id's path.
    let everything = format!("{spans:?}");
    assert!(!everything.contains(SECRET));
    assert!(!everything.contains("/units/u-7"));
}
