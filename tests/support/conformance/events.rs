//! `expect_events` for the Rust client: a `tracing` layer that turns the runtime's spans
//! and events into the scenario format's event JSON (`tests/conformance/README.md`), kept
//! until the runner takes them after a step. Only what happens inside a [`STEP`] span is
//! recorded: other tests of the same binary run clients too. Scenarios run one at a time,
//! so one global record is enough.

use std::sync::{Mutex, Once};

use serde_json::{Map, Value, json};
use tracing::field::{Field, Visit};
use tracing::span::Attributes;
use tracing::{Event, Id, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

static RECORD: Mutex<Vec<Value>> = Mutex::new(Vec::new());

/// The name of the span the runner runs a step's call in.
pub const STEP: &str = "conformance.step";

/// The span a step's call runs in, so that its events are the step's.
pub fn step_span() -> tracing::Span {
    tracing::info_span!("conformance.step")
}

/// Whether `span` is a step's span or inside one.
fn in_step<S: Subscriber + for<'a> LookupSpan<'a>>(
    ctx: &Context<'_, S>,
    span: Option<&Id>,
) -> bool {
    span.and_then(|id| ctx.span(id))
        .is_some_and(|s| s.scope().any(|s| s.name() == STEP))
}

/// Starts recording (once per process; the first call installs the layer).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing_subscriber::registry().with(Recorder).init();
    });
}

/// The events recorded since the last call, in order.
pub fn take() -> Vec<Value> {
    std::mem::take(&mut *RECORD.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Every event the runtime reports, as the scenario format writes it.
struct Recorder;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        // An attempt's span opening is its `request` event.
        if attrs.metadata().name() != "inspection.attempt" || !in_step(&ctx, Some(id)) {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let f = fields.0;
        push(json!({
            "event": "request",
            "operation": f.get("inspection.operation"),
            "method": f.get("http.request.method"),
            "url_template": f.get("url.template"),
            "attempt": f.get("inspection.attempt"),
        }));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let in_step = ctx
            .event_scope(event)
            .is_some_and(|mut scope| scope.any(|s| s.name() == STEP));
        if !in_step {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let f = fields.0;
        let Some(kind) = f.get("inspection.event").and_then(Value::as_str) else {
            return;
        };
        let get = |name: &str| f.get(name).cloned().unwrap_or(Value::Null);
        let mut out = json!({"event": kind, "operation": get("inspection.operation")});
        let more = match kind {
            "response" => json!({
                "attempt": get("inspection.attempt"),
                "status": get("http.response.status_code"),
                "duration_ms": get("inspection.duration_ms"),
                "request_id": get("inspection.request_id"),
            }),
            "retry" => json!({
                "attempt": get("inspection.attempt"),
                "reason": get("inspection.reason"),
                "status": get("http.response.status_code"),
                "wait_ms": get("inspection.wait_ms"),
                "retry_after": get("inspection.retry_after"),
            }),
            "pause" => {
                json!({"reason": get("inspection.reason"), "wait_ms": get("inspection.wait_ms")})
            }
            "page" => json!({"page": get("inspection.page"), "items": get("inspection.items")}),
            "error" => {
                json!({"error_type": get("error.type"), "status": get("http.response.status_code")})
            }
            other => json!({"unknown": other}),
        };
        if let (Some(out), Value::Object(more)) = (out.as_object_mut(), more) {
            out.extend(more);
        }
        push(out);
    }
}

fn push(event: Value) {
    RECORD.lock().unwrap_or_else(|p| p.into_inner()).push(event);
}

/// A span's or event's fields as JSON, by their full names.
#[derive(Default)]
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        // `%value` fields (the method) arrive here: their text, unquoted.
        self.0
            .insert(field.name().into(), json!(format!("{value:?}")));
    }
}

/// Fails when any value of any event holds one of `secrets`.
pub fn check_secrets(events: &[Value], secrets: &[String]) -> Result<(), String> {
    for event in events {
        let text = event.to_string();
        if let Some(secret) = secrets.iter().find(|s| text.contains(s.as_str())) {
            // The message names where, never the secret itself.
            let shown = text.replace(secret.as_str(), "<the secret>");
            return Err(format!(
                "an event holds one of the scenario's secrets: {shown}"
            ));
        }
    }
    Ok(())
}

/// Compares the events of a step with `expected`: as many, each matching in order.
pub fn check_events(expected: &[Value], got: &[Value]) -> Result<(), String> {
    let listed = || {
        got.iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n  ")
    };
    if expected.len() != got.len() {
        return Err(format!(
            "expected {} events, the client reported {}:\n  {}",
            expected.len(),
            got.len(),
            listed()
        ));
    }
    for (n, (want, event)) in expected.iter().zip(got).enumerate() {
        super::expect::check(want, Some(event), &format!("events[{n}]"))
            .map_err(|e| format!("{e}; the events:\n  {}", listed()))?;
    }
    Ok(())
}
