//! `inspection export v3 --pdf` takes each document from the record's pre-signed link
//! (no key, no request of the quota) and falls back to the API's form once when a link
//! fails: expired, refused, missing, an HTML page, cut short or not a PDF. `api` never
//! touches a link, `link` never the API's form; every document is the API's, byte for
//! byte; the JSON progress lines and the summary count both ways. The kill-and-resume
//! guarantee under faults on both origins is `tests/cli.rs`'s.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/cli_process.rs"]
mod tool;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use export_folder::{folder_contents, sandbox, scratch, strings, v3_env};
use sandbox::storage::LinkMode;

/// The demo's 3 inspections and these.
const GENERATED: usize = 37;
const RECORDS: u64 = GENERATED as u64 + 3;

/// Runs `export v3 FOLDER --pdf` with `extra` flags; its summary, and what it wrote.
async fn export(
    sandbox: &sandbox::Sandbox,
    folder: &Path,
    extra: &[&str],
) -> (i32, Value, String, BTreeMap<String, Vec<u8>>) {
    let mut args = strings(&[
        "--quiet",
        "export",
        "v3",
        &folder.display().to_string(),
        "--pdf",
    ]);
    args.extend(strings(extra));
    let ran = tool::run(&args, &v3_env(sandbox), None).await;
    let summary = serde_json::from_slice(&ran.stdout).unwrap_or(Value::Null);
    let documents = if ran.code == 0 {
        folder_contents(folder).1
    } else {
        BTreeMap::new()
    };
    (ran.code, summary, ran.stderr, documents)
}

fn by(summary: &Value) -> (u64, u64, u64) {
    let d = &summary["documents_by"];
    let n = |k: &str| d[k].as_u64().unwrap_or(u64::MAX);
    (n("link"), n("api"), n("fallback"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_serve_every_document_with_no_key_and_api_never_touches_one() {
    let sandbox = sandbox(&format!("--inspections {GENERATED}")).await;
    let dir = scratch("documents-ways");

    let (code, summary, stderr, from_api) =
        export(&sandbox, &dir.join("api"), &["--documents-from", "api"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(by(&summary), (0, RECORDS, 0), "{summary}");
    assert_eq!(
        sandbox.stats().await.storage_requests,
        0,
        "api touched a link"
    );
    assert_eq!(from_api.len(), RECORDS as usize);

    let before = sandbox.stats().await.requests;
    let (code, summary, stderr, from_links) = export(&sandbox, &dir.join("auto"), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(by(&summary), (RECORDS, 0, 0), "{summary}");
    assert!(
        from_links == from_api,
        "a document from a link differs from the API's"
    );
    let stats = sandbox.stats().await;
    // One page of records: the only request of the key's quota.
    assert_eq!(stats.requests - before, 1, "{summary}");
    assert_eq!(summary["api_requests"], 1, "{summary}");
    assert_eq!(stats.storage_requests, RECORDS);
    assert_eq!(
        stats.storage_with_credentials, 0,
        "a key went to the storage origin"
    );

    let before = sandbox.stats().await.requests;
    let (code, summary, stderr, only_links) = export(
        &sandbox,
        &dir.join("link"),
        &["--documents-from", "link", "--link-concurrency", "2"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(by(&summary), (RECORDS, 0, 0), "{summary}");
    assert_eq!(
        sandbox.stats().await.requests - before,
        1,
        "link used the API's form"
    );
    assert!(only_links == from_api);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_that_fails_falls_back_to_the_api_once_and_link_alone_stops() {
    let sandbox = sandbox(&format!("--inspections {GENERATED}")).await;
    let dir = scratch("documents-fallback");
    let (_, _, _, expected) =
        export(&sandbox, &dir.join("api"), &["--documents-from", "api"]).await;
    // Every way a link fails: all the modes but `ok`.
    let failing = LinkMode::ALL
        .into_iter()
        .filter(|(_, m)| *m != LinkMode::Ok);
    for (name, mode) in failing {
        sandbox.set_links(mode);
        let folder = dir.join(name);
        let (code, summary, stderr, got) = export(&sandbox, &folder, &[]).await;
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(by(&summary), (0, 0, RECORDS), "{name}: {summary}");
        assert!(
            got == expected,
            "{name}: a fallen-back document differs from the API's"
        );
        let parts = got.keys().filter(|n| n.ends_with(".part")).count();
        assert_eq!(parts, 0, "{name}: a partial file is left");
    }
    // `link` alone: a failing link stops the export, and no document that failed its
    // check is kept.
    sandbox.set_links(LinkMode::Html);
    let folder = dir.join("link-only");
    let (code, _, stderr, _) = export(&sandbox, &folder, &["--documents-from", "link"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("from its link") && stderr.contains("text/html"),
        "{stderr}"
    );
    let kept = std::fs::read_dir(folder.join("documents")).map_or(0, |d| d.count());
    assert_eq!(kept, 0, "an HTML page was kept as a document");
    sandbox.set_links(LinkMode::Forbidden);
    let (code, _, stderr, _) = export(&sandbox, &folder, &["--documents-from", "link"]).await;
    assert_eq!(code, 4, "a 403 from the link is a refusal: {stderr}");
    assert!(
        !stderr.contains("signature="),
        "a link's signature is never shown: {stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_lines_and_the_summary_count_documents_by_way() {
    let sandbox = sandbox(&format!("--inspections {GENERATED}")).await;
    let dir = scratch("documents-progress");
    let folder = dir.join("export");
    let args = strings(&[
        "export",
        "v3",
        &folder.display().to_string(),
        "--pdf",
        "--page-size",
        "10",
        "--link-rate",
        "200/1",
    ]);
    let ran = tool::run(&args, &v3_env(&sandbox), None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Standard error is not a terminal: JSON lines, the last one `done`.
    let last: Value = serde_json::from_str(ran.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "done", "{last}");
    assert_eq!(last["records"], RECORDS, "{last}");
    assert_eq!(last["documents"], RECORDS, "{last}");
    assert_eq!(last["documents_by"]["link"], RECORDS, "{last}");
    assert_eq!(last["api_requests"], 4, "four pages of ten: {last}");
    for key in [
        "records_per_s",
        "documents_per_s",
        "api_requests_per_s",
        "records_received",
    ] {
        assert!(last[key].is_number(), "{key}: {last}");
    }
    let summary: Value = serde_json::from_str(&ran.stdout_text()).unwrap();
    assert_eq!(summary["documents_by"], last["documents_by"], "{summary}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_from_the_links_host_is_waited_out_and_counted() {
    // A third of the requests to either origin are answered 429 with `Retry-After: 1`.
    let sandbox = sandbox("--inspections 7 --fault-429 0.3 --fault-seed 5").await;
    let dir = scratch("documents-429");
    let (code, summary, stderr, documents) = export(&sandbox, &dir.join("export"), &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(documents.len(), 10);
    let limited = summary["link_rate_limited"].as_u64().unwrap();
    assert!(limited > 0, "{summary}");
    assert!(
        by(&summary).0 > 0,
        "links served documents after their 429s: {summary}"
    );
    assert!(sandbox.stats().await.storage_faults >= limited, "{summary}");
    std::fs::remove_dir_all(dir).unwrap();
}
