//! The peers of the Go row of `cargo xtask bench`: the types oapi-codegen generates from
//! the v3 OpenAPI description, and what ogen makes of it. Both generators are pinned as
//! tools of the module `tests/go/peers` (its `go.sum` committed). Neither reads OpenAPI
//! 3.1's type arrays (`type: [string, "null"]`), so each is also given a 3.0 rendering of
//! the description ([`down_convert`]), written under `target/go-peers`; oapi-codegen's
//! types from it go to `tests/go/peers/oapiv3` (ignored by git), where the benchmark
//! reads them.

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value};

/// The module holding the peers' pins and the benchmark.
pub const MODULE: &str = "tests/go/peers";
const SPEC: &str = "generated/openapi/v3.yaml";
const OUT: &str = "target/go-peers";

/// What the generators made of the description: ogen's failures, as their first line.
pub struct Peers {
    pub ogen_31: String,
    pub ogen_30: String,
}

/// Writes the 3.0 rendering, generates oapi-codegen's types from it (a failure fails the
/// bench), and runs ogen on the description as it is and on the rendering (not with
/// `quick`, which only checks that the benchmark runs: ogen's build is the slowest step).
pub fn generate(root: &Path, quick: bool) -> Result<Peers, String> {
    let text = std::fs::read_to_string(root.join(SPEC))
        .map_err(|e| format!("bench: go peers: cannot read {SPEC}: {e}"))?;
    let options = serde_saphyr::options! { strict_booleans: true };
    let mut doc: Value = serde_saphyr::from_str_with_options(&text, options)
        .map_err(|e| format!("bench: go peers: {SPEC}: {e}"))?;
    down_convert(&mut doc);
    let out = root.join(OUT);
    std::fs::create_dir_all(&out).map_err(|e| format!("bench: go peers: {OUT}: {e}"))?;
    let spec_30 = out.join("v3-openapi-3.0.json");
    std::fs::write(&spec_30, doc.to_string())
        .map_err(|e| format!("bench: go peers: cannot write {}: {e}", spec_30.display()))?;
    let spec_30 = spec_30.to_string_lossy().into_owned();
    let module = root.join(MODULE);
    std::fs::create_dir_all(module.join("oapiv3"))
        .map_err(|e| format!("bench: go peers: {MODULE}/oapiv3: {e}"))?;
    let oapi = tool(
        &module,
        &[
            "oapi-codegen",
            "-generate",
            "types",
            "-package",
            "oapiv3",
            "-o",
            "oapiv3/types.go",
            &spec_30,
        ],
    )?;
    if let Err(why) = oapi {
        return Err(format!("bench: go peers: oapi-codegen failed: {why}"));
    }
    let ogen = |spec: &str, target: &str| -> Result<String, String> {
        let config = out.join("ogen.yml");
        std::fs::write(&config, "generator:\n  ignore_not_implemented: [\"all\"]\n")
            .map_err(|e| format!("bench: go peers: {e}"))?;
        let target = out.join(target).to_string_lossy().into_owned();
        let config = config.to_string_lossy().into_owned();
        let run = tool(
            &module,
            &[
                "ogen",
                "--config",
                &config,
                "--target",
                &target,
                "--package",
                "ogenv3",
                "--clean",
                spec,
            ],
        )?;
        Ok(match run {
            Err(why) => format!("refused it: {why}"),
            Ok(()) => {
                let schemas =
                    std::fs::read_to_string(Path::new(&target).join("oas_schemas_gen.go"))
                        .unwrap_or_default();
                if schemas.contains("type Inspection struct") {
                    "generated an Inspection type (not benchmarked yet)".to_string()
                } else {
                    "generated no Inspection type: it skips a schema holding a union of \
                     objects (\"complex anyOf\" is not implemented)"
                        .to_string()
                }
            }
        })
    };
    let spec_31 = root.join(SPEC).to_string_lossy().into_owned();
    if quick {
        let skipped = "not tried with --quick".to_string();
        return Ok(Peers {
            ogen_31: skipped.clone(),
            ogen_30: skipped,
        });
    }
    Ok(Peers {
        ogen_31: ogen(&spec_31, "ogen-3.1")?,
        ogen_30: ogen(&spec_30, "ogen-3.0")?,
    })
}

/// Runs `go tool <args>` in the peers' module: Ok(Err(first line of what it said)) when
/// the tool failed.
fn tool(module: &Path, args: &[&str]) -> Result<Result<(), String>, String> {
    println!("==> bench: go peers: go tool {}", args.join(" "));
    let out = Command::new("go")
        .arg("tool")
        .args(args)
        .envs(super::go::ENV.iter().copied())
        .current_dir(module)
        .output()
        .map_err(|e| format!("bench: go peers: cannot run go: {e}"))?;
    if out.status.success() {
        return Ok(Ok(()));
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let line = said
        .lines()
        .map(str::trim)
        .find(|l| {
            l.contains("not supported") || l.contains("unhandled") || l.starts_with("- yaml:")
        })
        .or_else(|| said.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("no message");
    Ok(Err(line.trim_start_matches("- ").to_string()))
}

/// Renders an OpenAPI 3.1 description as 3.0, for generators that read only 3.0: a type
/// array becomes its one type, or a `oneOf` of its types, with `nullable` for `"null"`;
/// `const` becomes a one-value `enum`; `webhooks` (3.1 only) is left out.
pub fn down_convert(doc: &mut Value) {
    if let Some(top) = doc.as_object_mut() {
        top.insert("openapi".into(), Value::from("3.0.3"));
        top.remove("webhooks");
    }
    walk(doc);
}

fn walk(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for child in m.values_mut() {
                walk(child);
            }
            schema(m);
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

fn schema(m: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = m.get("type").cloned() {
        let nullable = types.iter().any(|t| t == "null");
        let rest: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        m.remove("type");
        match rest.as_slice() {
            [one] => {
                m.insert("type".into(), one.clone());
            }
            many => {
                let one_of = many
                    .iter()
                    .map(|t| serde_json::json!({ "type": t }))
                    .collect();
                m.insert("oneOf".into(), Value::Array(one_of));
            }
        }
        if nullable {
            m.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(value) = m.remove("const") {
        m.insert("enum".into(), Value::Array(vec![value]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_31_description_is_rendered_as_30() {
        let mut doc = serde_json::json!({
            "openapi": "3.1.0",
            "webhooks": {},
            "components": {"schemas": {
                "A": {"type": ["string", "null"]},
                "B": {"type": ["string", "integer"], "description": "x"},
                "C": {"properties": {"kind": {"const": "c"}}},
            }},
        });
        down_convert(&mut doc);
        assert_eq!(
            doc,
            serde_json::json!({
                "openapi": "3.0.3",
                "components": {"schemas": {
                    "A": {"type": "string", "nullable": true},
                    "B": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "x"},
                    "C": {"properties": {"kind": {"enum": ["c"]}}},
                }},
            })
        );
    }
}
