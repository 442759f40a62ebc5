//! The legacy sandbox's storage, over plain HTTP: uploads to the pre-signed URLs it serves
//! (multipart parts of the documented sizes, checksums, the body limits they pass), and
//! archived transactions restored through `restoring` to `restored`.

use serde_json::{Value, json};

use sandbox::{LEGACY_USER, Options, Sandbox};

mod common;

use common::legacy::{Api, ids, start};

/// FNV-1a of `bytes`, as the sandbox's ETags and checksums give it.
fn fnv(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A PUT to a pre-signed URL (no token): the status and the ETag.
async fn put(sandbox: &Sandbox, url: &str, body: Vec<u8>) -> (u16, String) {
    let path = url.strip_prefix(&sandbox.legacy_base_url()).unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("http://{}{path}", sandbox.addr);
    let answer = client.put(url).body(body).send().await.unwrap();
    let etag = answer
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_string());
    (answer.status().as_u16(), etag.unwrap_or_default())
}

const MIB: usize = 1024 * 1024;

#[tokio::test]
async fn multipart_parts_of_the_documented_sizes_are_accepted_and_checked() {
    assert_eq!(Options::default().legacy_min_part_size, 5 * MIB as u64);
    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let started = user
        .post(
            "/api/users/multipart_upload_start/video-1?part_count=3",
            json!({}),
        )
        .await;
    assert_eq!(started.status, 200, "{started:?}");
    let upload_id = started.body["upload_id"].as_str().unwrap().to_string();
    let urls: Vec<String> = started.body["presigned_urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    // Parts larger than the 2 MiB a JSON body may have: the 5 MiB minimum, one short of it.
    let parts = [vec![1u8; 5 * MIB], vec![2u8; 3 * MIB], b"end".to_vec()];
    let mut etags = Vec::new();
    for (url, part) in urls.iter().zip(&parts) {
        let (status, etag) = put(&sandbox, url, part.clone()).await;
        assert_eq!(status, 200, "{url}");
        assert_eq!(etag, format!("\"{}\"", fnv(part)));
        etags.push(etag);
    }
    let listed = |etags: &[String], order: [usize; 3]| {
        let parts: Vec<Value> = order
            .iter()
            .map(|&n| json!({ "part_number": n, "etag": etags[n - 1] }))
            .collect();
        json!({ "upload_id": upload_id, "parts": parts })
    };
    let complete = "/api/users/multipart_upload_complete/video-1";
    // Part 2 is under 5 MiB and not the last: refused, naming it.
    let short = user.post(complete, listed(&etags, [1, 2, 3])).await;
    assert_eq!(short.status, 422, "{short:?}");
    assert!(
        short.errors().contains("part 2 is 3145728 bytes"),
        "{short:?}"
    );
    // Parts listed out of order, or twice.
    for order in [[2, 1, 3], [1, 1, 3]] {
        let refused = user.post(complete, listed(&etags, order)).await;
        assert_eq!(refused.status, 422, "{order:?}: {refused:?}");
        assert!(refused.errors().contains("parts["), "{refused:?}");
    }
    // Sent again at 6 MiB, it passes; the last part may be as small as it likes.
    let part2 = vec![2u8; 6 * MIB];
    let (status, etag) = put(&sandbox, &urls[1], part2.clone()).await;
    assert_eq!(status, 200);
    etags[1] = etag;
    let done = user.post(complete, listed(&etags, [1, 2, 3])).await;
    assert_eq!(done.status, 200, "{done:?}");
    let whole = [parts[0].clone(), part2, parts[2].clone()].concat();
    assert_eq!(done.body["filesize"], whole.len());
    assert_eq!(done.body["checksum"], fnv(&whole));
    assert_eq!(
        sandbox.legacy_file("43", "video-1").await.map(|f| fnv(&f)),
        Some(fnv(&whole))
    );
    // The record keeps the first 64 KiB of an upload's body, not all of it.
    let (_, recorded) = common::call(&sandbox, "GET", "/_sandbox/requests", &[], None).await;
    let puts: Vec<&Value> = recorded
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "PUT")
        .collect();
    assert_eq!(puts.len(), 4);
    assert!(
        puts.iter()
            .all(|r| r["body"].as_str().unwrap().len() <= 64 * 1024)
    );
    assert_eq!(puts[2]["body"], "end");
}

#[tokio::test]
async fn uploads_pass_the_json_body_limit_up_to_5_gib_and_nothing_else_does() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    // A single upload of 3 MiB.
    let slot = user.get("/api/users/uploads/photo-1").await;
    let url = slot.body["upload_url"].as_str().unwrap().to_string();
    let (status, _) = put(&sandbox, &url, vec![7u8; 3 * MIB]).await;
    assert_eq!(status, 200);
    let again = user.get("/api/users/uploads/photo-1").await;
    assert_eq!(again.body["size"], 3 * MIB);

    // More than 5 GiB announced: refused at once, nothing read.
    let started = user
        .post(
            "/api/users/multipart_upload_start/video-2?part_count=2",
            json!({}),
        )
        .await;
    let part_url = started.body["presigned_urls"][0]
        .as_str()
        .unwrap()
        .to_string();
    for url in [&url, &part_url] {
        let path = url.strip_prefix(&sandbox.legacy_base_url()).unwrap();
        let mut stream = tokio::net::TcpStream::connect(sandbox.addr).await.unwrap();
        let head = format!(
            "PUT {path} HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\nContent-Length: 5368709121\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
        assert!(answer.contains("5368709120 bytes"), "{answer}");
    }
    // A JSON body on /api keeps its 2 MiB limit.
    let big = json!({ "transaction": { "notations": { "text": "x".repeat(3 * MIB) } } });
    assert_eq!(user.post("/api/transactions", big).await.status, 413);
}

/// A transaction's `archive_status` as shown now.
async fn archive_status(api: &Api<'_>, id: &str) -> String {
    let t = api.get(&format!("/api/transactions/{id}")).await;
    t.body["transaction"]["archive_status"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn an_archived_transaction_is_restored_through_restoring_to_restored() {
    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let control = |path| common::call(&sandbox, "POST", path, &[], None);
    let restore = "/_sandbox/legacy/transactions/100/restore";
    // Five days old: active, nothing to restore.
    assert_eq!(archive_status(&user, "100").await, "active");
    let (status, body) = control(restore).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["errors"].as_str().unwrap().contains("active"),
        "{body}"
    );

    // Six months on, archived, and the filter sees it so.
    control("/_sandbox/advance?seconds=17280000").await;
    assert_eq!(archive_status(&user, "100").await, "archived");
    let archived = user
        .all(
            "/api/transactions",
            "transactions",
            json!({ "archive_status": "archived" }),
            50,
        )
        .await;
    assert_eq!(archived.len(), 5);

    // Restoring for a minute of the sandbox clock, then restored.
    let (status, started) = control(restore).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["archive_status"], "restoring");
    assert_eq!(archive_status(&user, "100").await, "restoring");
    assert_eq!(archive_status(&user, "101").await, "archived");
    let (status, again) = control(restore).await;
    assert_eq!(
        (status, &again["restored_at"]),
        (202, &started["restored_at"])
    );
    control("/_sandbox/advance?seconds=60").await;
    assert_eq!(archive_status(&user, "100").await, "restored");
    let restored = user
        .all(
            "/api/transactions",
            "transactions",
            json!({ "archive_status": "restored" }),
            50,
        )
        .await;
    assert_eq!(ids(&restored), ["100"]);
    assert_eq!(control(restore).await.0, 409);
    // At once, when asked to take no time.
    assert_eq!(
        control("/_sandbox/legacy/transactions/101/restore?seconds=0")
            .await
            .0,
        202
    );
    assert_eq!(archive_status(&user, "101").await, "restored");

    let (status, body) = control("/_sandbox/legacy/transactions/999/restore").await;
    assert_eq!(status, 404);
    assert!(body["errors"].as_str().unwrap().contains("999"), "{body}");
    // A reset forgets restores (and the clock).
    control("/_sandbox/reset").await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let t = user.get("/api/transactions/100").await;
    assert_eq!(t.body["transaction"]["archive_status"], "active");
}
