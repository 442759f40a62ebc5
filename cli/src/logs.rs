//! `--log-format text|json`: with `json`, the client's events (each attempt's answer,
//! retries and why, waits, failures, pages: the runtime's `tracing` events that carry an
//! `inspection.event`) and the command's final error go to standard error as one JSON
//! object a line, for a scheduler's log collector. `text` (the default) keeps the tool's
//! plain lines. Nothing here reads a secret: the events carry operations, path templates,
//! statuses and waits (the runtime's rule), and failures are the messages the tool prints.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// How the tool logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl LogFormat {
    pub fn parse(text: &str) -> Result<LogFormat, String> {
        match text {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("`{other}`: text or json")),
        }
    }
}

/// Sends the client's events to standard error as JSON lines, for the rest of the process.
pub fn install_json() {
    let _ = tracing::subscriber::set_global_default(JsonLines::new(write_line));
}

/// One JSON object on standard error, with the time and `level` first.
pub fn write_line(level: &str, mut fields: Map<String, Value>) {
    let mut line = Map::new();
    line.insert("ts".into(), Value::String(now()));
    line.insert("level".into(), Value::String(level.into()));
    line.append(&mut fields);
    let text = Value::Object(line).to_string();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// The command's final error as a line: its class, exit code, message and hint.
pub fn failure_line(failure: &crate::exit::Failure) {
    let mut fields = Map::new();
    fields.insert("event".into(), "failed".into());
    fields.insert("class".into(), failure.class.name().into());
    fields.insert("exit_code".into(), failure.class.code().into());
    fields.insert("message".into(), failure.message.clone().into());
    if let Some(hint) = &failure.hint {
        fields.insert("hint".into(), hint.clone().into());
    }
    write_line("ERROR", fields);
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The subscriber: the runtime's events and the tool's own (`inspection_cli`: a failed
/// tenant), each given to its sink with its level (the tool's: [`write_line`]). Of spans it
/// follows only `tenant` (`sync --tenants`), whose name every event inside it carries.
struct JsonLines<S> {
    sink: S,
    /// The tenant of each `tenant` span open, its metadata and how many handles it has,
    /// by span id.
    tenants: Mutex<HashMap<u64, Open>>,
    next_id: AtomicU64,
}

/// A `tenant` span that is open.
struct Open {
    tenant: String,
    metadata: &'static Metadata<'static>,
    handles: usize,
}

thread_local! {
    /// The spans entered on this thread, innermost last.
    static ENTERED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

impl<S> JsonLines<S> {
    fn new(sink: S) -> Self {
        JsonLines {
            sink,
            tenants: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
        }
    }

    fn tenants(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Open>> {
        self.tenants.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<S: Fn(&str, Map<String, Value>) + Send + Sync + 'static> Subscriber for JsonLines<S> {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        let target = metadata.target();
        match metadata.is_span() {
            true => metadata.name() == "tenant",
            false => target.starts_with("inspection_runtime") || target == "inspection_cli",
        }
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut fields = Fields(Map::new());
        span.record(&mut fields);
        if let Some(Value::String(tenant)) = fields.0.remove("tenant") {
            let metadata = span.metadata();
            let open = Open {
                tenant,
                metadata,
                handles: 1,
            };
            self.tenants().insert(id, open);
        }
        Id::from_u64(id)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        if !fields.0.contains_key("event") {
            return;
        }
        let inner = ENTERED.with(|e| e.borrow().last().copied());
        if let Some(tenant) = inner.and_then(|id| Some(self.tenants().get(&id)?.tenant.clone())) {
            fields.0.entry("tenant").or_insert(tenant.into());
        }
        (self.sink)(event.metadata().level().as_str(), fields.0);
    }

    fn enter(&self, span: &Id) {
        ENTERED.with(|e| e.borrow_mut().push(span.into_u64()));
    }

    fn exit(&self, _: &Id) {
        ENTERED.with(|e| e.borrow_mut().pop());
    }

    /// The span entered, so that work spawned in it (`in_current_span`) stays in it.
    fn current_span(&self) -> tracing_core::span::Current {
        let inner = ENTERED.with(|e| e.borrow().last().copied());
        match inner.and_then(|id| Some((id, self.tenants().get(&id)?.metadata))) {
            Some((id, metadata)) => tracing_core::span::Current::new(Id::from_u64(id), metadata),
            None => tracing_core::span::Current::none(),
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        if let Some(open) = self.tenants().get_mut(&span.into_u64()) {
            open.handles += 1;
        }
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        let mut tenants = self.tenants();
        let id = span.into_u64();
        let Some(open) = tenants.get_mut(&id) else {
            return true;
        };
        open.handles -= 1;
        if open.handles > 0 {
            return false;
        }
        tenants.remove(&id);
        true
    }
}

/// An event's fields by name (`inspection.` dropped: `event`, `operation`, `attempt`,
/// `reason`, `wait_ms`, ...; OpenTelemetry's names kept: `http.response.status_code`,
/// `error.type`), its text as `message`.
struct Fields(Map<String, Value>);

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        let name = field.name();
        let name = name.strip_prefix("inspection.").unwrap_or(name);
        self.0.insert(name.to_string(), value);
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, format!("{value:?}").into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_text_or_json() {
        assert_eq!(LogFormat::parse("json"), Ok(LogFormat::Json));
        assert_eq!(LogFormat::parse("text"), Ok(LogFormat::Text));
        assert!(
            LogFormat::parse("xml")
                .unwrap_err()
                .contains("text or json")
        );
    }

    #[test]
    fn an_event_s_fields_are_named_without_the_prefix() {
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = lines.clone();
        let subscriber = JsonLines::new(move |_: &str, fields| kept.lock().unwrap().push(fields));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(
                target: "inspection_runtime::transport",
                {
                    inspection.event = "retry",
                    inspection.attempt = 2u32,
                    http.response.status_code = 429u16,
                    inspection.retry_after = true
                },
                "retrying GET /units in {} ms",
                1000
            );
            tracing::warn!(target: "inspection_runtime::transport", "no event field");
            tracing::warn!(target: "other", { inspection.event = "retry" }, "not the runtime's");
            let span = tracing::info_span!(target: "inspection_cli", "tenant", tenant = "acme");
            span.in_scope(|| {
                tracing::warn!(target: "inspection_runtime::transport", { inspection.event = "pause" }, "paced");
            });
            tracing::warn!(target: "inspection_runtime::transport", { inspection.event = "pause" }, "outside");
        });
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            lines[1]["tenant"], "acme",
            "an event in a tenant's span names it"
        );
        assert!(lines[2].get("tenant").is_none(), "{:?}", lines[2]);
        let line = &lines[0];
        assert_eq!(line["event"], "retry");
        assert_eq!(line["attempt"], 2);
        assert_eq!(line["http.response.status_code"], 429);
        assert_eq!(line["retry_after"], true);
        assert_eq!(line["message"], "retrying GET /units in 1000 ms");
    }
}
