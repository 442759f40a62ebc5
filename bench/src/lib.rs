//! What the benchmarks share: the inputs they measure (the real specs and synthetic ones
//! N times their size, a page of inspections) and the peak memory reading.

use std::path::{Path, PathBuf};

pub mod child;

/// The repository's root (this crate sits one folder below it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ has a parent folder")
        .to_path_buf()
}

/// The interface files of `spec/` as (file name, text), in name order.
pub fn real_specs() -> Vec<(String, String)> {
    let dir = repo_root().join("spec");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "yaml"))
        // The package settings are no interface.
        .filter(|path| !path.ends_with(codegen::PACKAGES_FILE))
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            (format!("spec/{name}"), text)
        })
        .collect();
    files.sort();
    files
}

/// A spec `copies` times the size of the real one: every interface repeated under another
/// name (`v3`, `v3_copy1`, ...), so types, operations and output files all grow by the
/// same factor.
pub fn synthetic_specs(copies: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (file, text) in real_specs() {
        let name_line = text
            .lines()
            .find(|l| l.starts_with("  name: "))
            .unwrap_or_else(|| panic!("{file}: no `  name:` line under `interface:`"))
            .to_string();
        for copy in 0..copies {
            let renamed = if copy == 0 {
                text.clone()
            } else {
                text.replacen(&name_line, &format!("{name_line}_copy{copy}"), 1)
            };
            out.push((format!("{file}#{copy}"), renamed));
        }
    }
    out
}

/// Loads, checks and renders every output (Rust, TypeScript, Python, OpenAPI, the IR) in
/// memory: what `cargo xtask codegen` does apart from comparing with and writing files.
/// Returns the number of files and their total size in bytes.
pub fn generate(specs: &[(String, String)]) -> (usize, usize) {
    let interfaces = specs
        .iter()
        .map(|(file, text)| codegen::load_str(file, text).unwrap_or_else(|d| panic!("{d}")))
        .collect();
    let api = codegen::ir::Api::new(interfaces);
    let files = codegen::generate(&api).unwrap_or_else(|e| panic!("{e}"));
    let bytes = files.iter().map(|f| f.contents.len()).sum();
    (files.len(), bytes)
}

/// A page of `n` inspections as the service sends it (compact JSON), every result kind and
/// field type included: the fixture `tests/fixtures/v3/inspection.json` with distinct ids,
/// its properties in the fixture's order (the documented one: a result's `name`, then its
/// `object` tag, then its `data`). `--bin page` writes it to a file the TypeScript and
/// Python benchmarks read.
pub fn inspections_page(n: usize) -> Vec<u8> {
    let path = repo_root().join("tests/fixtures/v3/inspection.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let one = compact(&text);
    let id: String = serde_json::from_str::<serde_json::Value>(&one).expect("the fixture is JSON")
        ["id"]
        .as_str()
        .expect("the fixture has an id")
        .to_string();
    let own_id = format!(r#"{{"id":"{id}","#);
    assert!(one.starts_with(&own_id), "the fixture starts with its id");
    let records: Vec<String> = (0..n)
        .map(|i| one.replacen(&own_id, &format!(r#"{{"id":"ins_{i:04}","#), 1))
        .collect();
    format!(
        r#"{{"data":[{}],"paging":{{"next":null}}}}"#,
        records.join(",")
    )
    .into_bytes()
}

/// The same page with every object's properties sorted by name, as a `serde_json::Value`
/// writes them (and as the sandbox answers): each union's tag then comes after the
/// properties whose names sort before it (a result's `data`, a field's `label`).
pub fn sorted_keys(page: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_slice(page).expect("the page is JSON");
    serde_json::to_vec(&value).expect("a Value always serialises")
}

/// The same page with each union member's tag moved to the front of its object (`type`,
/// then `object`, where present: the v3 unions' tags), the rest in their order: no
/// property is kept aside before a tag, the most any work on the unions could give.
pub fn tags_first(page: &[u8]) -> Vec<u8> {
    let node: Node = serde_json::from_slice(page).expect("the page is JSON");
    serde_json::to_vec(&node.tags_first()).expect("a node always serialises")
}

/// A JSON value whose objects keep their properties' order (a `Value` sorts them here:
/// serde_json's `preserve_order` would reach the client's build too).
enum Node {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    Scalar(serde_json::Value),
}

impl Node {
    fn tags_first(self) -> Node {
        match self {
            Node::Object(entries) => {
                let mut entries: Vec<(String, Node)> = entries
                    .into_iter()
                    .map(|(k, v)| (k, v.tags_first()))
                    .collect();
                // Stable: the tags first (`type` before `object`), the others as they were.
                entries.sort_by_key(|(k, _)| match k.as_str() {
                    "type" => 0,
                    "object" => 1,
                    _ => 2,
                });
                Node::Object(entries)
            }
            Node::Array(items) => Node::Array(items.into_iter().map(Node::tags_first).collect()),
            scalar => scalar,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = m.next_entry()? {
                    entries.push(entry);
                }
                Ok(Node::Object(entries))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = s.next_element()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar(serde_json::Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

impl serde::Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Node::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Node::Array(items) => s.collect_seq(items),
            Node::Scalar(v) => v.serialize(s),
        }
    }
}

/// JSON text without the white space between its tokens, properties in their order.
fn compact(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    out
}

/// The runtime the benchmark binaries run on: two workers, as the machine has two cores.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Peak resident memory of this process so far (`VmHWM` of /proc/self/status), in KiB;
/// `None` where the platform has no such file.
pub fn peak_rss_kib() -> Option<u64> {
    peak_rss_kib_of("self")
}

/// The peak resident memory of the process `pid` (`self`, or a number) so far, in KiB.
pub fn peak_rss_kib_of(pid: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_specs_grow_by_the_factor_and_stay_valid() {
        let (one_files, one_bytes) = generate(&synthetic_specs(1));
        let (three_files, three_bytes) = generate(&synthetic_specs(3));
        // The package-level files (manifests, the runtimes) are there once; the interfaces'
        // own files, which are most of the bytes, triple.
        assert!(three_files > one_files, "{one_files} -> {three_files}");
        assert!(three_bytes > 2 * one_bytes, "{one_bytes} -> {three_bytes}");
    }

    #[test]
    fn the_page_holds_the_records_asked_for_in_the_fixtures_order() {
        let bytes = inspections_page(7);
        let page: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(page["data"].as_array().map(Vec::len), Some(7));
        assert_eq!(page["data"][6]["id"], "ins_0006");
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(r#"{"name":"Return Walkaround","object":"checklist","data":["#));
        // Sorted, the same values, the tag after `data`.
        let sorted = sorted_keys(text.as_bytes());
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&sorted).unwrap(),
            page
        );
        let sorted = String::from_utf8(sorted).unwrap();
        assert!(sorted.contains(r#"],"name":"Return Walkaround","object":"checklist"}"#));
    }
}
