//! Status discipline (issue 18): the sandbox answers only statuses the spec lists for an
//! operation, or for every operation of its interface. One walk over every operation of
//! `generated/ir.json` (so an operation added to the spec is walked with no edit here), with
//! the requests that most often draw a status nobody listed: ids that name nothing, every
//! query parameter malformed, no body, an empty object for a body, no credentials. The same
//! walk fails on an operation the sandbox does not route, or routes to no handler (a 501,
//! which no operation lists).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use sandbox::{LEGACY_MANAGER, Sandbox};

mod common;
#[path = "common/spec.rs"]
mod spec;

use spec::{IR, KEYS, fill, login, start, statuses};

/// One request of the walk.
struct Try<'a> {
    what: &'static str,
    path: String,
    credentials: bool,
    body: Option<Body<'a>>,
}

enum Body<'a> {
    Json(Value),
    /// Bytes of the operation's own (non-JSON) content type.
    Raw(&'a str),
}

#[tokio::test]
async fn every_operation_answers_only_statuses_the_spec_lists() {
    let ir: Value = serde_json::from_str(IR).unwrap();
    let sandbox = start().await;
    let token = login(&sandbox, LEGACY_MANAGER).await;
    let mut unlisted = Vec::new();
    let mut unrouted = Vec::new();
    let mut answered: BTreeMap<u16, usize> = BTreeMap::new();
    let mut operations = 0;
    for interface in ir["interfaces"].as_array().unwrap() {
        let name = interface["name"].as_str().unwrap();
        let everywhere = statuses(&interface["errors"]);
        for op in interface["operations"].as_array().unwrap() {
            operations += 1;
            let mut allowed = statuses(&op["errors"]);
            allowed.extend(&everywhere);
            allowed.extend(statuses(&op["responses"]));
            let method = op["method"].as_str().unwrap();
            let path = fill(op["path"].as_str().unwrap());
            for t in tries(op, &path) {
                let (status, answer) = send(&sandbox, name, &token, method, &t).await;
                *answered.entry(status).or_default() += 1;
                // The sandbox routes every operation of the spec (the fallback's 404 names
                // no record, it says there is no route).
                if answer["errors"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("No route for"))
                {
                    let op_name = op["name"].as_str().unwrap();
                    unrouted.push(format!("{name} {op_name}: {method} {}", t.path));
                }
                if !allowed.contains(&u64::from(status)) {
                    let op_name = op["name"].as_str().unwrap();
                    unlisted.push(format!(
                        "{name} {op_name}: {status} to {} ({method} {}); listed: {allowed:?}",
                        t.what, t.path
                    ));
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "{unlisted:#?}");
    assert!(
        unrouted.is_empty(),
        "operations the sandbox does not route: {unrouted:#?}"
    );
    // The walk reached every kind of answer it is there to catch.
    assert!(operations >= 60, "{operations} operations");
    for status in [200, 400, 401, 404, 422] {
        assert!(
            answered.contains_key(&status),
            "never {status}: {answered:?}"
        );
    }
}

/// The requests the walk sends to one operation (path parameters already filled in).
fn tries<'a>(op: &'a Value, path: &str) -> Vec<Try<'a>> {
    let body = &op["body"];
    let media = body["content_type"].as_str().unwrap_or("");
    let given = match () {
        _ if body.is_null() => None,
        _ if media == "application/json" => Some(Body::Json(json!({}))),
        _ => Some(Body::Raw(media)),
    };
    let again = |b: &Option<Body<'a>>| match b {
        Some(Body::Json(v)) => Some(Body::Json(v.clone())),
        Some(Body::Raw(m)) => Some(Body::Raw(m)),
        None => None,
    };
    let mut out = vec![
        Try {
            what: "ids that name nothing",
            path: path.to_string(),
            credentials: true,
            body: again(&given),
        },
        Try {
            what: "no credentials",
            path: path.to_string(),
            credentials: false,
            body: again(&given),
        },
    ];
    let params: Vec<String> = op["query"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| format!("{}=%7B", q["name"].as_str().unwrap()))
        .collect();
    if !params.is_empty() {
        out.push(Try {
            what: "every query parameter `{`",
            path: format!("{path}?{}", params.join("&")),
            credentials: true,
            body: again(&given),
        });
    }
    if given.is_some() {
        out.push(Try {
            what: "no body",
            path: path.to_string(),
            credentials: true,
            body: None,
        });
    }
    out
}

/// The answer's status and JSON body.
async fn send(
    sandbox: &Sandbox,
    interface: &str,
    token: &str,
    method: &str,
    t: &Try<'_>,
) -> (u16, Value) {
    let auth = format!("Token {token}");
    let mut headers = Vec::new();
    match (interface, t.credentials) {
        ("v3", true) => headers.extend(KEYS),
        ("v3", false) => {}
        (_, credentials) => {
            headers.push(("accept", "application/json; version=1"));
            if credentials {
                headers.push(("authorization", auth.as_str()));
            }
        }
    }
    let path = match interface {
        "v3" => format!("/v3{}", t.path),
        _ => t.path.clone(),
    };
    let body = match &t.body {
        Some(Body::Json(v)) => Some(("application/json", v.to_string())),
        Some(Body::Raw(media)) => Some((*media, "a line".to_string())),
        None => None,
    };
    common::read(common::send(sandbox, method, &path, &headers, body).await).await
}
