//! The generated legacy client end to end through the sandbox's `/api`.

use std::collections::BTreeSet;

#[path = "support/mod.rs"]
mod support;

use chrono::{Duration, Utc};
use futures_util::TryStreamExt;
use inspection_client::legacy::*;
use inspection_client::runtime::__private::Auth;
use inspection_client::runtime::TimeOrRange;
use inspection_client::runtime::{Core, Method, Request};
use inspection_client::{Config, Error};
use sandbox::{LEGACY_MANAGER, LEGACY_USER, Options, Sandbox};
use support::capture::Capture;

const MANAGER_ID: &str = "42";
const USER_ID: &str = "43";

async fn start(transactions: usize) -> Sandbox {
    Sandbox::start(Options {
        legacy_transactions: transactions,
        ..Options::default()
    })
    .await
    .unwrap()
}

async fn login(sandbox: &Sandbox, who: (&str, &str)) -> Result<Client, Error> {
    let config = Client::default_config().no_pacing();
    let credentials = AuthenticateRequest::new(Credentials::new(who.0, who.1));
    Client::login_with_config(&sandbox.legacy_base_url(), credentials, config).await
}

#[tokio::test]
async fn login_works_and_a_wrong_password_is_401() {
    let sandbox = start(5).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let me = client.get_user(UserPathRef::Me).send().await.unwrap();
    assert_eq!(me.user.username.as_deref(), Some(LEGACY_USER.0));

    let err = login(&sandbox, (LEGACY_USER.0, "wrong")).await.unwrap_err();
    assert!(
        matches!(&err, Error::Api(a) if a.status == 401 && a.message.as_deref() == Some("Invalid username or password")),
        "{err:?}"
    );
    // Neither the password nor the token shows in Debug or errors.
    let credentials = Credentials::new(LEGACY_USER.0, "hunter2-secret");
    let shown = format!("{credentials:?} {client:?} {err}");
    assert!(
        !shown.contains("hunter2-secret") && !shown.contains("eyJ0eXAi"),
        "{shown}"
    );
}

#[tokio::test]
async fn every_request_selects_version_1() {
    let sandbox = start(1).await;
    // Without the versioned Accept the sandbox refuses the call, as the service may.
    let plain = Core::new(&sandbox.legacy_base_url(), Auth::None, Config::default()).unwrap();
    let mut login = Request::new(Method::POST, "/api/users/authenticate")
        .segment("api")
        .segment("users")
        .segment("authenticate");
    login.body = Some(
        br#"{"user": {"username": "manager@example.com", "password": "manager-pass"}}"#.to_vec(),
    );
    assert_eq!(plain.execute(&login).await.unwrap_err().status(), Some(406));
    // The generated client sends `Accept: application/json; version=1` on every request.
    let client = login_as_manager(&sandbox).await;
    client.list_locations().send().await.unwrap();
}

async fn login_as_manager(sandbox: &Sandbox) -> Client {
    login(sandbox, LEGACY_MANAGER).await.unwrap()
}

#[tokio::test]
async fn a_revoked_token_is_renewed_transparently() {
    let capture = Capture::default();
    let _guard = capture.install();
    let sandbox = start(3).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    client.list_transactions().send().await.unwrap();
    sandbox.revoke_legacy_tokens().await;
    // The 401 is answered by logging in again once, and the call goes through.
    let page = client.list_transactions().send().await.unwrap();
    assert_eq!(page.transactions.len(), 3);
    // A clone shares the renewed token.
    client.clone().get_user("self").send().await.unwrap();
    let logs = capture.text();
    assert!(
        logs.contains("401 with a token: logging in again"),
        "{logs}"
    );
    assert!(
        !logs.contains("eyJ0eXAi") && !logs.contains(LEGACY_USER.1),
        "a secret reached the logs"
    );
}

#[tokio::test]
async fn manager_only_calls_are_403_for_a_plain_user() {
    let sandbox = start(1).await;
    let user = login(&sandbox, LEGACY_USER).await.unwrap();
    let err = user.list_users().send().await.unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(
        err.to_string(),
        "GET /api/users answered 403: This operation requires the manager role \
         (only users with the manager role may call it)"
    );
    let err = user.get_user(MANAGER_ID).send().await.unwrap_err();
    assert_eq!(
        err.status(),
        Some(403),
        "reading another user needs the manager role"
    );
    let manager = login_as_manager(&sandbox).await;
    let users = manager.list_users().send().await.unwrap();
    assert_eq!(users.users.len(), 2);
    manager.get_user(USER_ID).send().await.unwrap();
}

#[tokio::test]
async fn paging_120_transactions_by_50_forwards_and_backwards() {
    let sandbox = start(120).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let pages: Vec<TransactionList> = client
        .list_transactions()
        .limit(50)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        pages
            .iter()
            .map(|p| p.transactions.len())
            .collect::<Vec<_>>(),
        [50, 50, 20]
    );
    let forward: Vec<Transaction> = client
        .list_transactions()
        .limit(50)
        .stream()
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<u64> = forward
        .iter()
        .map(|t| t.id.as_str().parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 120);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending by id");

    let after_last = (ids[119] + 1).to_string();
    let backward: Vec<TransactionList> = client
        .list_transactions()
        .limit(50)
        .before_id(after_last)
        .pages_backward()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        backward
            .iter()
            .map(|p| p.transactions.len())
            .collect::<Vec<_>>(),
        [50, 50, 20]
    );
    let seen: BTreeSet<&str> = backward
        .iter()
        .flat_map(|p| p.transactions.iter().map(|t| t.id.as_str()))
        .collect();
    assert_eq!(seen.len(), 120, "every transaction once, walking back");
}

#[tokio::test]
async fn filters_by_created_at_range_and_more() {
    let sandbox = start(30).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let now = Utc::now();
    let range = TimeOrRange::Between(
        now - Duration::days(10) - Duration::hours(1),
        now - Duration::days(5) + Duration::hours(1),
    );
    let hits: Vec<Transaction> = client
        .list_transactions()
        .filter(TransactionFilter::default().created_at(range))
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(hits.len(), 6, "days 10 to 5 ago");
    let vin: Vec<Transaction> = client
        .list_transactions()
        .filter(
            TransactionFilter::default()
                .reference_number("WMWMF33519TW73378")
                .damage(true),
        )
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert!(!vin.is_empty());
    assert!(vin.iter().all(|t| t.damage == Some(true)));
    let mut extended = serde_json::Map::new();
    extended.insert("contract.id".into(), serde_json::json!(7));
    let one: Vec<Transaction> = client
        .list_transactions()
        .filter(TransactionFilter::default().extended(extended))
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(one.len(), 1, "dot notation reaches into extended data");
    // The asset's own transactions, with the asset named by its external id.
    let of_asset: Vec<Transaction> = client
        .list_asset_transactions(AssetRef::external("0011110384607"))
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(of_asset.len(), 15);
}

#[tokio::test]
async fn transactions_older_than_six_months_are_archived() {
    let sandbox = start(10).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let before: Vec<Transaction> = client
        .list_transactions()
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert!(before.iter().all(|t| {
        t.archive_status
            .as_ref()
            .is_some_and(ArchiveStatus::is_active)
    }));
    // Ten transactions, 10 to 1 days old; half a day off any day boundary.
    sandbox.advance(Duration::days(180) + Duration::hours(12));
    let after: Vec<Transaction> = client
        .list_transactions()
        .stream()
        .try_collect()
        .await
        .unwrap();
    let archived = after
        .iter()
        .filter(|t| {
            t.archive_status
                .as_ref()
                .is_some_and(ArchiveStatus::is_archived)
        })
        .count();
    assert_eq!(
        archived, 9,
        "the ones now more than 182 days old (190.5 to 182.5)"
    );
}

#[tokio::test]
async fn upload_then_create_a_transaction_that_references_the_file() {
    let sandbox = start(1).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let file = "sig-0001";
    let bytes = b"\x89PNG fake signature".to_vec();
    let target = client.get_upload_url(file).send().await.unwrap();
    let url = target
        .upload_url
        .clone()
        .expect("a new file gets an upload URL");
    client
        .put_presigned(&url, bytes.clone(), Some("image/png"))
        .await
        .unwrap();
    // Asking again resumes: the file is known, with its size.
    let again = client.get_upload_url(file).send().await.unwrap();
    assert_eq!(again.size, Some(bytes.len() as i64));

    let body = NewTransactionRequest::new(
        NewTransaction::default()
            .asset_id("43")
            .check_in(Some(true))
            .signatures(vec![SignatureUpload::new(file)]),
    );
    let created = client.create_transaction(body).send().await.unwrap();
    assert_eq!(
        created
            .transaction
            .asset
            .as_ref()
            .and_then(|a| a.id.as_ref())
            .map(|i| i.as_str()),
        Some("43")
    );
    assert_eq!(sandbox.legacy_file(USER_ID, file).await, Some(bytes));
    // Part of a transaction now: no further upload URL.
    assert_eq!(
        client.get_upload_url(file).send().await.unwrap().upload_url,
        None
    );
    // A file that was never uploaded cannot be referenced.
    let missing = NewTransactionRequest::new(
        NewTransaction::default().signatures(vec![SignatureUpload::new("nope")]),
    );
    assert_eq!(
        client
            .create_transaction(missing)
            .send()
            .await
            .unwrap_err()
            .status(),
        Some(422)
    );
    assert_eq!(sandbox.presigned_with_credentials().await, 0);
}

#[tokio::test]
async fn a_three_part_multipart_upload_is_assembled() {
    let sandbox = start(1).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    let file = "video-7";
    // Every part but the last at the documented minimum of 5 MiB.
    const MIN: usize = 5 * 1024 * 1024;
    let parts: Vec<Vec<u8>> = vec![vec![1u8; MIN], vec![2u8; MIN], vec![3u8; 1_234]];
    let started = client
        .start_multipart_upload(file, 3)
        .content_type("video/mp4")
        .send()
        .await
        .unwrap();
    assert_eq!(started.presigned_urls.len(), 3);
    // Starting again resumes the same upload.
    let resumed = client
        .start_multipart_upload(file, 3)
        .content_type("video/mp4")
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.upload_id, started.upload_id);
    let etags = client
        .put_parts(
            &started.presigned_urls,
            parts.iter().cloned().map(Into::into).collect(),
            Some("video/mp4"),
            2,
        )
        .await
        .unwrap();
    let listed = etags
        .into_iter()
        .map(|(n, etag)| UploadPart::new(n as i32, etag))
        .collect();
    let upload_id = started.upload_id.clone();
    let done = client
        .complete_multipart_upload(file, CompleteMultipartUploadRequest::new(upload_id, listed))
        .send()
        .await
        .unwrap();
    assert_eq!(done.filesize, Some(2 * MIN as i64 + 1_234));
    assert_eq!(
        sandbox.legacy_file(USER_ID, file).await,
        Some(parts.concat())
    );
    assert_eq!(
        sandbox.presigned_with_credentials().await,
        0,
        "no credential reached a pre-signed URL"
    );

    // 1 to 20 parts, checked before anything is sent; a bad media type is the service's 400.
    let err = client
        .start_multipart_upload(file, 21)
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = client
        .start_multipart_upload("x", 2)
        .content_type("text/plain")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(400));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_401s_log_in_once() {
    let sandbox = start(3).await;
    let client = login(&sandbox, LEGACY_USER).await.unwrap();
    sandbox.revoke_legacy_tokens().await;
    let calls = (0..8).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.list_locations().send().await })
    });
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(
        sandbox.legacy_token_count().await,
        1,
        "one re-login served every request"
    );
}
