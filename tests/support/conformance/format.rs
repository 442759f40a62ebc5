//! The scenario files, as `tests/conformance/README.md` describes them. A file is read as
//! JSON and checked against `tests/conformance/format.json`, the format as data that every
//! runner reads: unknown keys are refused (a misspelt expectation cannot pass silently), and
//! the client settings a scenario leaves out are filled in from its defaults. The types
//! below then read it; they refuse unknown fields too, so a key the format adds fails here
//! until this runner reads it.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

/// `tests/conformance/format.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Format {
    #[serde(rename = "about")]
    _about: IgnoredAny,
    /// Each kind of mapping: its keys, and what each holds (`None`: any value).
    mappings: BTreeMap<String, BTreeMap<String, Option<Holds>>>,
    defaults: Defaults,
}

/// What a key of a mapping holds, when the format says more than "any value".
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Holds {
    /// A mapping of this kind.
    Mapping(String),
    /// A list of mappings of this one kind.
    List([String; 1]),
    /// One of these strings.
    OneOf { one_of: Vec<String> },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    client: Map<String, Value>,
    credentials: BTreeMap<String, Value>,
}

/// The format, read once.
pub static FORMAT: LazyLock<Format> = LazyLock::new(|| {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/format.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
});

impl Format {
    /// A scenario file's text: checked, its client settings filled in, and read.
    pub fn read(&self, yaml: &str) -> Result<File, String> {
        // YAML 1.2 core, as every runner reads it: `on`, `yes` are strings.
        let options = serde_saphyr::options! { strict_booleans: true };
        let mut doc: Value =
            serde_saphyr::from_str_with_options(yaml, options).map_err(|e| e.to_string())?;
        self.check(&doc, "file", "")?;
        for scenario in doc["scenarios"].as_array_mut().into_iter().flatten() {
            let interface = scenario["interface"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let given = scenario.get("client").cloned().unwrap_or(Value::Null);
            scenario["client"] = self.client(&interface, &given);
        }
        serde_json::from_value(doc).map_err(|e| e.to_string())
    }

    /// Refuses a key that `value` (a mapping of kind `kind`, at the path `at`, empty for
    /// the file) or anything in it may not have, and a value the format does not allow.
    pub fn check(&self, value: &Value, kind: &str, at: &str) -> Result<(), String> {
        let Some(map) = value.as_object() else {
            return Ok(());
        };
        for (key, v) in map {
            let Some(holds) = self.mappings[kind].get(key) else {
                let place = if at.is_empty() { "the file" } else { at };
                return Err(format!("unknown key `{key}` in {place}"));
            };
            let at = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            match holds {
                None | Some(Holds::OneOf { .. }) => {}
                Some(Holds::Mapping(kind)) => self.check(v, kind, &at)?,
                Some(Holds::List([kind])) => {
                    for (i, entry) in v.as_array().into_iter().flatten().enumerate() {
                        self.check(entry, kind, &format!("{at}[{i}]"))?;
                    }
                }
            }
            if let Some(Holds::OneOf { one_of }) = holds
                && !one_of.iter().any(|o| v.as_str() == Some(o))
            {
                return Err(format!("{at} is one of {}, not {v}", one_of.join(", ")));
            }
        }
        Ok(())
    }

    /// The client settings of a scenario of `interface` whose `client` is `given`: each
    /// setting given (not null), else the default; a mapping over a mapping (the
    /// credentials) key by key.
    pub fn client(&self, interface: &str, given: &Value) -> Value {
        let mut client = self.defaults.client.clone();
        let credentials = self.defaults.credentials.get(interface).cloned();
        client.insert("credentials".into(), credentials.unwrap_or_default());
        for (key, v) in given.as_object().into_iter().flatten() {
            match (client.get_mut(key), v) {
                (Some(Value::Object(under)), Value::Object(v)) => {
                    for (name, v) in v.iter().filter(|(_, v)| !v.is_null()) {
                        under.insert(name.clone(), v.clone());
                    }
                }
                (_, Value::Null) => {}
                _ => {
                    client.insert(key.clone(), v.clone());
                }
            }
        }
        Value::Object(client)
    }
}

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
    /// Filled in by `Format::read`: every setting is there.
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

impl Interface {
    /// `v3` or `legacy`, as the files write it.
    pub fn name(self) -> &'static str {
        match self {
            Interface::V3 => "v3",
            Interface::Legacy => "legacy",
        }
    }
}

/// Client settings: the scenario's, else the defaults of `format.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    pub credentials: Credentials,
    pub rate_limit: Option<RateLimit>,
    pub max_attempts: u32,
    pub initial_backoff_ms: u64,
    pub max_backoff_ms: u64,
    pub timeout_ms: u64,
    pub validate: bool,
    pub max_polls: u32,
    pub poll_interval_ms: u64,
    pub max_response_bytes: u64,
    pub max_error_bytes: usize,
    pub max_empty_pages: u32,
}

impl ClientSpec {
    /// The settings of a scenario of `interface` that gives none.
    pub fn defaults(interface: Interface) -> ClientSpec {
        let settings = FORMAT.client(interface.name(), &Value::Null);
        serde_json::from_value(settings).expect("the defaults of format.json are client settings")
    }
}

/// A v3 key pair (`key_id`, `key_secret`) or a legacy login (`username`, `password`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub key_id: Option<String>,
    pub key_secret: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// `make_client`, `fetch_presigned`, `put_presigned`, `put_parts`, `listen`,
    /// `deliveries`).
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
