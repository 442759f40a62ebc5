//! The sandbox behind a reverse proxy (issue 18, item 3): a forwarding proxy on another
//! loopback port, and every absolute URL the sandbox answers naming the proxy's address, by
//! `--public-url` or by trusted forwarding headers. Through it the clients stream three
//! pages in each paging style, fetch a share link and a PDF, and complete uploads. (The
//! forwarding-header flows also run in every language: `tests/conformance/proxy.yaml`.)

use std::net::SocketAddr;

use futures_util::TryStreamExt;
use inspection_client::{legacy, v3};
use sandbox::{LEGACY_USER, Options, PagingStyle, Sandbox};

/// A sandbox with `options` and `sandbox::forward` in front of it; the proxy's listener is
/// bound first so that `--public-url` can name it. Returns the sandbox and the proxy origin.
async fn behind_proxy(mut options: Options, public_url: bool) -> (Sandbox, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy: SocketAddr = listener.local_addr().unwrap();
    let origin = format!("http://{proxy}");
    if public_url {
        options.public_url = Some(origin.clone());
    } else {
        options.trust_forwarded = true;
    }
    options.rate_limit = None;
    options.legacy_rate_limit = None;
    let sandbox = Sandbox::start(options).await.unwrap();
    tokio::spawn(sandbox::forward::serve(listener, sandbox.addr));
    (sandbox, origin)
}

fn v3_client(origin: &str) -> v3::Client {
    let config = v3::Client::default_config().no_pacing();
    v3::Client::with_config(
        &format!("{origin}/v3"),
        v3::ApiKey::new("demo-key", "demo-secret"),
        config,
    )
    .unwrap()
}

/// Three pages of units in `style`, then a share link and a PDF, all through the proxy.
async fn v3_flows(public_url: bool) {
    for style in [PagingStyle::Both, PagingStyle::NextUrl, PagingStyle::Cursor] {
        let options = Options {
            paging: style,
            ..Options::default()
        };
        let (sandbox, origin) = behind_proxy(options, public_url).await;
        let client = v3_client(&origin);
        let pages: Vec<_> = client
            .list_units()
            .per_page(1)
            .pages()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(
            pages.len(),
            3,
            "{style:?}: the three demo units, one a page"
        );
        if let Some(next) = pages[0]
            .paging
            .as_ref()
            .and_then(|p| p.next.clone().flatten())
        {
            assert!(next.starts_with(&origin), "{style:?}: {next}");
        }
        let share = client
            .get_inspection_share_url("ins_demo_full")
            .send()
            .await
            .unwrap();
        assert!(share.link.starts_with(&origin), "{}", share.link);
        let shared = client.fetch_presigned(&share.link).await.unwrap();
        assert!(shared.starts_with(b"%PDF"));
        let pdf = client.get_inspection("ins_demo_full").pdf().await.unwrap();
        assert!(pdf.starts_with(b"%PDF"));
        let inspection = client.get_inspection("ins_demo_full").send().await.unwrap();
        let dashboard = inspection.dashboard_url.unwrap_or_default();
        assert!(dashboard.starts_with(&origin), "{dashboard}");
        drop(sandbox);
    }
}

/// Three pages of legacy transactions by links, and a single and a multipart upload.
async fn legacy_flows(public_url: bool) {
    let (sandbox, origin) = behind_proxy(
        Options {
            legacy_min_part_size: 0,
            ..Options::default()
        },
        public_url,
    )
    .await;
    let login =
        legacy::AuthenticateRequest::new(legacy::Credentials::new(LEGACY_USER.0, LEGACY_USER.1));
    let client = legacy::Client::login(&origin, login).await.unwrap();
    let pages: Vec<_> = client
        .list_transactions()
        .limit(2)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3, "five demo transactions, two a page");
    let next = pages[0]
        .links
        .as_ref()
        .and_then(|l| l.next.clone().flatten());
    assert!(
        next.as_deref().unwrap_or("").starts_with(&origin),
        "{next:?}"
    );

    let upload = client.get_upload_url("photo-proxy-1").send().await.unwrap();
    let url = upload.upload_url.unwrap();
    assert!(url.starts_with(&origin), "{url}");
    client
        .put_presigned(&url, b"png bytes".to_vec(), Some("image/png"))
        .await
        .unwrap();

    let started = client
        .start_multipart_upload("video-proxy-1", 2)
        .send()
        .await
        .unwrap();
    assert!(
        started
            .presigned_urls
            .iter()
            .all(|u| u.starts_with(&origin))
    );
    let etags = client
        .put_parts(
            &started.presigned_urls,
            vec![b"one".to_vec().into(), b"two".to_vec().into()],
            None,
            2,
        )
        .await
        .unwrap();
    let parts = etags
        .into_iter()
        .map(|(n, etag)| legacy::UploadPart::new(n as i32, etag))
        .collect();
    let done = legacy::CompleteMultipartUploadRequest::new(started.upload_id, parts);
    client
        .complete_multipart_upload("video-proxy-1", done)
        .send()
        .await
        .unwrap();
    drop(sandbox);
}

#[tokio::test]
async fn with_a_public_url_every_link_names_the_proxy() {
    v3_flows(true).await;
    legacy_flows(true).await;
}

#[tokio::test]
async fn with_trusted_forwarding_headers_every_link_names_the_proxy() {
    v3_flows(false).await;
    legacy_flows(false).await;
}

/// Without `--trust-forwarded-headers` the headers are ignored: links name the sandbox's
/// own address, whatever a request claims.
#[tokio::test]
async fn forwarding_headers_are_ignored_unless_trusted() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let answer = reqwest::Client::new()
        .get(format!(
            "{}/inspections/ins_demo_full/share_url",
            sandbox.base_url()
        ))
        .header("api-key-id", "demo-key")
        .header("api-key-secret", "demo-secret")
        .header("x-forwarded-host", "evil.example")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!answer.contains("evil.example"), "{answer}");
    assert!(answer.contains(&sandbox.legacy_base_url()), "{answer}");
}
