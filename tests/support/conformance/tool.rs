//! The command-line tool as a conformance runner: a call step becomes a command line of
//! the `inspection` binary (flags from `inspection describe`, the body on standard input,
//! credentials in the environment), and what it prints, saves and exits with is held to
//! the step's expectations. It runs the scenarios whose every call is an operation in a
//! mode the tool has (`send`, `pdf`) with the default client settings.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::format::{ClientSpec, Interface, Mode, Scenario};
pub use super::process::{Ran, run};

/// The tool's operations and flags, as `inspection describe` prints them.
pub struct Tool {
    table: Value,
    dir: PathBuf,
}

/// A call as a command line.
pub struct Invocation {
    pub args: Vec<String>,
    pub stdin: Option<Vec<u8>>,
    /// Where a binary answer is saved.
    pub output: Option<PathBuf>,
}

impl Tool {
    pub async fn new() -> Tool {
        let ran = run(&["describe".to_string()], &[], None).await;
        assert_eq!(ran.code, 0, "inspection describe: {}", ran.stderr);
        let dir =
            std::env::temp_dir().join(format!("inspection-tool-runner-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Tool {
            table: serde_json::from_slice(&ran.stdout).expect("describe prints JSON"),
            dir,
        }
    }

    fn operation(&self, interface: Interface, call: &str) -> Option<&Value> {
        self.table[interface.name()]
            .as_array()?
            .iter()
            .find(|op| op["name"] == call)
    }

    /// Whether the tool can run every step of `scenario` as the scenario means it: its
    /// client settings are the defaults (but for the credentials, which the tool is given).
    pub fn runs(&self, scenario: &Scenario) -> bool {
        let defaults = ClientSpec::defaults(scenario.interface);
        let settings = ClientSpec {
            credentials: defaults.credentials.clone(),
            ..scenario.client.clone()
        };
        settings == defaults
            && scenario.steps.iter().all(|step| match &step.call {
                None => true,
                Some(call) => {
                    matches!(step.mode, Mode::Send | Mode::Pdf)
                        && self.operation(scenario.interface, call).is_some()
                }
            })
    }

    /// The credentials and base URL of `scenario`'s client, as the environment.
    pub fn env(&self, origin: &str, scenario: &Scenario) -> Vec<(String, String)> {
        let c = &scenario.client.credentials;
        let vars = match scenario.interface {
            Interface::V3 => [
                ("INSPECTION_V3_BASE_URL", Some(format!("{origin}/v3"))),
                ("INSPECTION_V3_API_KEY_ID", c.key_id.clone()),
                ("INSPECTION_V3_API_KEY_SECRET", c.key_secret.clone()),
            ],
            Interface::Legacy => [
                ("INSPECTION_LEGACY_BASE_URL", Some(origin.to_string())),
                ("INSPECTION_LEGACY_USERNAME", c.username.clone()),
                ("INSPECTION_LEGACY_PASSWORD", c.password.clone()),
            ],
        };
        vars.into_iter()
            .map(|(k, v)| (k.to_string(), v.unwrap_or_default()))
            .collect()
    }

    /// The command line of a call with the step's `args` (filled in).
    pub fn invocation(
        &self,
        interface: Interface,
        call: &str,
        args: Option<&Value>,
        mode: Mode,
    ) -> Result<Invocation, String> {
        let op = self
            .operation(interface, call)
            .ok_or_else(|| format!("the tool has no `{call}`"))?;
        let name = interface.name();
        let mut argv = vec![
            "--rate-limit".to_string(),
            "off".to_string(),
            name.to_string(),
            op["command"].as_str().unwrap_or_default().to_string(),
        ];
        let empty = Map::new();
        let args = args.and_then(Value::as_object).unwrap_or(&empty);
        let mut stdin = None;
        for (key, value) in args {
            match key.as_str() {
                "path" | "query" => {
                    for (param, value) in value.as_object().unwrap_or(&empty) {
                        argv.push(format!("--{}", flag(op, key, param)?));
                        argv.push(text(value));
                    }
                }
                "body" => {
                    argv.extend(["--body".to_string(), "-".to_string()]);
                    stdin = Some(value.to_string().into_bytes());
                }
                "body_text" => {
                    argv.extend(["--body".to_string(), "-".to_string()]);
                    stdin = Some(value.as_str().unwrap_or_default().as_bytes().to_vec());
                }
                "content_type" | "resume" => {
                    argv.push(format!("--{}", key.replace('_', "-")));
                    argv.push(text(value));
                }
                other => return Err(format!("the tool takes no `args.{other}`")),
            }
        }
        let binary = op["answer"] == "bytes" || mode == Mode::Pdf;
        if mode == Mode::Pdf {
            let flag = op["alternative"]
                .as_str()
                .ok_or_else(|| format!("`{call}` has no alternative answer"))?;
            argv.push(format!("--{flag}"));
        }
        let output = binary.then(|| self.dir.join(format!("{call}.out")));
        if let Some(path) = &output {
            let _ = std::fs::remove_file(path);
            argv.extend(["--output".to_string(), path.display().to_string()]);
        }
        Ok(Invocation {
            args: argv,
            stdin,
            output,
        })
    }
}

/// The flag of a path parameter or query parameter (by its wire name).
fn flag(op: &Value, place: &str, name: &str) -> Result<String, String> {
    op["params"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["place"] == place && p["name"] == name)
        .and_then(|p| p["flag"].as_str())
        .map(str::to_string)
        .ok_or_else(|| format!("`{}` has no {place} parameter `{name}`", op["name"]))
}

/// A value as a flag's text: a string as it is, `{external: X}` as `external:X`,
/// `{self: true}` as `self`, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(m) if m.len() == 1 && m.get("self") == Some(&json!(true)) => "self".into(),
        Value::Object(m) if m.len() == 1 && m.contains_key("external") => {
            format!("external:{}", text(&m["external"]))
        }
        other => other.to_string(),
    }
}

/// The result a call printed or saved: its JSON, `null` for nothing, `{size, text}` for
/// bytes (as the other runners give it).
pub fn result(ran: &Ran, output: Option<&Path>) -> Result<Value, String> {
    if let Some(path) = output {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(json!({"size": bytes.len(), "text": String::from_utf8_lossy(&bytes)}));
    }
    if ran.stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&ran.stdout)
        .map_err(|e| format!("the tool printed no JSON ({e}): {}", ran.stdout_text()))
}

/// The exit code the tool gives for an error the scenario expects (`{kind, status}`).
pub fn exit_code(error: &Value) -> i32 {
    match (error["kind"].as_str(), error["status"].as_u64()) {
        (Some("api"), Some(401 | 403)) => 4,
        (Some("api"), Some(404)) => 5,
        (Some("api"), Some(429)) => 6,
        (Some("api"), Some(400 | 409 | 422)) | (Some("validation"), _) => 3,
        (Some("api"), Some(500..=599)) | (Some("not_ready"), _) => 7,
        (Some("transport" | "timeout"), _) => 8,
        (Some("config"), _) => 4,
        _ => 1,
    }
}

/// The requests the tool made for the step, without the login it makes before each
/// call of a token interface (the other runners log in once, before the first step).
pub fn without_login(recorded: Vec<Value>, call: &str, login_path: &str) -> Vec<Value> {
    if call == "authenticate" {
        return recorded;
    }
    recorded
        .into_iter()
        .filter(|r| !(r["method"] == "POST" && r["path"] == login_path))
        .collect()
}
