//! Which tools a server lists and which it lets run: read-only tools by default, those
//! that change the service only when allowed (`--allow-writes`, or `--allow OP,...`), a
//! subset by name (`--tools`), or three tools that reach the rest (`--dynamic`), for a
//! client that holds few.

use serde_json::{Value, json};

use super::{Options, Tool};
use crate::exit::Failure;

/// What the command line selects.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--tools`: these operations only (`None`: every one the server lets run).
    pub only: Option<Vec<String>>,
    /// `--allow-writes`.
    pub writes: bool,
    /// `--allow OP,...`: these operations that change the service.
    pub allowed: Vec<String>,
}

/// The names of the dynamic mode's tools.
pub const LIST: &str = "list_operations";
pub const DESCRIBE: &str = "describe_operation";
pub const CALL: &str = "call_operation";

/// The tools of one server, as selected.
#[derive(Debug)]
pub struct Served {
    pub interface: &'static str,
    pub tools: &'static [Tool],
    pub selection: Selection,
    pub dynamic: bool,
}

impl Served {
    /// Refuses a selection naming an operation the interface does not have.
    pub fn new(
        interface: &'static str,
        tools: &'static [Tool],
        options: &Options,
    ) -> Result<Served, Failure> {
        let s = &options.selection;
        for name in s.only.iter().flatten().chain(&s.allowed) {
            if !tools.iter().any(|t| t.name == name) {
                return Err(Failure::usage(format!(
                    "`{name}` is no operation of {interface} (`inspection mcp {interface} --describe --tools all --allow-writes` lists them)"
                )));
            }
        }
        Ok(Served {
            interface,
            tools,
            selection: s.clone(),
            dynamic: options.dynamic,
        })
    }

    /// Whether `tool` may run: read-only, or allowed.
    pub fn allows(&self, tool: &Tool) -> bool {
        tool.read_only
            || self.selection.writes
            || self.selection.allowed.iter().any(|a| a == tool.name)
    }

    /// The tools this server offers (one per operation).
    pub fn offered(&self) -> impl Iterator<Item = &'static Tool> + '_ {
        let only = self.selection.only.as_ref();
        self.tools
            .iter()
            .filter(move |t| only.is_none_or(|o| o.iter().any(|n| n == t.name)))
            .filter(|t| self.allows(t))
    }

    /// A tool by name, with why it cannot run when it cannot.
    #[cfg(feature = "mcp")]
    pub fn find(&self, name: &str) -> Result<&'static Tool, String> {
        let tool = self
            .tools
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("no tool `{name}` in {}", self.interface))?;
        if !self.allows(tool) {
            return Err(format!(
                "`{name}` changes the service, and this server was started read-only: start it with `--allow {name}` (or `--allow-writes`) to let it run"
            ));
        }
        if self
            .selection
            .only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == name))
        {
            return Err(format!(
                "`{name}` is not among this server's tools (`--tools`)"
            ));
        }
        Ok(tool)
    }

    /// The tool list a client sees, as MCP's JSON.
    pub fn listed(&self) -> Vec<Value> {
        if self.dynamic {
            return dynamic_tools(self.interface);
        }
        self.offered().map(listing).collect()
    }
}

/// One tool as MCP lists it: name, description, input schema, annotations.
pub fn listing(t: &Tool) -> Value {
    json!({
        "name": t.name,
        "description": t.description,
        "inputSchema": serde_json::from_str::<Value>(t.schema).unwrap_or_else(|_| json!({"type": "object"})),
        "annotations": {
            "readOnlyHint": t.read_only,
            "destructiveHint": t.destructive,
            "idempotentHint": t.idempotent,
            "openWorldHint": true,
        },
    })
}

fn dynamic_tools(interface: &str) -> Vec<Value> {
    let name = json!({"type": "string", "description": "The operation's name, as `list_operations` gives it."});
    vec![
        json!({
            "name": LIST,
            "description": format!("Lists the operations of the {interface} interface this server lets run: name and what each does."),
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": {"readOnlyHint": true},
        }),
        json!({
            "name": DESCRIBE,
            "description": "Describes one operation: what it does and the JSON Schema of its arguments.",
            "inputSchema": {"type": "object", "properties": {"name": name}, "required": ["name"], "additionalProperties": false},
            "annotations": {"readOnlyHint": true},
        }),
        json!({
            "name": CALL,
            "description": "Calls one operation with its arguments (as `describe_operation` gives their schema).",
            "inputSchema": {"type": "object", "properties": {"name": name, "arguments": {"type": "object"}}, "required": ["name"], "additionalProperties": false},
            "annotations": {"readOnlyHint": false},
        }),
    ]
}
