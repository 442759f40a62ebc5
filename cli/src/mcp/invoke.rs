//! A tool call, whatever the protocol: the tool found and allowed, its arguments put where
//! the operation takes them, the call made through the generated client (so its
//! validators refuse a bad argument before anything is sent), and the answer shaped.
//! An `Err` is a tool error the assistant reads: the argument and the limit, or the
//! service's status and message; never a credential.

use std::sync::Arc;

use inspection_runtime::Error;
use serde_json::{Map, Value, json};

use super::select::{self, Served};
use super::shape::{self, Cursor};
use super::{Source, Tool};
use crate::call::{Args, Kept, Mode, taken};

/// A server's tools and the client they call.
pub struct Server {
    pub served: Served,
    source: Arc<dyn Source>,
    budget: usize,
}

impl Server {
    pub fn new(served: Served, source: Arc<dyn Source>, budget: usize) -> Server {
        Server {
            served,
            source,
            budget,
        }
    }

    /// Calls the tool `name` with `arguments`: the answer, or the tool error's text.
    pub async fn call(&self, name: &str, arguments: Map<String, Value>) -> Result<Value, String> {
        if self.served.dynamic {
            return self.call_dynamic(name, arguments).await;
        }
        self.call_tool(self.served.find(name)?, arguments).await
    }

    async fn call_dynamic(
        &self,
        name: &str,
        mut arguments: Map<String, Value>,
    ) -> Result<Value, String> {
        let operation = || match arguments.get("name") {
            Some(Value::String(name)) => self.served.find(name),
            _ => Err("name the operation (`name`), as `list_operations` gives it".to_string()),
        };
        match name {
            select::LIST => Ok(Value::Array(
                self.served
                    .offered()
                    .map(|t| json!({"name": t.name, "description": t.description, "read_only": t.read_only}))
                    .collect(),
            )),
            select::DESCRIBE => Ok(select::listing(operation()?)),
            select::CALL => {
                let tool = operation()?;
                let inner = match arguments.remove("arguments") {
                    None => Map::new(),
                    Some(Value::Object(inner)) => inner,
                    Some(_) => return Err("`arguments` is an object of the operation's arguments".into()),
                };
                self.call_tool(tool, inner).await
            }
            other => Err(format!("no tool `{other}` here: {}, {} or {}", select::LIST, select::DESCRIBE, select::CALL)),
        }
    }

    async fn call_tool(
        &self,
        tool: &'static Tool,
        arguments: Map<String, Value>,
    ) -> Result<Value, String> {
        let call = Call::read(tool, arguments)?;
        let document = tool
            .document
            .then(|| self.document_uri(tool, &call.args.path));
        let (mode, keep) = Mode::default().keeping();
        self.source
            .call(tool.operation, call.args, mode)
            .await
            .map_err(|message| {
                format!(
                    "the arguments do not fit `{}`: {message}; nothing was sent",
                    tool.name
                )
            })?;
        match taken(&keep) {
            Some(Kept::Answer { created, value }) => {
                let mut answer = match &tool.paged {
                    Some(_) => shape::page(
                        tool,
                        &value,
                        &call.cursor,
                        call.fields.as_deref(),
                        call.max_items,
                        self.budget,
                    ),
                    None => record(tool, value, created, call.fields.as_deref()),
                };
                if let (Some(uri), Value::Object(map)) = (document, &mut answer) {
                    map.insert("pdf_resource".into(), Value::from(uri));
                }
                self.within_budget(answer)
            }
            Some(Kept::Failed(error)) => Err(refusal(tool, &error)),
            _ => Err(format!("`{}` gave no answer", tool.name)),
        }
    }

    /// The resource that reads `tool`'s PDF for these path parameters:
    /// `inspection://v3/get_inspection/ins_1` (each value percent-encoded).
    fn document_uri(&self, tool: &Tool, path: &Map<String, Value>) -> String {
        let mut uri = format!("inspection://{}/{}", self.served.interface, tool.name);
        for (_, spec, _) in tool.params.iter().filter(|(_, _, in_path)| *in_path) {
            let value = match path.get(*spec) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            uri.push('/');
            uri.push_str(&encode(&value));
        }
        uri
    }

    /// The templates of the documents' resources, one per tool with a PDF.
    pub fn document_templates(&self) -> Vec<Value> {
        self.served
            .offered()
            .filter(|t| t.document)
            .map(|t| {
                let mut uri = format!("inspection://{}/{}", self.served.interface, t.name);
                for (arg, _, _) in t.params.iter().filter(|(_, _, in_path)| *in_path) {
                    uri.push_str(&format!("/{{{arg}}}"));
                }
                json!({"uriTemplate": uri, "name": format!("{} (PDF)", t.name), "mimeType": "application/pdf"})
            })
            .collect()
    }

    /// The PDF a document resource names, fetched through the generated client (whole,
    /// checked as any download is), at most [`MAX_DOCUMENT`] bytes.
    pub async fn document(&self, uri: &str) -> Result<Vec<u8>, String> {
        let prefix = format!("inspection://{}/", self.served.interface);
        let rest = uri
            .strip_prefix(&prefix)
            .ok_or_else(|| format!("`{uri}` is no resource of this server"))?;
        let mut parts = rest.split('/');
        let name = parts.next().unwrap_or_default();
        let tool = self.served.find(name)?;
        if !tool.document {
            return Err(format!("`{name}` has no document"));
        }
        let mut args = Args::default();
        for (_, spec, _) in tool.params.iter().filter(|(_, _, in_path)| *in_path) {
            let value = parts
                .next()
                .ok_or_else(|| format!("`{uri}` lacks `{spec}`"))?;
            args.path
                .insert(spec.to_string(), Value::from(decode(value)?));
        }
        let file = std::env::temp_dir().join(format!(
            "inspection-mcp-{}-{}.pdf",
            std::process::id(),
            unique()
        ));
        let mode = Mode {
            alternative: true,
            output: Some(file.clone()),
            ..Mode::default()
        };
        let outcome = self
            .source
            .call(tool.operation, args, mode)
            .await
            .map_err(|e| format!("`{uri}`: {e}"))?;
        let read = outcome
            .0
            .map_err(|f| format!("`{uri}`: {}", f.message))
            .and_then(|()| {
                let size = std::fs::metadata(&file).map_err(|e| e.to_string())?.len();
                if size > MAX_DOCUMENT {
                    return Err(format!(
                        "`{uri}` is {size} bytes, over the {MAX_DOCUMENT} a resource holds here"
                    ));
                }
                std::fs::read(&file).map_err(|e| e.to_string())
            });
        let _ = std::fs::remove_file(&file);
        read
    }

    fn within_budget(&self, answer: Value) -> Result<Value, String> {
        let size = serde_json::to_string(&answer).map_or(0, |t| t.len());
        if size > self.budget {
            return Err(format!(
                "the answer is {size} bytes, over this server's budget of {}: name fewer `fields`",
                self.budget
            ));
        }
        Ok(answer)
    }
}

/// The largest document a resource gives (base64 makes it a third larger on the wire).
pub const MAX_DOCUMENT: u64 = 25 * 1024 * 1024;

fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A path value in a resource URI: letters, digits, `-`, `_`, `.` as they are.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            out.push(hex.ok_or_else(|| format!("`{text}` is not percent-encoded"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{text}` is not UTF-8"))
}

/// A tool's arguments, read: the call's, and the server's own.
struct Call {
    args: Args,
    cursor: Cursor,
    max_items: Option<usize>,
    fields: Option<Vec<String>>,
}

impl Call {
    fn read(tool: &Tool, arguments: Map<String, Value>) -> Result<Call, String> {
        let mut call = Call {
            args: Args::default(),
            cursor: Cursor::default(),
            max_items: None,
            fields: None,
        };
        for (key, value) in arguments {
            match (key.as_str(), &tool.paged) {
                ("body", _) if tool.body => call.args.body = Some(value),
                ("cursor", Some(_)) => {
                    let text = value
                        .as_str()
                        .ok_or("`cursor` is the text a previous page gave")?;
                    call.cursor = Cursor::parse(text)?;
                }
                ("max_items", Some(_)) => {
                    let n = value
                        .as_u64()
                        .filter(|n| *n >= 1)
                        .ok_or("`max_items` is a whole number from 1")?;
                    call.max_items = Some(n as usize);
                }
                ("fields", _) => {
                    let fields: Option<Vec<String>> = value.as_array().map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    });
                    call.fields = Some(fields.ok_or("`fields` is a list of dotted paths")?);
                }
                (name, _) => match tool.params.iter().find(|(arg, _, _)| *arg == name) {
                    Some((_, spec, true)) => {
                        call.args.path.insert(spec.to_string(), value);
                    }
                    Some((_, spec, false)) => {
                        call.args.query.insert(spec.to_string(), value);
                    }
                    None => return Err(unknown(tool, name)),
                },
            }
        }
        if let Some(super::Paged {
            page_size: Some((param, max)),
            ..
        }) = &tool.paged
        {
            call.args.query.insert(param.to_string(), Value::from(*max));
        }
        if let Some(resume) = &call.cursor.resume {
            call.args
                .other
                .insert("resume".into(), Value::from(resume.as_str()));
        }
        Ok(call)
    }
}

fn unknown(tool: &Tool, name: &str) -> String {
    let mut known: Vec<&str> = tool.params.iter().map(|(arg, _, _)| *arg).collect();
    if tool.body {
        known.push("body");
    }
    if tool.paged.is_some() {
        known.extend(["cursor", "max_items"]);
    }
    known.push("fields");
    format!(
        "`{name}` is not an argument of `{}`; it takes {}",
        tool.name,
        known.join(", ")
    )
}

/// A single answer: its record trimmed (an upsert says whether it created it).
fn record(
    tool: &Tool,
    mut value: Value,
    created: Option<bool>,
    fields: Option<&[String]>,
) -> Value {
    let left = shape::trim(tool, &mut value, fields);
    let mut answer = match created {
        Some(created) => json!({"created": created, "record": value}),
        None => value,
    };
    if !left.is_empty()
        && let Value::Object(map) = &mut answer
    {
        map.insert("left_out".into(), json!(left));
    }
    answer
}

/// A failed call as the assistant reads it.
fn refusal(tool: &Tool, error: &Error) -> String {
    match error {
        Error::Validation(v) => format!(
            "the arguments of `{}` break a documented limit, so nothing was sent: {v}",
            tool.name
        ),
        Error::Api(api) => format!("the service answered {}: {error}", api.status),
        other => format!("`{}` failed: {other}", tool.name),
    }
}
