//! What both adapters share: reading a step's `args` into typed values, and turning what a
//! call returned into the JSON result (or error description) the expectations compare.

use futures_util::StreamExt;
/// A step's `args` are read as the tool reads a command line's, named as the step's keys.
pub use inspection_cli_runtime::call::Args;
use inspection_cli_runtime::call::Naming;
/// The builder with an optional input set when the step gives it: the tool's.
pub use inspection_cli_runtime::call::set_if;
use inspection_client::Error;
use inspection_client::runtime::{BoxStream, Bytes, Upserted};
use serde::Serialize;
use serde_json::{Map, Value, json};

pub use super::format::Mode;

/// What a step's call gave: a result, an error, or for a paging walk both (what was
/// collected before it failed).
#[derive(Debug, Default)]
pub struct Outcome {
    pub result: Option<Value>,
    pub error: Option<Error>,
}

/// The arguments of a step: its `args` mapping, with `path`, `query` and `body` keys and
/// the client actions' own, named in messages as the step's keys.
pub fn step_args(args: Option<Value>) -> Result<Args, String> {
    let mut map = match args {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => return Err(format!("`args` is a mapping, not {other}")),
    };
    let mut section = |name: &str| match map.remove(name) {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(format!("`args.{name}` is a mapping, not {other}")),
    };
    let (path, query) = (section("path")?, section("query")?);
    let body = map.remove("body");
    Ok(Args {
        path,
        query,
        body,
        other: map,
        naming: Naming::Step,
        ..Args::default()
    })
}

/// The answer re-serialised from its typed value.
pub fn done<T: Serialize>(answer: Result<T, Error>) -> Outcome {
    match answer {
        Ok(value) => Outcome {
            result: Some(serde_json::to_value(value).expect("results serialise")),
            error: None,
        },
        Err(e) => failed(e),
    }
}

pub fn failed(error: Error) -> Outcome {
    Outcome {
        result: None,
        error: Some(error),
    }
}

/// An upsert's answer: `{created, value}`.
pub fn upserted<T: Serialize>(answer: Result<Upserted<T>, Error>) -> Outcome {
    done(answer.map(|u| {
        let created = u.is_created();
        json!({"created": created, "value": serde_json::to_value(u.into_inner()).expect("results serialise")})
    }))
}

/// A binary answer: `{size, text}`, the text being the bytes as UTF-8 (invalid ones
/// replaced).
pub fn binary(answer: Result<Bytes, Error>) -> Outcome {
    done(answer.map(|b| json!({"size": b.len(), "text": String::from_utf8_lossy(&b)})))
}

/// Every page or record of a walk, and the error that ended it early, if any.
pub async fn collect<T: Serialize>(mut stream: BoxStream<T>) -> Outcome {
    let mut items = Vec::new();
    while let Some(next) = stream.next().await {
        match next {
            Ok(item) => items.push(serde_json::to_value(item).expect("results serialise")),
            Err(error) => {
                return Outcome {
                    result: Some(Value::Array(items)),
                    error: Some(error),
                };
            }
        }
    }
    Outcome {
        result: Some(Value::Array(items)),
        error: None,
    }
}

/// Mode `items_resumed`: walks every record; a walk that fails past its start is started
/// again at its error's resume point, a fresh walk's failed first page from the start
/// (each at most 500 times). The result: `{records, distinct_ids, interruptions}`; an error
/// is the failure that came with no resume point, or the last when it never ends.
pub async fn walk_resumed<T: Serialize>(
    start: impl Fn(Option<inspection_client::runtime::Resume>) -> BoxStream<T>,
) -> Outcome {
    let (mut records, mut ids) = (0u64, std::collections::BTreeSet::new());
    let (mut interruptions, mut restarts) = (0u64, 0u64);
    let mut from = None;
    loop {
        let mut stream = start(from.take());
        let failure = loop {
            match stream.next().await {
                Some(Ok(item)) => {
                    let item = serde_json::to_value(item).expect("results serialise");
                    records += 1;
                    ids.insert(item["id"].to_string());
                }
                Some(Err(e)) => break Some(e),
                None => break None,
            }
        };
        let error = match failure {
            None => None,
            Some(Error::Interrupted { resume, .. }) if interruptions < 500 => {
                interruptions += 1;
                from = Some(resume);
                continue;
            }
            Some(e) if e.resume().is_none() && records == 0 && restarts < 500 => {
                restarts += 1;
                continue;
            }
            Some(e) => Some(e),
        };
        let result =
            json!({"records": records, "distinct_ids": ids.len(), "interruptions": interruptions});
        return Outcome {
            result: Some(result),
            error,
        };
    }
}

pub fn unsupported<T>(op: &str, mode: Mode) -> Result<T, String> {
    Err(format!("`{op}` cannot be called in mode {mode:?}"))
}

/// The error as the JSON the `error` expectation is matched against: its kind, as the
/// client names it (`Error::kind`, also its events' `error.type`), and what each kind
/// carries.
pub fn describe(error: &Error) -> Value {
    if let Error::Interrupted { resume, source } = error {
        let mut inner = describe(source);
        inner["resume"] = json!(resume.to_string());
        return inner;
    }
    let mut described = json!({"kind": error.kind()});
    let more = match error {
        Error::Api(api) => json!({
            "status": api.status,
            "message": api.message,
            "retry_after_s": api.retry_after.map(|d| d.as_secs()),
        }),
        Error::Validation(violations) => {
            let mut paths: Vec<&str> = violations.0.iter().map(|v| v.path.as_str()).collect();
            paths.sort();
            json!({"paths": paths})
        }
        Error::Decode { status, path, .. } => json!({"status": status, "path": path}),
        Error::NotReady {
            attempts,
            retry_after,
            ..
        } => json!({
            "attempts": attempts,
            "retry_after_s": retry_after.map(|d| d.as_secs()),
        }),
        Error::TooLarge { limit, .. } => json!({"limit": limit}),
        Error::ForeignOrigin { what, origin } => json!({
            "origin": origin,
            "via": if *what == "a redirect" { "redirect" } else { "link" },
        }),
        _ => json!({}),
    };
    if let (Some(described), Value::Object(more)) = (described.as_object_mut(), more) {
        described.extend(more);
    }
    described
}

/// The client actions both interfaces have, called on the generated client:
/// `fetch_presigned {url}`, `put_presigned {url, body_text, content_type}`,
/// `put_parts {urls, parts, content_type, concurrency}`. `None` for other names.
macro_rules! presigned_action {
    ($client:expr, $name:expr, $args:ident) => {{
        use inspection_client::runtime::Bytes;
        use serde_json::json;
        use $crate::conformance::call::{binary, done};
        let args: &mut $crate::conformance::call::Args = &mut $args;
        match $name {
            "fetch_presigned" => {
                let url: String = args.required("url")?;
                Some(binary($client.fetch_presigned(&url).await))
            }
            "put_presigned" => {
                let url: String = args.required("url")?;
                let body: String = args.required("body_text")?;
                let content_type: Option<String> = args.take("content_type")?;
                let answer = $client
                    .put_presigned(&url, Bytes::from(body), content_type.as_deref())
                    .await;
                Some(done(answer.map(|etag| json!({"etag": etag}))))
            }
            "put_parts" => {
                let urls: Vec<String> = args.required("urls")?;
                let parts: Vec<String> = args.required("parts")?;
                let content_type: Option<String> = args.take("content_type")?;
                let concurrency: usize = args.take("concurrency")?.unwrap_or(1);
                let parts = parts.into_iter().map(Bytes::from).collect();
                let answer = $client
                    .put_parts(&urls, parts, content_type.as_deref(), concurrency)
                    .await;
                Some(done(answer.map(|etags| {
                    etags
                        .into_iter()
                        .map(|(n, etag)| json!({"part_number": n, "etag": etag}))
                        .collect::<Vec<_>>()
                })))
            }
            _ => None,
        }
    }};
}
pub(crate) use presigned_action;

/// A list operation in `send`, `pages`, `items` or `items_resumed` mode, and for link
/// paging (`backward`) `pages_backward` and `items_backward` too.
macro_rules! list {
    ($op:expr, $args:ident, $builder:expr, $mode:expr) => {
        $crate::conformance::call::list!(@modes $op, $args, $builder, $mode, b, {})
    };
    ($op:expr, $args:ident, $builder:expr, $mode:expr, backward) => {
        $crate::conformance::call::list!(@modes $op, $args, $builder, $mode, b, {
            $crate::conformance::format::Mode::PagesBackward => {
                $crate::conformance::call::collect(b.pages_backward()).await
            }
            $crate::conformance::format::Mode::ItemsBackward => {
                $crate::conformance::call::collect(b.stream_backward()).await
            }
        })
    };
    // The modes every list has, then `$more` (which calls the builder `$b`).
    (@modes $op:expr, $args:ident, $builder:expr, $mode:expr, $b:ident, { $($more:tt)* }) => {{
        use $crate::conformance::call::{collect, done, unsupported};
        use $crate::conformance::format::Mode;
        let $b = $crate::conformance::call::resumed(&mut $args, $builder, |b, r| b.resume(r))?;
        match $mode {
            Mode::Send => done($b.send().await),
            Mode::Pages => collect($b.pages()).await,
            Mode::Items => collect($b.stream()).await,
            Mode::ItemsResumed => {
                $crate::conformance::call::walk_resumed(|from| match from {
                    Some(from) => $b.clone().resume(from).stream(),
                    None => $b.clone().stream(),
                })
                .await
            }
            $($more)*
            mode => return unsupported($op, mode),
        }
    }};
}
pub(crate) use list;

/// An operation with one answer, in `send` mode only, made a result as `result_of::$kind`
/// says.
macro_rules! answer {
    ($op:expr, $args:ident, $builder:expr, $mode:expr, $kind:ident) => {{
        $crate::conformance::call::send_only($op, $mode)?;
        $crate::conformance::call::result_of::$kind($builder.send().await)
    }};
}
pub(crate) use answer;

/// An operation's one answer as a result, by the kind the adapter names.
pub mod result_of {
    /// Bytes: `{size, text}`.
    pub use super::binary as bytes;
    /// An upsert: `{created, value}`.
    pub use super::upserted as upsert;
    /// A JSON answer: the value; no content: `null`.
    pub use super::{done as json, done as empty};
}

/// A JSON answer with a binary alternative: `send` the JSON, `pdf` the alternative.
macro_rules! alternative {
    ($op:expr, $args:ident, $builder:expr, $mode:expr, $plain:ident, $to:ident, $media:literal) => {{
        use $crate::conformance::call::{binary, done, unsupported};
        use $crate::conformance::format::Mode;
        match $mode {
            Mode::Send => done($builder.send().await),
            Mode::Pdf => binary($builder.$plain().await),
            mode => return unsupported($op, mode),
        }
    }};
}
pub(crate) use alternative;

/// The builder, started at `args.resume` when the step gives one.
pub fn resumed<B>(
    args: &mut Args,
    builder: B,
    resume: impl FnOnce(B, inspection_client::runtime::Resume) -> B,
) -> Result<B, String> {
    match args.take::<String>("resume")? {
        Some(text) => Ok(resume(
            builder,
            text.parse().map_err(|e: Error| e.to_string())?,
        )),
        None => Ok(builder),
    }
}

/// Fails unless `mode` is `send`: the one way to call an operation with a single answer.
pub fn send_only(op: &str, mode: Mode) -> Result<(), String> {
    match mode {
        Mode::Send => Ok(()),
        mode => unsupported(op, mode),
    }
}
