//! Several companies in one sandbox (`--company`): each key sees its own data and writes
//! to it alone, and every company's requests count against the one rate limit per client
//! address.

use std::time::Duration;

use serde_json::json;

use sandbox::{Company, Options, Sandbox};

mod common;

use common::DEMO_KEYS as FIRST;
const SECOND: [(&str, &str); 2] = [("api-key-id", "acme-key"), ("api-key-secret", "acme")];

fn two_companies(rate_limit: Option<(u32, Duration)>) -> Options {
    Options {
        companies: vec![Company::parse("acme-key:acme:7").unwrap()],
        extra_inspections: 2,
        rate_limit,
        ..Options::default()
    }
}

async fn count(sandbox: &Sandbox, keys: &[(&str, &str)], path: &str) -> usize {
    let (status, page) = common::call(sandbox, "GET", path, keys, None).await;
    assert_eq!(status, 200, "{path}: {page}");
    page["data"].as_array().unwrap().len()
}

#[tokio::test]
async fn each_key_reads_and_writes_its_own_company() {
    let sandbox = Sandbox::start(two_companies(None)).await.unwrap();
    let path = "/v3/inspections?limit=500";
    let (first, second) = (
        count(&sandbox, &FIRST, path).await,
        count(&sandbox, &SECOND, path).await,
    );
    assert_eq!(
        second,
        first + 5,
        "the second company has 7 generated, the first 2"
    );

    let unit = json!({"reference_number": "ACME-1"});
    let (status, _) = common::call(&sandbox, "POST", "/v3/units", &SECOND, Some(unit)).await;
    assert_eq!(status, 201);
    let by_reference = "/v3/units/by_reference_number/ACME-1";
    assert_eq!(
        common::call(&sandbox, "GET", by_reference, &SECOND, None)
            .await
            .0,
        200
    );
    assert_eq!(
        common::call(&sandbox, "GET", by_reference, &FIRST, None)
            .await
            .0,
        404
    );

    let wrong = [
        ("api-key-id", "acme-key"),
        ("api-key-secret", "demo-secret"),
    ];
    assert_eq!(
        common::call(&sandbox, "GET", path, &wrong, None).await.0,
        401
    );
}

#[tokio::test]
async fn the_companies_share_one_rate_limit_per_address() {
    let limit = Some((4, Duration::from_secs(60)));
    let sandbox = Sandbox::start(two_companies(limit)).await.unwrap();
    let path = "/v3/units";
    for keys in [&FIRST, &SECOND, &FIRST, &SECOND] {
        assert_eq!(common::call(&sandbox, "GET", path, keys, None).await.0, 200);
    }
    assert_eq!(
        common::call(&sandbox, "GET", path, &SECOND, None).await.0,
        429
    );
    assert_eq!(
        common::call(&sandbox, "GET", path, &FIRST, None).await.0,
        429
    );
    assert_eq!(sandbox.stats().await.rate_limited, 2);
}

#[test]
fn companies_come_from_the_command_line_each_with_a_key_of_its_own() {
    let parse = |args: &[&str]| sandbox::cli::parse(args.iter().map(|a| a.to_string()).collect());
    let options = parse(&["--company", "acme-key:acme:3", "--company", "globex:g:0"])
        .unwrap()
        .unwrap();
    let keys: Vec<&str> = options.companies.iter().map(|c| c.key.0.as_str()).collect();
    assert_eq!(keys, ["acme-key", "globex"]);
    let taken = parse(&["--company", "demo-key:other:1"]).unwrap_err();
    assert!(
        taken.contains("`demo-key` is already another company's"),
        "{taken}"
    );
    let bad = parse(&["--company", "acme-key:acme"]).unwrap_err();
    assert!(
        bad.contains("--company: `acme-key:acme` is not ID:SECRET:INSPECTIONS"),
        "{bad}"
    );
}
