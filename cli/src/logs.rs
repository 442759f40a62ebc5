//! `--log-format text|json`: with `json`, the client's events (each attempt's answer,
//! retries and why, waits, failures, pages: the runtime's `tracing` events that carry an
//! `inspection.event`) and the command's final error go to standard error as one JSON
//! object a line, for a scheduler's log collector. `text` (the default) keeps the tool's
//! plain lines. Nothing here reads a secret: the events carry operations, path templates,
//! statuses and waits (the runtime's rule), and failures are the messages the tool prints.

use std::io::Write;

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
    let _ = tracing::subscriber::set_global_default(JsonLines(write_line));
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

/// The subscriber: the runtime's events only (spans are not followed; each event names
/// its operation and attempt itself), each given to its sink with its level (the tool's:
/// [`write_line`]).
struct JsonLines<S>(S);

impl<S: Fn(&str, Map<String, Value>) + Send + Sync + 'static> Subscriber for JsonLines<S> {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.is_event() && metadata.target().starts_with("inspection_runtime")
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        if !fields.0.contains_key("event") {
            return;
        }
        (self.0)(event.metadata().level().as_str(), fields.0);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
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
        let subscriber = JsonLines(move |_: &str, fields| kept.lock().unwrap().push(fields));
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
        });
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0];
        assert_eq!(line["event"], "retry");
        assert_eq!(line["attempt"], 2);
        assert_eq!(line["http.response.status_code"], 429);
        assert_eq!(line["retry_after"], true);
        assert_eq!(line["message"], "retrying GET /units in 1000 ms");
    }
}
