//! What the command-line tool's end-to-end tests share: a sandbox started as its command
//! line would start it, the tool's environment, scratch folders, the controls, and an
//! export folder's contents as a comparison reads them.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A sandbox without its rate limit (`--rate-limit off`), started with `flags` as its
/// command line would give them.
pub async fn sandbox(flags: &str) -> sandbox::Sandbox {
    let args = ["--rate-limit", "off", "--addr", "127.0.0.1:0"]
        .into_iter()
        .chain(flags.split_whitespace())
        .map(String::from)
        .collect();
    let options = sandbox::cli::parse(args).unwrap().unwrap();
    sandbox::Sandbox::start(options).await.unwrap()
}

/// A sandbox started as [`sandbox`] does, and the tool's environment for its v3
/// interface (the demo key pair).
pub async fn v3_sandbox(flags: &str) -> (sandbox::Sandbox, Vec<(String, String)>) {
    let sandbox = sandbox(flags).await;
    let env = v3_env(&sandbox);
    (sandbox, env)
}

/// A small deterministic generator of kill moments.
pub struct Moments(pub u64);

impl Moments {
    pub fn next_ms(&mut self, low: u64, high: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        low + self.0 % (high - low)
    }
}

pub fn v3_env(sandbox: &sandbox::Sandbox) -> Vec<(String, String)> {
    vec![
        ("INSPECTION_V3_BASE_URL".into(), sandbox.base_url()),
        ("INSPECTION_V3_API_KEY_ID".into(), "demo-key".into()),
        ("INSPECTION_V3_API_KEY_SECRET".into(), "demo-secret".into()),
    ]
}

/// The legacy interface's base URL and the sandbox's manager account.
pub fn legacy_env(sandbox: &sandbox::Sandbox) -> Vec<(String, String)> {
    vec![
        (
            "INSPECTION_LEGACY_BASE_URL".into(),
            sandbox.legacy_base_url(),
        ),
        (
            "INSPECTION_LEGACY_USERNAME".into(),
            "manager@example.com".into(),
        ),
        ("INSPECTION_LEGACY_PASSWORD".into(), "manager-pass".into()),
    ]
}

pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// A fresh folder for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("inspection-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub async fn control(sandbox: &sandbox::Sandbox, method: &str, path: &str) -> Value {
    let url = format!("{}{path}", sandbox.legacy_base_url());
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let answer = reqwest::Client::new()
        .request(method, url)
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{path}: {}", answer.status());
    serde_json::from_str(&answer.text().await.unwrap()).unwrap_or(Value::Null)
}

/// The records of an export folder, sorted, and its documents by name. A record's
/// `pdf_share_url` is signed anew in every answer (its expiry and signature change), so
/// it is checked to be there and left out of the comparison; every other byte of the line
/// is compared.
pub fn folder_contents(dir: &Path) -> (Vec<String>, BTreeMap<String, Vec<u8>>) {
    let text = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    let mut lines: Vec<String> = text.lines().map(without_link).collect();
    lines.sort();
    let mut documents = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("documents")) {
        for entry in entries {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().to_string();
            documents.insert(name, std::fs::read(entry.path()).unwrap());
        }
    }
    (lines, documents)
}

/// A record's line without its pre-signed link (`"pdf_share_url":"…",` as the service
/// wrote it), which must be there for a v3 inspection.
pub fn without_link(line: &str) -> String {
    let record: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("a torn line ({e}): {line}"));
    let Some(link) = record.get("pdf_share_url") else {
        return line.to_string();
    };
    let field = format!("\"pdf_share_url\":{link},");
    assert!(line.contains(&field), "{line}");
    line.replacen(&field, "", 1)
}

/// The v3 interface of the IR a sync database records (`generated/ir.json`, which a test
/// edits to make the database look as if another spec had made it).
pub fn recorded_v3(ir: &mut Value) -> &mut Value {
    ir["interfaces"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|i| i["name"] == "v3")
        .unwrap()
}

/// The fields of v3's `Inspection` in the IR a sync database records.
pub fn recorded_inspection_fields(ir: &mut Value) -> &mut Vec<Value> {
    let types = recorded_v3(ir)["types"].as_array_mut().unwrap();
    let inspection = types
        .iter_mut()
        .find(|t| t["name"] == "Inspection")
        .unwrap();
    inspection["kind"]["object"]["fields"]
        .as_array_mut()
        .unwrap()
}

/// Every record of a v3 list, walked over HTTP page by page.
pub async fn listed(sandbox: &sandbox::Sandbox, path: &str) -> Vec<Value> {
    let client = reqwest::Client::new();
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{}{path}?per_page=100", sandbox.base_url());
        if let Some(c) = &cursor {
            url.push_str(&format!("&page={c}"));
        }
        let page = page(&client, &url).await;
        out.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["paging"]["cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return out,
        }
    }
}

/// One page of a list, asked again while the sandbox injects a fault.
async fn page(client: &reqwest::Client, url: &str) -> Value {
    for _ in 0..50 {
        let answer = client
            .get(url)
            .header("api-key-id", "demo-key")
            .header("api-key-secret", "demo-secret")
            .send()
            .await;
        let Ok(answer) = answer else { continue };
        if !answer.status().is_success() {
            continue;
        }
        let Ok(text) = answer.text().await else {
            continue;
        };
        if let Ok(page) = serde_json::from_str::<Value>(&text)
            && page["data"].is_array()
        {
            return page;
        }
    }
    panic!("{url}: no page in 50 tries");
}

/// Whether `bytes` are a whole document as the sandbox serves them (a PDF from its
/// header to its end marker).
pub fn whole_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-") && bytes.ends_with(b"%%EOF\n")
}

/// Two sync databases' tables (each a sorted list of rows) are the same tables with the
/// same rows.
pub fn assert_same_tables<Row: PartialEq>(
    got: &BTreeMap<String, Vec<Row>>,
    expected: &BTreeMap<String, Vec<Row>>,
) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (table, rows) in expected {
        assert!(
            got[table] == *rows,
            "{table} differs from an uninterrupted sync's"
        );
    }
}
