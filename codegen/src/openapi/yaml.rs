//! An ordered document tree and its YAML text: keys stay in the order the backend puts
//! them (`openapi` first, paths in spec order), every string is double-quoted, so no value
//! is ever read as another type (`"on"`, `"200"`, `"1.0"`).

/// A YAML (and JSON) value whose mappings keep their order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Bool(bool),
    Int(i64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    pub fn map() -> Node {
        Node::Map(Vec::new())
    }

    pub fn str(text: impl Into<String>) -> Node {
        Node::Str(text.into())
    }

    /// Adds `key: value` to a mapping (a no-op on other nodes).
    pub fn with(mut self, key: &str, value: Node) -> Node {
        self.set(key, value);
        self
    }

    /// Sets `key` in a mapping, replacing an earlier value.
    pub fn set(&mut self, key: &str, value: Node) {
        if let Node::Map(entries) = self {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key.to_string(), value)),
            }
        }
    }

    /// The value of `key` in a mapping.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Map(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn is_empty_map(&self) -> bool {
        matches!(self, Node::Map(entries) if entries.is_empty())
    }
}

/// The YAML text of `node`, ending in a newline.
pub fn to_yaml(node: &Node) -> String {
    let mut out = String::new();
    block(node, 0, &mut out);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn scalar(node: &Node) -> Option<String> {
    Some(match node {
        Node::Bool(b) => b.to_string(),
        Node::Int(n) => n.to_string(),
        Node::Str(s) => quote(s),
        Node::Seq(items) if items.is_empty() => "[]".to_string(),
        Node::Map(entries) if entries.is_empty() => "{}".to_string(),
        _ => return None,
    })
}

/// A double-quoted scalar: JSON's escapes are a subset of YAML's.
fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// Where a long double-quoted scalar is broken, so no line of the document runs on.
const WIDTH: usize = 100;

/// A double-quoted scalar that starts `used` columns into its line, broken over lines of
/// at most `WIDTH` columns where it is long: after a space that a non-space follows, with
/// an escaped line break (`\` at the end of the line), which YAML reads as nothing, the
/// space before it kept and the next line's indentation (`indent`) dropped.
fn quote_wrapped(text: &str, used: usize, indent: usize) -> String {
    let quoted = quote(text);
    if used + quoted.chars().count() <= WIDTH {
        return quoted;
    }
    let chars: Vec<char> = quoted.chars().collect();
    let mut out = String::new();
    let (mut start, mut column) = (0, used);
    let mut last_break = None;
    for i in 0..chars.len() {
        if chars[i] == ' ' && chars.get(i + 1).is_some_and(|c| *c != ' ') && i + 1 < chars.len() - 1
        {
            last_break = Some(i + 1);
        }
        column += 1;
        if column > WIDTH
            && let Some(at) = last_break.filter(|&at| at > start)
        {
            out.extend(&chars[start..at]);
            out.push_str("\\\n");
            out.push_str(&" ".repeat(indent));
            column = indent + (i + 1 - at);
            start = at;
            last_break = None;
        }
    }
    out.extend(&chars[start..]);
    out
}

/// A mapping key: bare when it cannot be misread, quoted otherwise.
fn key(text: &str) -> String {
    let plain = !text.is_empty()
        && text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain { text.to_string() } else { quote(text) }
}

/// `node` as it goes after its key or dash on the same line (`column`: where it starts; a
/// long string wraps, its later lines at `indent`), or `None` for a block of lines below.
fn inline(node: &Node, column: usize, indent: usize) -> Option<String> {
    match node {
        Node::Str(text) => Some(quote_wrapped(text, column, indent)),
        other => scalar(other),
    }
}

/// Ends the line of a key or dash with `text`.
fn end_line(out: &mut String, text: &str) {
    out.push(' ');
    out.push_str(text);
    out.push('\n');
}

fn block(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match node {
        Node::Map(entries) if !entries.is_empty() => {
            for (k, v) in entries {
                out.push_str(&pad);
                out.push_str(&key(k));
                out.push(':');
                match inline(v, indent + key(k).len() + 2, indent + 2) {
                    Some(s) => end_line(out, &s),
                    None => {
                        out.push('\n');
                        // Sequences sit at their key's indentation, as most YAML does.
                        let inner = if matches!(v, Node::Seq(_)) {
                            indent
                        } else {
                            indent + 2
                        };
                        block(v, inner, out);
                    }
                }
            }
        }
        Node::Seq(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&pad);
                out.push('-');
                match inline(item, indent + 2, indent + 2) {
                    Some(s) => end_line(out, &s),
                    None => {
                        // The item's first line goes on the dash's line.
                        let mut inner = String::new();
                        block(item, indent + 2, &mut inner);
                        out.push(' ');
                        out.push_str(inner.trim_start());
                    }
                }
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&scalar(other).unwrap_or_default());
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_is_broken_over_lines_and_reads_back_the_same() {
        let long = "word ".repeat(60) + "end \"quoted\" \\ and\nnewline  double  spaces";
        let doc = Node::map()
            .with("description", Node::str(long.clone()))
            .with("short", Node::str("x"));
        let text = to_yaml(&doc);
        assert!(
            text.lines().all(|l| l.chars().count() <= WIDTH + 2),
            "{text}"
        );
        assert!(text.lines().count() > 3, "{text}");
        let back: std::collections::BTreeMap<String, String> =
            serde_saphyr::from_str(&text).unwrap();
        assert_eq!(back["description"], long);
        assert_eq!(back["short"], "x");
    }

    #[test]
    fn nested_mappings_and_sequences() {
        let doc = Node::map()
            .with("openapi", Node::str("3.1.0"))
            .with("on", Node::Bool(true))
            .with(
                "paths",
                Node::map().with(
                    "/units/{id}",
                    Node::map().with(
                        "parameters",
                        Node::Seq(vec![
                            Node::map()
                                .with("name", Node::str("id"))
                                .with("required", Node::Bool(true)),
                            Node::str("x"),
                        ]),
                    ),
                ),
            )
            .with("200", Node::map())
            .with("list", Node::Seq(vec![]));
        assert_eq!(
            to_yaml(&doc),
            "openapi: \"3.1.0\"\n\"on\": true\npaths:\n  \"/units/{id}\":\n    parameters:\n    - name: \"id\"\n      required: true\n    - \"x\"\n\"200\": {}\nlist: []\n"
        );
    }
}
