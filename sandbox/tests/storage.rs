//! The storage origin: every inspection the API answers carries a pre-signed link to its
//! PDF on a listener of its own, which needs no key, serves the API's document byte for
//! byte, expires after 48 hours under the sandbox's clock, refuses a forged link, is not
//! rate limited with the API, counts credentials sent to it, takes faults, and fails or
//! expires on demand.

mod common;

use std::time::Duration;

use serde_json::json;

use common::{call, send};
use sandbox::storage::LinkMode;
use sandbox::{Faults, Options, Sandbox};

use common::DEMO_KEYS as KEYS;

async fn get(url: &str, headers: &[(&str, &str)]) -> (u16, String, Vec<u8>) {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut request = client.get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let content_type = answer
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = answer.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
    (status, content_type, bytes)
}

/// The links of the first page of inspections.
async fn links(sandbox: &Sandbox) -> Vec<(String, String)> {
    let (status, page) = call(sandbox, "GET", "/v3/inspections", &KEYS, None).await;
    assert_eq!(status, 200, "{page}");
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let link = i["pdf_share_url"]
                .as_str()
                .expect("every inspection has a link");
            (i["id"].as_str().unwrap().to_string(), link.to_string())
        })
        .collect()
}

/// The API's PDF form of an inspection (a 202 first, while it is prepared).
async fn api_pdf(sandbox: &Sandbox, id: &str) -> Vec<u8> {
    let path = format!("/v3/inspections/{id}");
    let headers = [KEYS[0], KEYS[1], ("accept", "application/pdf")];
    for _ in 0..5 {
        let answer = send(sandbox, "GET", &path, &headers, None).await;
        if answer.status() == 200 {
            return answer.bytes().await.unwrap().to_vec();
        }
        assert_eq!(answer.status(), 202);
    }
    panic!("the PDF of {id} was never ready");
}

#[tokio::test]
async fn a_link_serves_the_apis_document_without_a_key_for_48_hours() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let links = links(&sandbox).await;
    assert!(!links.is_empty());
    let (id, link) = &links[0];
    assert!(
        link.starts_with(&format!("{}/inspections/", sandbox.storage_url())),
        "{link}"
    );
    let (status, content_type, bytes) = get(link, &[]).await;
    assert_eq!((status, content_type.as_str()), (200, "application/pdf"));
    assert_eq!(
        bytes,
        api_pdf(&sandbox, id).await,
        "the same document as the API's"
    );
    // The one-item answer carries a link too.
    let (_, one) = common::v3_get(&sandbox, &format!("/inspections/{id}")).await;
    assert!(one["pdf_share_url"].as_str().is_some(), "{one}");

    sandbox.advance(chrono::Duration::hours(47));
    assert_eq!(get(link, &[]).await.0, 200, "alive at 47 hours");
    sandbox.advance(chrono::Duration::hours(1));
    let (status, _, body) = get(link, &[]).await;
    assert_eq!(status, 403, "expired at 48 hours");
    assert!(String::from_utf8_lossy(&body).contains("Request has expired"));
    let stats = sandbox.stats().await;
    assert_eq!(stats.storage_requests, 3);
    assert_eq!(stats.storage_with_credentials, 0);
}

#[tokio::test]
async fn a_forged_or_altered_link_is_refused_and_credentials_sent_to_storage_are_counted() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, link) = links(&sandbox).await.remove(0);
    let (base, query) = link.split_once('?').unwrap();
    let expires: i64 = query
        .split('&')
        .find_map(|p| p.strip_prefix("expires="))
        .unwrap()
        .parse()
        .unwrap();
    let signature = query.split_once("signature=").unwrap().1;
    let later = format!("{base}?expires={}&signature={signature}", expires + 3600);
    let other = link.replace("/inspections/", "/inspections/x");
    let unsigned = base.to_string();
    for forged in [later, other, unsigned] {
        assert_eq!(get(&forged, &[]).await.0, 403, "{forged}");
    }
    assert_eq!(
        get(&format!("{}/elsewhere", sandbox.storage_url()), &[])
            .await
            .0,
        404
    );
    assert_eq!(get(&link, &KEYS).await.0, 200);
    assert_eq!(sandbox.stats().await.storage_with_credentials, 1);
}

#[tokio::test]
async fn each_link_mode_does_what_it_says_and_a_reset_ends_it() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, link) = links(&sandbox).await.remove(0);
    let cases = [
        ("forbidden", 403, ""),
        ("missing", 404, ""),
        ("html", 200, "text/html; charset=utf-8"),
        ("not_pdf", 200, "application/pdf"),
    ];
    for (mode, status, content_type) in cases {
        let (set, _) = call(
            &sandbox,
            "POST",
            "/_sandbox/links",
            &[],
            Some(json!({"mode": mode})),
        )
        .await;
        assert_eq!(set, 204, "{mode}");
        let (got, got_type, bytes) = get(&link, &[]).await;
        assert_eq!(got, status, "{mode}");
        if !content_type.is_empty() {
            assert_eq!(got_type, content_type, "{mode}");
            assert!(!bytes.starts_with(b"%PDF-"), "{mode}: not the document");
        }
    }
    // Cut short: the full length announced, half sent, the connection broken.
    sandbox.set_links(LinkMode::Truncated);
    let answer = reqwest::get(&link).await.unwrap();
    let announced = answer.content_length().unwrap();
    assert!(
        answer.bytes().await.is_err(),
        "the body ends before {announced} bytes"
    );
    // Expired: links issued from now on are dead on arrival.
    sandbox.set_links(LinkMode::Expired);
    let (_, fresh) = links(&sandbox).await.remove(0);
    sandbox.set_links(LinkMode::Ok);
    assert_eq!(get(&fresh, &[]).await.0, 403);
    assert_eq!(get(&link, &[]).await.0, 200);
    let (refused, errors) = call(
        &sandbox,
        "POST",
        "/_sandbox/links",
        &[],
        Some(json!({"mode": "gone"})),
    )
    .await;
    assert_eq!(refused, 400);
    assert!(errors.to_string().contains("not_pdf"), "{errors}");
    sandbox.set_links(LinkMode::Forbidden);
    assert_eq!(
        call(&sandbox, "POST", "/_sandbox/reset", &[], None).await.0,
        204
    );
    assert_eq!(get(&link, &[]).await.0, 200, "a reset serves links again");
}

#[tokio::test]
async fn links_are_not_rate_limited_with_the_api_and_take_faults_of_their_own() {
    let sandbox = Sandbox::start(Options {
        rate_limit: Some((2, Duration::from_secs(60))),
        ..Options::default()
    })
    .await
    .unwrap();
    let (_, link) = links(&sandbox).await.remove(0);
    for _ in 0..10 {
        assert_eq!(get(&link, &[]).await.0, 200);
    }
    let (status, _) = call(&sandbox, "GET", "/v3/units", &KEYS, None).await;
    assert_eq!(status, 200, "the API's second request of its window");

    let faulty = Sandbox::start(Options {
        faults: Faults::mixed(3, 0.5),
        rate_limit: None,
        ..Options::default()
    })
    .await
    .unwrap();
    let mut link = None;
    for _ in 0..20 {
        let (status, page) = call(&faulty, "GET", "/v3/inspections", &KEYS, None).await;
        if status == 200 {
            link = page["data"][0]["pdf_share_url"]
                .as_str()
                .map(str::to_string);
            break;
        }
    }
    let link = link.expect("a page got through the faults");
    let api_faults = faulty.stats().await.faults;
    let client = reqwest::Client::new();
    let mut refused = 0;
    for _ in 0..40 {
        match client.get(&link).send().await {
            Ok(answer) if answer.status() == 200 => {
                if answer.bytes().await.is_err() {
                    refused += 1;
                }
            }
            _ => refused += 1,
        }
    }
    let stats = faulty.stats().await;
    assert!(stats.storage_faults > 0 && refused > 0, "{stats:?}");
    assert_eq!(stats.faults, api_faults, "link traffic draws no API fault");
}

/// `{storage}/inspections/{id}.pdf?expires={now + 48 h}&signature={16 hex digits}`.
fn assert_link_form(sandbox: &Sandbox, id: &str, link: &str) {
    let prefix = format!("{}/inspections/{id}.pdf?expires=", sandbox.storage_url());
    let rest = link
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{link}"));
    let (expires, signature) = rest.split_once("&signature=").expect(link);
    let expires: i64 = expires.parse().expect(link);
    let expected = (chrono::Utc::now() + chrono::Duration::hours(48)).timestamp();
    assert!((expected - 5..=expected).contains(&expires), "{link}");
    assert!(
        signature.len() == 16 && signature.bytes().all(|b| b.is_ascii_hexdigit()),
        "{link}"
    );
}

#[tokio::test]
async fn every_answer_with_an_inspection_carries_a_link_signed_at_that_moment() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, page) = call(&sandbox, "GET", "/v3/inspections", &KEYS, None).await;
    let with_unit = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["unit"]["id"].is_string() && i["unit"]["reference_number"].is_string())
        .expect("a demo inspection of a unit");
    let (unit, reference) = (
        with_unit["unit"]["id"].as_str().unwrap(),
        with_unit["unit"]["reference_number"].as_str().unwrap(),
    );
    let lists = [
        format!("/v3/units/{unit}/inspections"),
        format!("/v3/units/by_reference_number/{reference}/inspections"),
    ];
    for path in lists {
        let (status, page) = call(&sandbox, "GET", &path, &KEYS, None).await;
        assert_eq!(status, 200, "{path}: {page}");
        let data = page["data"].as_array().unwrap();
        assert!(!data.is_empty(), "{path}");
        for inspection in data {
            let id = inspection["id"].as_str().unwrap();
            assert_link_form(&sandbox, id, inspection["pdf_share_url"].as_str().unwrap());
        }
    }
    let id = with_unit["id"].as_str().unwrap();
    let (_, one) = common::v3_get(&sandbox, &format!("/inspections/{id}")).await;
    assert_link_form(&sandbox, id, one["pdf_share_url"].as_str().unwrap());

    // Signed at the moment of the answer: a day later, a new answer's link lives a day longer.
    let before = one["pdf_share_url"].as_str().unwrap().to_string();
    sandbox.advance(chrono::Duration::hours(24));
    let (_, later) = common::v3_get(&sandbox, &format!("/inspections/{id}")).await;
    let later = later["pdf_share_url"].as_str().unwrap();
    assert_ne!(later, before);
    assert_eq!(get(later, &[]).await.0, 200);

    // A new inspection, answered and delivered with a link.
    let (status, created) = call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
    assert_eq!(status, 201, "{created}");
    let link = created["pdf_share_url"]
        .as_str()
        .expect("answered with a link");
    assert_eq!(get(link, &[]).await.0, 200);

    let (status, stats) = call(&sandbox, "GET", "/_sandbox/stats", &[], None).await;
    assert_eq!(status, 200);
    assert_eq!(stats["storage_requests"], 2, "{stats}");
    assert_eq!(stats["storage_with_credentials"], 0, "{stats}");
    assert_eq!(stats["storage_faults"], 0, "{stats}");
}

#[tokio::test]
async fn a_link_whose_inspection_is_gone_is_404_and_a_bad_query_is_refused_not_failed() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, created) = call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
    let gone = created["pdf_share_url"].as_str().unwrap().to_string();
    // The reset drops the inspection created since start-up; the signing key stays.
    call(&sandbox, "POST", "/_sandbox/reset", &[], None).await;
    let (status, _, body) = get(&gone, &[]).await;
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("NoSuchKey"));

    let (_, link) = links(&sandbox).await.remove(0);
    let (base, query) = link.split_once('?').unwrap();
    let (expires, signature) = query.split_once("&signature=").unwrap();
    let mut flipped = signature.to_string();
    let last = if flipped.ends_with('0') { "1" } else { "0" };
    flipped.replace_range(15.., last);
    let (status, _, body) = get(&format!("{base}?{expires}&signature={flipped}"), &[]).await;
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("SignatureDoesNotMatch"));

    let storage = sandbox.storage_url();
    let bad = [
        format!("{base}?expires=soon&signature={signature}"),
        format!("{base}?expires=99999999999999999999999&signature={signature}"),
        format!("{base}?{expires}"),
        format!("{base}?{expires}&{expires}&signature={signature}"),
        format!("{base}?{expires}&signature=%FF"),
        format!("{base}?{expires}&signature={signature}&signature=x"),
        format!("{storage}/inspections/%FF.pdf?{expires}&signature={signature}"),
        format!("{storage}/inspections/.pdf?{expires}&signature={signature}"),
        format!("{storage}/inspections/no-suffix?{expires}&signature={signature}"),
    ];
    for url in bad {
        let (status, content_type, body) = get(&url, &[]).await;
        assert!(matches!(status, 400 | 403 | 404), "{url}: {status}");
        // Refused as object storage refuses, never in the framework's plain text.
        assert_eq!(content_type, "application/xml", "{url}");
        assert!(
            String::from_utf8_lossy(&body).contains("<Error><Code>"),
            "{url}"
        );
    }
    assert_eq!(get(&link, &[]).await.0, 200, "the sandbox still serves");
}

#[tokio::test]
async fn head_announces_the_document_without_sending_it() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, link) = links(&sandbox).await.remove(0);
    let (_, _, bytes) = get(&link, &[]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let answer = client.head(&link).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/pdf");
    assert_eq!(
        answer.headers()["content-length"],
        bytes.len().to_string().as_str()
    );
    assert!(answer.bytes().await.unwrap().is_empty());
}
