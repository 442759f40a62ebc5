//! `progenitor-side SPEC OUT`: what a progenitor user's build.rs does, once, as a process:
//! read the OpenAPI document, generate the client's tokens, format them with prettyplease
//! and write the file. `cargo xtask bench` times whole runs of this beside whole runs of
//! `cargo xtask codegen --check`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec, out] = args.as_slice() else {
        eprintln!("usage: progenitor-side SPEC.yaml OUT.rs");
        return ExitCode::from(2);
    };
    match generate(spec, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("progenitor-side: {e}");
            ExitCode::FAILURE
        }
    }
}

fn generate(spec: &str, out: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    // Through a JSON tree: openapiv3's untagged and flattened schema types need serde's
    // buffered content, which the YAML reader does not feed them directly.
    let tree: serde_json::Value =
        serde_saphyr::from_str(&text).map_err(|e| format!("{spec}: {e}"))?;
    let api: openapiv3::OpenAPI =
        serde_json::from_value(to_openapi_3_0(tree)).map_err(|e| format!("{spec}: {e}"))?;
    let mut generator = progenitor::Generator::default();
    let tokens = generator
        .generate_tokens(&api)
        .map_err(|e| format!("progenitor: {e}"))?;
    let file = syn::parse2::<syn::File>(tokens).map_err(|e| format!("syn: {e}"))?;
    let code = prettyplease::unparse(&file);
    std::fs::write(out, code).map_err(|e| format!("{out}: {e}"))
}

/// The export is OpenAPI 3.1; progenitor reads 3.0. The same schemas in 3.0's words:
/// `type: [T, "null"]` as `type: T, nullable: true`, `anyOf: [S, {type: null}]` as
/// `allOf: [S], nullable: true`, `const: v` as `enum: [v]`; and without what typify
/// cannot read.
fn to_openapi_3_0(mut value: serde_json::Value) -> serde_json::Value {
    use serde_json::{Value, json};
    match &mut value {
        Value::Object(map) => {
            if map.get("openapi").is_some_and(Value::is_string) {
                map.insert("openapi".into(), json!("3.0.3"));
            }
            map.remove("jsonSchemaDialect");
            if let Some(Value::Array(types)) = map.get("type") {
                let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                let nullable = rest.len() < types.len();
                if let [single] = rest.as_slice() {
                    map.insert("type".into(), single.clone());
                } else {
                    map.remove("type");
                }
                if nullable {
                    map.insert("nullable".into(), json!(true));
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(members)) = map.get(key) {
                    let rest: Vec<Value> =
                        members.iter().filter(|m| m.get("type") != Some(&json!("null"))).cloned().collect();
                    if rest.len() < members.len() {
                        map.insert("nullable".into(), json!(true));
                        if rest.len() == 1 {
                            map.remove(key);
                            map.insert("allOf".into(), Value::Array(rest));
                        } else {
                            map.insert(key.into(), Value::Array(rest));
                        }
                    }
                }
            }
            // typify cannot read `not` (an open union's unknown member excludes the known
            // tags with it): dropped, the member then admits any object.
            map.remove("not");
            // progenitor reads one success type per operation: the first 2xx answer kept.
            if let Some(Value::Object(responses)) = map.get_mut("responses") {
                let mut seen = false;
                responses.retain(|status, _| {
                    let success = status.starts_with('2');
                    let keep = !(success && seen);
                    seen |= success;
                    keep
                });
            }
            if let Some(constant) = map.remove("const") {
                map.insert("enum".into(), json!([constant]));
            }
            for (_, v) in map.iter_mut() {
                *v = to_openapi_3_0(std::mem::take(v));
            }
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                *v = to_openapi_3_0(std::mem::take(v));
            }
        }
        _ => {}
    }
    value
}
