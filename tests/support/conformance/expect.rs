//! Comparing results, errors and recorded requests with a scenario's expectations, and
//! filling `${name.path}` references from earlier steps.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Replaces every `${name.path}` in the strings of `value`. A string that is exactly one
/// reference becomes the value referred to (any JSON type); references inside a longer
/// string are written as text.
pub fn fill(value: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => fill_str(s, vars)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| fill(v, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), fill(v, vars)?)))
                .collect::<Result<Map<_, _>, String>>()?,
        ),
        other => other.clone(),
    })
}

fn fill_str(s: &str, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
        && !name.contains("${")
    {
        return lookup(name, vars);
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{s}`: `${{` without a closing `}}`"))?;
        match lookup(&after[..end], vars)? {
            Value::String(text) => out.push_str(&text),
            other => out.push_str(&other.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// `name.key.0.key`: a saved value, then object keys and list indices.
fn lookup(reference: &str, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    let mut parts = reference.split('.');
    let name = parts.next().unwrap_or_default();
    let mut value = vars
        .get(name)
        .ok_or_else(|| format!("`${{{reference}}}`: nothing was saved as `{name}`"))?;
    for part in parts {
        let next = match value {
            Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
            Value::Object(map) => map.get(part),
            _ => None,
        };
        value = next.ok_or_else(|| format!("`${{{reference}}}`: `{part}` is not in {value}"))?;
    }
    Ok(value.clone())
}

/// An object with one `$` key: a matcher rather than a literal value.
fn matcher(pattern: &Value) -> Option<(&str, &Value)> {
    match pattern {
        Value::Object(map) if map.len() == 1 => {
            let (key, arg) = map.iter().next()?;
            key.starts_with('$').then_some((key.as_str(), arg))
        }
        _ => None,
    }
}

/// Whether `actual` (absent when `None`) matches `pattern`: objects need every key of
/// the pattern (more are allowed), lists the same length with each entry matching,
/// numbers the same value, other values equality; `$` matchers as the README lists.
pub fn check(pattern: &Value, actual: Option<&Value>, at: &str) -> Result<(), String> {
    let here = if at.is_empty() { "the result" } else { at };
    if let Some((name, arg)) = matcher(pattern) {
        let matched = match name {
            "$absent" => actual.is_none(),
            "$any" => actual.is_some(),
            "$starts_with" => actual
                .and_then(Value::as_str)
                .zip(arg.as_str())
                .is_some_and(|(s, prefix)| s.starts_with(prefix)),
            "$at_least" => actual
                .and_then(Value::as_f64)
                .zip(arg.as_f64())
                .is_some_and(|(n, least)| n >= least),
            "$json" => actual
                .and_then(Value::as_str)
                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                .is_some_and(|parsed| same(arg, &parsed)),
            _ => return Err(format!("{here}: unknown matcher `{name}`")),
        };
        return if matched {
            Ok(())
        } else {
            Err(format!("{here}: expected {pattern}, got {}", shown(actual)))
        };
    }
    let Some(actual) = actual else {
        return Err(format!("{here}: expected {pattern}, got nothing"));
    };
    match (pattern, actual) {
        (Value::Object(want), Value::Object(got)) => {
            for (key, p) in want {
                check(p, got.get(key), &join(at, key))?;
            }
            Ok(())
        }
        (Value::Array(want), Value::Array(got)) => {
            if want.len() != got.len() {
                return Err(format!(
                    "{here}: expected {} entries, got {}: {actual}",
                    want.len(),
                    got.len()
                ));
            }
            for (i, (p, a)) in want.iter().zip(got).enumerate() {
                check(p, Some(a), &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        _ if same(pattern, actual) => Ok(()),
        _ => Err(format!("{here}: expected {pattern}, got {actual}")),
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or("nothing".to_string(), Value::to_string)
}

/// Equality, with numbers compared by value (`1` and `1.0` are the same).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Compares the requests the sandbox recorded with the expected list, entry by entry.
pub fn check_requests(expected: &[Value], recorded: &[Value]) -> Result<(), String> {
    let listing = || {
        recorded
            .iter()
            .map(|r| {
                format!(
                    "  {} {}{} -> {}",
                    r["method"].as_str().unwrap_or("?"),
                    r["path"].as_str().unwrap_or("?"),
                    r["query"]
                        .as_str()
                        .filter(|q| !q.is_empty())
                        .map(|q| format!("?{q}"))
                        .unwrap_or_default(),
                    r["status"]
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if expected.len() != recorded.len() {
        return Err(format!(
            "expected {} requests, the sandbox received {}:\n{}",
            expected.len(),
            recorded.len(),
            listing()
        ));
    }
    for (i, (want, got)) in expected.iter().zip(recorded).enumerate() {
        let previous = i.checked_sub(1).map(|p| &recorded[p]);
        check_request(want, got, previous)
            .map_err(|e| format!("request {i}: {e}\nreceived:\n{}", listing()))?;
    }
    Ok(())
}

/// An expected request against a recorded one (its keys were checked with the file, against
/// `format.json`).
fn check_request(want: &Value, got: &Value, previous: Option<&Value>) -> Result<(), String> {
    let want = want
        .as_object()
        .ok_or_else(|| format!("an expected request is a mapping, not {want}"))?;
    let ignored = |what: &str| {
        want.get("ignore")
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|v| v == what))
    };
    let text = |key: &str| got[key].as_str().unwrap_or_default().to_string();
    let method = want
        .get("method")
        .and_then(Value::as_str)
        .ok_or("an expected request needs `method`")?;
    if !method.eq_ignore_ascii_case(&text("method")) {
        return Err(format!("expected method {method}, got {}", text("method")));
    }
    let path = want
        .get("path")
        .and_then(Value::as_str)
        .ok_or("an expected request needs `path`")?;
    let path_ok = match path.strip_suffix('*') {
        Some(prefix) => text("path").starts_with(prefix),
        None => text("path") == path,
    };
    if !path_ok {
        return Err(format!("expected path {path}, got {}", text("path")));
    }
    if !ignored("query") {
        check_query(want.get("query"), &got["query_pairs"])?;
    }
    if let Some(headers) = want.get("headers") {
        let headers = headers
            .as_object()
            .ok_or("`headers` is a mapping of lowercase names")?;
        for (name, value) in headers {
            let pattern = if value.is_null() {
                serde_json::json!({"$absent": true})
            } else {
                value.clone()
            };
            check(
                &pattern,
                got["headers"].get(name),
                &format!("header {name}"),
            )?;
        }
    }
    if !ignored("body") {
        let body = text("body");
        match (want.get("body"), want.get("body_text")) {
            (Some(json), _) => {
                let parsed: Value = serde_json::from_str(&body)
                    .map_err(|e| format!("expected a JSON body, got {body:?} ({e})"))?;
                if !same(json, &parsed) {
                    return Err(format!("expected the body {json}, got {parsed}"));
                }
            }
            (None, Some(Value::String(t))) if *t == body => {}
            (None, Some(t)) => return Err(format!("expected the body text {t}, got {body:?}")),
            (None, None) if body.is_empty() => {}
            (None, None) => return Err(format!("expected no body, got {body:?}")),
        }
    }
    if let Some(status) = want.get("status")
        && !same(status, &got["status"])
    {
        return Err(format!(
            "expected the sandbox to answer {status}, it answered {}",
            got["status"]
        ));
    }
    let gap = previous.map(|p| {
        got["received_ms"].as_f64().unwrap_or(0.0) - p["received_ms"].as_f64().unwrap_or(0.0)
    });
    for (key, too_short) in [("min_gap_ms", true), ("max_gap_ms", false)] {
        let Some(limit) = want.get(key) else {
            continue;
        };
        let limit = limit.as_f64().ok_or(format!(
            "`{key}` must be a number of milliseconds, got {limit}"
        ))?;
        let gap = gap.ok_or(format!(
            "`{key}` on the first request has nothing to measure from"
        ))?;
        if (too_short && gap < limit) || (!too_short && gap > limit) {
            return Err(format!(
                "came {gap:.0} ms after the previous request ({key}: {limit})"
            ));
        }
    }
    Ok(())
}

/// The decoded query must hold exactly the names expected (any order); a name given
/// twice is expected as a list of its values.
fn check_query(want: Option<&Value>, pairs: &Value) -> Result<(), String> {
    let mut got: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for pair in pairs.as_array().into_iter().flatten() {
        let name = pair[0].as_str().unwrap_or_default().to_string();
        got.entry(name).or_default().push(pair[1].clone());
    }
    let empty = Map::new();
    let want = match want {
        None => &empty,
        Some(Value::Object(map)) => map,
        Some(other) => return Err(format!("`query` is a mapping, not {other}")),
    };
    for name in got.keys() {
        if !want.contains_key(name) {
            return Err(format!(
                "unexpected query parameter `{name}` ({:?})",
                got[name]
            ));
        }
    }
    for (name, pattern) in want {
        let values = got.get(name);
        let actual = match values.map(Vec::as_slice) {
            None => None,
            Some([one]) if !pattern.is_array() => Some(one.clone()),
            Some(many) => Some(Value::Array(many.to_vec())),
        };
        let pattern = as_text(pattern);
        check(&pattern, actual.as_ref(), &format!("query {name}"))?;
    }
    Ok(())
}

/// Query values are text: numbers and booleans in a pattern stand for their JSON text.
fn as_text(pattern: &Value) -> Value {
    match pattern {
        Value::Number(_) | Value::Bool(_) => Value::String(pattern.to_string()),
        Value::Array(items) => Value::Array(items.iter().map(as_text).collect()),
        other => other.clone(),
    }
}
