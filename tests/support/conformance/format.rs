//! The scenario files, as `tests/conformance/README.md` describes them. Unknown keys are
//! refused, so a misspelt expectation cannot pass silently.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

/// One `tests/conformance/*.yaml` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// For readers; runners ignore it.
    #[serde(default, rename = "description")]
    pub _description: Option<IgnoredAny>,
    /// The sandbox every scenario of the file runs against, unless it names its own.
    #[serde(default)]
    pub sandbox: SandboxSpec,
    /// Anchors (`&name`) for the scenarios to refer to; runners ignore it.
    #[serde(default, rename = "definitions")]
    pub _definitions: Option<IgnoredAny>,
    pub scenarios: Vec<Scenario>,
}

#[derive(Debug, Default, Clone, Deserialize, PartialEq, Eq, Hash)]
#[serde(deny_unknown_fields)]
pub struct SandboxSpec {
    /// Flags of the sandbox binary (`--addr 127.0.0.1:0` is added by the runner).
    #[serde(default)]
    pub args: Vec<String>,
    /// Put `sandbox forward` in front: clients (and `${origin}`) use the proxy's address.
    #[serde(default)]
    pub proxy: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub interface: Interface,
    #[serde(default)]
    pub sandbox: Option<SandboxSpec>,
    #[serde(default)]
    pub client: ClientSpec,
    /// Canned answers posted to `/_sandbox/script` before the first step.
    #[serde(default)]
    pub script: Vec<Value>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    V3,
    Legacy,
}

/// Client settings; every one has the default the README gives.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    pub credentials: Option<Credentials>,
    pub rate_limit: Option<RateLimit>,
    pub max_attempts: Option<u32>,
    pub initial_backoff_ms: Option<u64>,
    pub max_backoff_ms: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub validate: Option<bool>,
    pub max_polls: Option<u32>,
    pub poll_interval_ms: Option<u64>,
    pub max_response_bytes: Option<u64>,
    pub max_error_bytes: Option<usize>,
    pub max_empty_pages: Option<u32>,
}

/// A v3 key pair (`key_id`, `key_secret`) or a legacy login (`username`, `password`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub key_id: Option<String>,
    pub key_secret: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    pub requests: u32,
    pub window_ms: u64,
}

/// One step: a call of the client, or a request to a sandbox control.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// An operation of the spec (snake_case), or a client action (`login`,
    /// `fetch_presigned`, `put_presigned`, `put_parts`, `listen`, `deliveries`).
    pub call: Option<String>,
    /// A control request that must answer 2xx.
    pub sandbox: Option<Control>,
    #[serde(default)]
    pub args: Option<Value>,
    #[serde(default)]
    pub mode: Mode,
    /// Keeps the result under this name for `${name...}` in later steps.
    pub save: Option<String>,
    #[serde(default)]
    pub expect: Expect,
    /// Every request the sandbox received during the step, in order.
    pub expect_requests: Option<Vec<Value>>,
    /// Every event the client reported during the step, in order.
    pub expect_events: Option<Vec<Value>>,
    /// The step took at least / at most this long (measured by the runner).
    pub min_ms: Option<u64>,
    pub max_ms: Option<u64>,
}

/// A `sandbox` step: `METHOD /_sandbox/...`, or `{request: "METHOD /_sandbox/...", body}`
/// for a control that takes a JSON body.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Control {
    Line(String),
    WithBody(ControlWithBody),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlWithBody {
    pub request: String,
    #[serde(default, deserialize_with = "present")]
    pub body: Option<Value>,
}

impl Control {
    pub fn request(&self) -> &str {
        match self {
            Control::Line(line) => line,
            Control::WithBody(c) => &c.request,
        }
    }

    pub fn body(&self) -> Option<&Value> {
        match self {
            Control::Line(_) => None,
            Control::WithBody(c) => c.body.as_ref(),
        }
    }
}

#[derive(Debug, Default, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Send,
    Pages,
    Items,
    PagesBackward,
    ItemsBackward,
    Pdf,
    /// Every record, the walk started again at each interruption's resume point.
    ItemsResumed,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The call succeeded and its result matches this pattern.
    #[serde(default, deserialize_with = "present")]
    pub ok: Option<Value>,
    /// The call succeeded and its result is exactly this.
    #[serde(default, deserialize_with = "present")]
    pub equals: Option<Value>,
    /// The result (a list) has this many entries; with `error`, what came before it.
    pub count: Option<usize>,
    /// The call failed, and its error matches this pattern (`text_excludes` aside).
    pub error: Option<Value>,
}

/// A key that is present is `Some`, even when its value is `null` (`equals: null`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
