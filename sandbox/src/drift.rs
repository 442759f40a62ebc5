//! `--drift`: the sandbox departs from the spec on purpose, once in each way a drift watch
//! must see, each on one record or operation so that everything else stays as the spec
//! says. The departures (v3):
//!
//! | request                              | departure                                   |
//! |--------------------------------------|---------------------------------------------|
//! | `GET /v3/units/unt_001`              | a property the spec does not list (`colour`) |
//! | `GET /v3/tasks/tsk_complete`         | an enum value it does not know (`archived`)  |
//! | `GET /v3/inspections/ins_demo_full`  | a union member it does not know (`thermal_image`) |
//! | `GET /v3/inspections/{id}/share_url` | a promised field missing (`link`)            |
//! | `GET /v3/units/unt_002`              | a field of another JSON type (`year`, text)  |
//! | `GET /v3/units/unt_003`              | `null` in a field without null (`make`)      |
//! | `GET /v3/user_groups`                | a status the operation does not list (203)   |
//! | `GET /v3/workflows`                  | a 429 without `Retry-After`                  |

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Value, json};

/// Whether the answer to `method path` departs under `--drift`.
pub fn departs(method: &str, path: &str) -> bool {
    method == "GET" && (path == "/v3/workflows" || edit(path).is_some())
}

/// The departures, as the table above lists them.
pub async fn depart(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if req.method() != Method::GET {
        return next.run(req).await;
    }
    if path == "/v3/workflows" {
        // A 429 the clients cannot wait out: no `Retry-After`.
        return crate::http::error(StatusCode::TOO_MANY_REQUESTS, "Slow down");
    }
    let response = next.run(req).await;
    let Some(edit) = edit(&path).filter(|_| response.status().is_success()) else {
        return response;
    };
    let status = match path.as_str() {
        "/v3/user_groups" => StatusCode::NON_AUTHORITATIVE_INFORMATION,
        _ => response.status(),
    };
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    edit(&mut value);
    let bytes = serde_json::to_vec(&value).unwrap_or_default();
    parts.status = status;
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    Response::from_parts(parts, Body::from(bytes))
}

/// How the answer to `GET path` is changed, when it is.
fn edit(path: &str) -> Option<fn(&mut Value)> {
    let edit: fn(&mut Value) = match path {
        "/v3/units/unt_001" => |v| set(v, "colour", json!("yellow")),
        "/v3/units/unt_002" => |v| set(v, "year", json!("2019")),
        "/v3/units/unt_003" => |v| set(v, "make", Value::Null),
        "/v3/tasks/tsk_complete" => |v| set(v, "status", json!("archived")),
        "/v3/inspections/ins_demo_full" => |v| {
            if let Some(Value::Array(results)) = v.get_mut("results") {
                results.push(json!({"object": "thermal_image", "data": {"max_c": 88}}));
            }
        },
        p if p.starts_with("/v3/inspections/") && p.ends_with("/share_url") => |v| {
            if let Value::Object(map) = v {
                map.remove("link");
            }
        },
        "/v3/user_groups" => |_| {},
        _ => return None,
    };
    Some(edit)
}

fn set(record: &mut Value, key: &str, value: Value) {
    if let Value::Object(map) = record {
        map.insert(key.to_string(), value);
    }
}
