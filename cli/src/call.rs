//! What the generated call adapter (`generated/cli/src/calls/`) asks of its includer:
//! the arguments of a call, the mode it runs in, and a macro per kind of answer, which
//! here print the answer, save it to a file, or show the request without sending it.
//! The Rust conformance runner includes the adapter too: it reads a step's arguments with
//! this [`Args`] (named as the step's keys) and gives the mode and macros its own meaning.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use inspection_runtime::{BoxStream, Core, Error, Request, Upserted};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::exit::Failure;
use crate::output::{self, Printer};

pub use crate::{
    __cli_alternative as alternative, __cli_answer as answer, __cli_list as list,
    __cli_presigned_action as presigned_action,
};

/// How a command runs: shown or sent, every page or one, where bytes go.
#[derive(Clone, Debug, Default)]
pub struct Mode {
    /// `--dry-run`: the core whose `preview` shows each request; nothing is sent.
    pub dry_run: Option<Core>,
    /// `--all`: every record of every page, one JSON line each.
    pub all: bool,
    /// `--max-items N`: stop after N records.
    pub max_items: Option<u64>,
    /// The operation's alternative answer (`--pdf`) instead of its JSON.
    pub alternative: bool,
    /// `--output FILE` (`-`: standard output) for a binary answer.
    pub output: Option<std::path::PathBuf>,
    pub printer: Printer,
    /// JSON paths (`user.password`) of body values a dry run must not show.
    pub secret_paths: &'static [&'static str],
    /// For a tool that reads a call's outcome rather than printing it (the import): the
    /// answer, the dry run's request or the error is kept here, and nothing is printed.
    pub keep: Option<Keep>,
    /// With `keep`: the request is only made (so every documented limit is checked) and
    /// neither sent nor shown.
    pub check_only: bool,
}

/// Where a call's outcome is kept (see [`Mode::keep`]).
pub type Keep = std::sync::Arc<std::sync::Mutex<Option<Kept>>>;

/// A call's outcome, kept.
#[derive(Debug)]
pub enum Kept {
    /// The request was made: it breaks no documented limit.
    Checked,
    /// A dry run's request, as a dry run shows it.
    Preview(Value),
    /// The answer (`created`: for an upsert, whether it created the record).
    Answer { created: Option<bool>, value: Value },
    /// The client's error: refused before sending, or the service's answer.
    Failed(Error),
}

impl Mode {
    /// This mode, keeping the call's outcome in a place of its own (given with it) rather
    /// than printing it; [`taken`] reads it once the call is done.
    pub fn keeping(mut self) -> (Mode, Keep) {
        let keep = Keep::default();
        self.keep = Some(keep.clone());
        (self, keep)
    }

    /// Keeps `kept` when this mode keeps outcomes; `false` when it prints them.
    fn kept(&self, kept: impl FnOnce() -> Kept) -> bool {
        match &self.keep {
            Some(keep) => {
                *keep.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept());
                true
            }
            None => false,
        }
    }
}

/// What a call made in a [`Mode::keeping`] mode kept, taken out.
pub fn taken(keep: &Keep) -> Option<Kept> {
    keep.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// A record reference given as JSON, as the generated adapters take one: an id (text, or
/// a number), `{"external": "<id>"}` where the reference has an external form (`external`
/// makes it), `{"self": true}` where it can name the caller (`me`); `None` for any other
/// value. The command line writes these (`external:ID`, `self`); a conformance step's
/// `args` hold them as they are.
fn record_ref_of<T: From<String>>(
    value: Value,
    external: Option<fn(String) -> T>,
    me: Option<T>,
) -> Option<T> {
    let only = |m: &Map<String, Value>, key: &str| m.len() == 1 && m.contains_key(key);
    match (value, external, me) {
        (Value::Object(m), _, Some(me)) if only(&m, "self") && m["self"] == Value::Bool(true) => {
            Some(me)
        }
        (Value::Object(m), Some(external), _) if only(&m, "external") => {
            m["external"].as_str().map(|id| external(id.to_string()))
        }
        (Value::String(id), _, _) => Some(T::from(id)),
        (Value::Number(n), _, _) => Some(T::from(n.to_string())),
        _ => None,
    }
}

/// What a command came to: printed, or failed.
#[derive(Debug)]
pub struct Outcome(pub Result<(), Failure>);

/// A call's arguments by place: `path` and `query` by the spec's names, the JSON `body`,
/// and the tool's own (`resume`, `body_text`, `content_type`). Each read takes its value,
/// so `finish` can name leftovers. Messages name an argument as [`Naming`] says.
#[derive(Debug, Default)]
pub struct Args {
    pub path: Map<String, Value>,
    pub query: Map<String, Value>,
    pub body: Option<Value>,
    pub other: Map<String, Value>,
    /// Flags by spec name, for messages (`unit-id` for `unit_id`).
    pub flags: BTreeMap<&'static str, &'static str>,
    /// The body holds a secret: no message quotes its values.
    pub secret_body: bool,
    pub naming: Naming,
}

/// Where the arguments came from, which is how messages name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// The command line: a parameter by its flag (`--unit-id`), the body as `--body`.
    #[default]
    Flags,
    /// A conformance scenario's step: by its key in the step's `args`
    /// (`args.path.unit_id`), for the Rust conformance runner, which includes the adapter.
    Step,
}

impl Args {
    /// How messages name the parameter `name` of `place` (`path` or `query`).
    fn parameter(&self, place: &str, name: &str) -> String {
        match (self.naming, self.flags.get(name)) {
            (Naming::Step, _) => format!("`args.{place}.{name}`"),
            (Naming::Flags, Some(flag)) => format!("--{flag}"),
            (Naming::Flags, None) => format!("`{name}`"),
        }
    }

    /// How messages name the tool's own argument `name`.
    fn own(&self, name: &str) -> String {
        match self.naming {
            Naming::Step => format!("`args.{name}`"),
            Naming::Flags => format!("--{}", name.replace('_', "-")),
        }
    }

    /// A required path parameter.
    pub fn path<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        let shown = self.parameter("path", name);
        let value = self
            .path
            .remove(name)
            .ok_or_else(|| format!("{shown} is required"))?;
        typed(value, &shown)
    }

    /// A path parameter naming a record by id, by external id or as the caller, where the
    /// reference takes those forms: `external:ID` and `self` on the command line,
    /// `{external: ID}` and `{self: true}` in a step.
    pub fn record_ref<T: From<String>>(
        &mut self,
        name: &str,
        external: Option<fn(String) -> T>,
        me: Option<T>,
    ) -> Result<T, String> {
        let shown = self.parameter("path", name);
        let value = self
            .path
            .remove(name)
            .ok_or_else(|| format!("{shown} is required"))?;
        let forms = match self.naming {
            Naming::Flags => "`external:ID` or `self`",
            Naming::Step => "`{external: ID}` or `{self: true}`",
        };
        record_ref_of(value, external, me)
            .ok_or_else(|| format!("{shown}: an id, or {forms} where the path takes them"))
    }

    /// An optional query parameter.
    pub fn query<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, String> {
        let shown = self.parameter("query", name);
        self.query
            .remove(name)
            .map(|v| typed(v, &shown))
            .transpose()
    }

    /// A required query parameter.
    pub fn required_query<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        let shown = self.parameter("query", name);
        self.query(name)?
            .ok_or_else(|| format!("{shown} is required"))
    }

    /// The request body, read as the operation's body type. The message names what does
    /// not fit; for a body that holds a secret it quotes no value.
    pub fn body<T: DeserializeOwned>(&mut self) -> Result<T, String> {
        let missing = match self.naming {
            Naming::Flags => "this command needs a body: --body FILE",
            Naming::Step => "`args.body` is required",
        };
        self.optional_body()?.ok_or_else(|| missing.to_string())
    }

    /// The body of an operation that may go without one: `None` when none is given.
    pub fn optional_body<T: DeserializeOwned>(&mut self) -> Result<Option<T>, String> {
        let Some(value) = self.body.take() else {
            return Ok(None);
        };
        serde_json::from_value(value).map(Some).map_err(|e| {
            if self.secret_body {
                "the body does not fit the operation (its message is not shown: the body \
                 holds a secret)"
                    .to_string()
            } else {
                format!("the body does not fit the operation: {e}")
            }
        })
    }

    /// One of the tool's own arguments (a client action's, in a step).
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, String> {
        let shown = self.own(name);
        self.other
            .remove(name)
            .map(|v| typed(v, &shown))
            .transpose()
    }

    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        let shown = self.own(name);
        self.take(name)?
            .ok_or_else(|| format!("{shown} is required"))
    }

    /// Fails when a value was given that the call does not read.
    pub fn finish(self) -> Result<(), String> {
        let mut left: Vec<String> = Vec::new();
        left.extend(self.path.keys().map(|k| self.parameter("path", k)));
        left.extend(self.query.keys().map(|k| self.parameter("query", k)));
        left.extend(self.body.iter().map(|_| self.own("body")));
        left.extend(self.other.keys().map(|k| self.own(k)));
        if left.is_empty() {
            Ok(())
        } else {
            let what = match self.naming {
                Naming::Flags => "command",
                Naming::Step => "call",
            };
            Err(format!("this {what} takes no {}", left.join(", ")))
        }
    }
}

fn typed<T: DeserializeOwned>(value: Value, shown: &str) -> Result<T, String> {
    serde_json::from_value(value.clone())
        .map_err(|e| format!("{shown}: {value} does not fit the operation's type: {e}"))
}

/// The builder with an optional input set when the command line gives it.
pub fn set_if<B, T>(builder: B, value: Option<T>, set: impl FnOnce(B, T) -> B) -> B {
    match value {
        Some(value) => set(builder, value),
        None => builder,
    }
}

/// The builder, started at `--resume` when the command line gives it.
pub fn resumed<B>(
    args: &mut Args,
    builder: B,
    resume: impl FnOnce(B, inspection_runtime::Resume) -> B,
) -> Result<B, String> {
    match args.take::<String>("resume")? {
        Some(text) => Ok(resume(
            builder,
            text.parse().map_err(|e: Error| format!("--resume: {e}"))?,
        )),
        None => Ok(builder),
    }
}

/// In a dry run, the request shown instead of sent (`Some`); otherwise `None`, and the
/// caller sends it.
pub fn preview(mode: &Mode, request: Result<Request, Error>) -> Option<Outcome> {
    if mode.check_only || (mode.keep.is_some() && mode.dry_run.is_some()) {
        let core = mode.dry_run.as_ref();
        mode.kept(|| match (request, core) {
            (Err(e), _) => Kept::Failed(e),
            (Ok(r), Some(core)) if !mode.check_only => {
                Kept::Preview(output::preview_json(&core.preview(&r), mode.secret_paths))
            }
            (Ok(_), _) => Kept::Checked,
        });
        return Some(Outcome(Ok(())));
    }
    let core = mode.dry_run.as_ref()?;
    Some(Outcome(request.map_err(Failure::from).and_then(|r| {
        output::print_preview(&mode.printer, &core.preview(&r), mode.secret_paths)
    })))
}

/// A JSON answer, printed.
pub fn printed<T: Serialize>(mode: &Mode, answer: Result<T, Error>) -> Outcome {
    let answer = match keep(mode, answer, None) {
        Ok(kept) => return kept,
        Err(answer) => answer,
    };
    Outcome(
        answer
            .map_err(Failure::from)
            .and_then(|value| mode.printer.print(&value)),
    )
}

/// In a mode that keeps outcomes, `answer` kept (`Ok`, the outcome); otherwise `answer`
/// given back to be printed.
fn keep<T: Serialize>(
    mode: &Mode,
    answer: Result<T, Error>,
    created: Option<bool>,
) -> Result<Outcome, Result<T, Error>> {
    if mode.keep.is_none() {
        return Err(answer);
    }
    mode.kept(|| match answer {
        Ok(value) => Kept::Answer {
            created,
            value: serde_json::to_value(&value).unwrap_or(Value::Null),
        },
        Err(e) => Kept::Failed(e),
    });
    Ok(Outcome(Ok(())))
}

/// An answer without a body: nothing printed.
pub fn finished(mode: &Mode, answer: Result<(), Error>) -> Outcome {
    match keep(mode, answer, None) {
        Ok(kept) => kept,
        Err(answer) => Outcome(answer.map_err(Failure::from)),
    }
}

/// An upsert's answer: `{"created": bool, "value": record}`.
pub fn upserted<T: Serialize>(mode: &Mode, answer: Result<Upserted<T>, Error>) -> Outcome {
    if mode.keep.is_some() {
        let created = answer.as_ref().ok().map(Upserted::is_created);
        let kept = keep(mode, answer.map(Upserted::into_inner), created);
        return kept.unwrap_or(Outcome(Ok(())));
    }
    printed(
        mode,
        answer.map(|u| {
            let created = u.is_created();
            serde_json::json!({"created": created, "value": u.into_inner()})
        }),
    )
}

/// Every record of a walk, one JSON line each, up to `--max-items`. What was printed
/// before a failure stays printed; the failure says where to resume.
pub async fn lines<T: Serialize>(mode: &Mode, mut stream: BoxStream<T>) -> Outcome {
    let mut out = output::Lines::stdout();
    let mut count = 0u64;
    while mode.max_items.is_none_or(|max| count < max) {
        let Some(next) = stream.next().await else {
            break;
        };
        let written = next
            .map_err(Failure::from)
            .and_then(|record| out.write(&record));
        match written {
            Ok(true) => count += 1,
            // The reader went away (`| head`): nothing more to do.
            Ok(false) => return Outcome(Ok(())),
            Err(failure) => {
                out.flush();
                return Outcome(Err(failure));
            }
        }
    }
    out.flush();
    Outcome(Ok(()))
}

/// One answer, shown (a dry run) or sent and made an outcome as `outcome_of::$kind` says.
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_sent {
    ($builder:expr, $mode:expr, $kind:ident) => {{
        let builder = $builder;
        let mode = $mode;
        match $crate::call::preview(&mode, builder.to_request()) {
            Some(outcome) => outcome,
            None => $crate::call::outcome_of::$kind(&mode, builder.send().await),
        }
    }};
}

/// An operation's one answer as an outcome, by the kind the adapter names.
pub mod outcome_of {
    /// No content: nothing printed.
    pub use super::finished as empty;
    /// A JSON answer: printed.
    pub use super::printed as json;
    /// An upsert: `{"created": ..., "value": ...}`.
    pub use super::upserted as upsert;
}

/// Bytes written by `$builder.$to(writer)` to `--output` (or standard output when it is
/// not a terminal) as they arrive; in a dry run, the request (`$request`) shown instead.
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_download {
    ($builder:expr, $mode:expr, $request:expr, $to:ident) => {{
        let builder = $builder;
        let mode = $mode;
        match $crate::call::preview(&mode, $request) {
            Some(outcome) => outcome,
            None => match $crate::output::Download::open(mode.output.as_deref()).await {
                Err(failure) => $crate::call::Outcome(Err(failure)),
                Ok(mut download) => {
                    let written = builder.$to(download.writer()).await;
                    $crate::call::Outcome(download.finish(written).await)
                }
            },
        }
    }};
}

/// An operation with one answer: bytes saved like a download, any other kind sent (or
/// shown, in a dry run) and made an outcome as `outcome_of::$kind` says.
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_answer {
    ($op:expr, $args:ident, $builder:expr, $mode:expr, bytes) => {{
        let builder = $builder;
        let request = builder.to_request();
        $crate::__cli_download!(builder, $mode, request, send_to)
    }};
    ($op:expr, $args:ident, $builder:expr, $mode:expr, $kind:ident) => {
        $crate::__cli_sent!($builder, $mode, $kind)
    };
}

/// A JSON answer with a binary alternative (`--pdf`), written like bytes.
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_alternative {
    ($op:expr, $args:ident, $builder:expr, $mode:expr, $plain:ident, $to:ident, $media:literal) => {{
        let builder = $builder;
        let mode = $mode;
        if mode.alternative {
            let request = builder.to_request().map(|r| r.accept($media));
            $crate::__cli_download!(builder, mode, request, $to)
        } else {
            $crate::__cli_sent!(builder, mode, json)
        }
    }};
}

/// A list: one page (`--resume` starts at a stored one), or with `--all` every record.
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_list {
    ($op:expr, $args:ident, $builder:expr, $mode:expr $(, backward)?) => {{
        let builder = $crate::call::resumed(&mut $args, $builder, |b, r| b.resume(r))?;
        let mode = $mode;
        match $crate::call::preview(&mode, builder.to_request()) {
            Some(outcome) => outcome,
            None if mode.all => $crate::call::lines(&mode, builder.stream()).await,
            None => $crate::call::printed(&mode, builder.send().await),
        }
    }};
}

/// The conformance runner's client actions; the tool has none (`None`).
#[doc(hidden)]
#[macro_export]
macro_rules! __cli_presigned_action {
    ($client:expr, $name:expr, $args:ident) => {{
        let _ = (&$client, &$name, &$args);
        None::<$crate::call::Outcome>
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message names an argument as the user gave it: a flag on the command line, a
    /// key of `args` in a conformance step.
    #[test]
    fn messages_name_arguments_as_their_source_gives_them() {
        let mut flags = Args::default();
        flags.flags.insert("unit_id", "unit-id");
        flags.query.insert("limit".into(), Value::from("many"));
        flags.other.insert("body_text".into(), Value::from(1));
        assert_eq!(
            flags.path::<String>("unit_id").unwrap_err(),
            "--unit-id is required"
        );
        let bad = flags.query::<u32>("limit").unwrap_err();
        assert!(bad.starts_with("`limit`: \"many\" does not fit"), "{bad}");
        assert_eq!(
            flags.body::<Value>().unwrap_err(),
            "this command needs a body: --body FILE"
        );
        assert_eq!(
            flags.finish().unwrap_err(),
            "this command takes no --body-text"
        );

        let mut step = Args {
            naming: Naming::Step,
            ..Args::default()
        };
        step.path
            .insert("unit_id".into(), serde_json::json!({"external": "E1"}));
        step.other.insert("extra".into(), Value::from(1));
        let reference = step
            .record_ref::<String>("unit_id", None, None)
            .unwrap_err();
        assert_eq!(
            reference,
            "`args.path.unit_id`: an id, or `{external: ID}` or `{self: true}` where the path takes them"
        );
        assert_eq!(
            step.required::<u32>("count").unwrap_err(),
            "`args.count` is required"
        );
        assert_eq!(
            step.finish().unwrap_err(),
            "this call takes no `args.extra`"
        );
    }
}
