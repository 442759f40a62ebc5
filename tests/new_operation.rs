//! An operation added to the spec, and nothing else edited: every backend writes it (the
//! Rust, TypeScript and Python clients, the OpenAPI export, the call adapter, the
//! command-line tool's subcommand and its MCP tool), and a sandbox started on that spec's IR routes it, behind the interface's
//! credentials, the role the spec asks for and the strict checks of its query, answering
//! 501 until someone writes its behaviour.

use std::path::{Path, PathBuf};

use codegen::output::OutputFile;
use sandbox::{DEMO_KEY, LEGACY_MANAGER, LEGACY_USER, Options, Sandbox};

/// An operation added to one spec file.
struct Added {
    file: &'static str,
    name: &'static str,
    path: &'static str,
    /// The path parameter and its type.
    param: (&'static str, &'static str),
    answer: &'static str,
    /// Spec lines the operation adds after its responses.
    extra: &'static str,
}

/// One per interface.
const ADDED: [Added; 2] = [
    Added {
        file: "v3.yaml",
        name: "get_unit_notes",
        path: "/units/{unit_id}/notes",
        param: ("unit_id", "UnitId"),
        answer: "Unit",
        extra: "",
    },
    Added {
        file: "legacy.yaml",
        name: "get_asset_notes",
        path: "/api/assets/{id}/notes",
        param: ("id", "AssetId"),
        answer: "Asset",
        extra: "    manager_only: true\n",
    },
];

impl Added {
    /// Its spec text, with a query parameter of a limit.
    fn yaml(&self) -> String {
        let Added {
            name,
            path,
            param: (param, ty),
            answer,
            extra,
            ..
        } = self;
        format!(
            "  {name}:
    doc: An operation only this test has.
    method: GET
    path: {path}
    path_params:
      {param}:
        type: {ty}
        doc: Whose notes.
        required: true
    query:
      limit:
        type: int32
        doc: At most this many notes.
        max: 10
    responses:
      - status: 200
        body: {answer}
        doc: The notes.
{extra}"
        )
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A copy of `spec/` with the operations of [`ADDED`] as the first of each file's.
fn spec_with_added_operations() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("new-operation-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(root().join("spec")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if let Some(added) = ADDED.iter().find(|a| a.file == name) {
            let at = text.find("\noperations:\n").expect("an operations section") + 13;
            text.insert_str(at, &added.yaml());
        }
        std::fs::write(dir.join(&name), text).unwrap();
    }
    dir
}

fn file<'a>(files: &'a [OutputFile], path: &str) -> &'a str {
    let found = files.iter().find(|f| f.path == path);
    &found
        .unwrap_or_else(|| panic!("{path} was not written"))
        .contents
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_added_to_the_spec_is_in_every_client_and_routed_by_the_sandbox() {
    let dir = spec_with_added_operations();
    let api = codegen::load_dir(&root(), &dir).unwrap_or_else(|d| panic!("{d}"));
    let files = codegen::generate(&api).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let before =
        codegen::generate(&codegen::load_dir(&root(), &root().join("spec")).unwrap()).unwrap();

    // Each client's operations file, and the export, gain the operation (and the files
    // the spec did not change are as before).
    for (path, v3, legacy) in [
        (
            "generated/rust/src/{}/client.rs",
            "pub fn get_unit_notes(",
            "pub fn get_asset_notes(",
        ),
        (
            "generated/typescript/src/{}/client.ts",
            "async getUnitNotes(",
            "async getAssetNotes(",
        ),
        (
            "generated/python/src/inspection_client/{}/client.py",
            "def get_unit_notes(",
            "def get_asset_notes(",
        ),
        (
            "generated/openapi/{}.yaml",
            "operationId: \"get_unit_notes\"",
            "operationId: \"get_asset_notes\"",
        ),
        // The call adapter, so the conformance scenarios and the tool can call it.
        (
            "generated/cli/src/calls/{}.rs",
            "\"get_unit_notes\" => {",
            "\"get_asset_notes\" => {",
        ),
        // The tool's subcommand, with its flags.
        (
            "generated/cli/src/{}.rs",
            "command: \"get-unit-notes\"",
            "command: \"get-asset-notes\"",
        ),
        // The MCP server's tool, with its input schema.
        (
            "generated/cli/src/{}.rs",
            "name: \"get_unit_notes\",\n        operation: \"get_unit_notes\"",
            "name: \"get_asset_notes\",\n        operation: \"get_asset_notes\"",
        ),
    ] {
        for (interface, name) in [("v3", v3), ("legacy", legacy)] {
            let path = path.replace("{}", interface);
            assert!(file(&files, &path).contains(name), "{path}: no `{name}`");
            assert!(
                !file(&before, &path).contains(name),
                "{path}: `{name}` before"
            );
        }
    }

    let ir = sandbox::ir::parse(&codegen::ir_json(&api)).unwrap();
    let sandbox = Sandbox::start(Options {
        ir: Some(ir.into()),
        ..Options::default()
    })
    .await
    .unwrap();
    let http = reqwest::Client::new();
    let base = sandbox.legacy_base_url();
    let token = login(&http, &base, LEGACY_MANAGER).await;
    let plain = login(&http, &base, LEGACY_USER).await;
    let v3 = |query: &str, keys: bool| {
        let request = http.get(format!("{base}/v3/units/u-1/notes{query}"));
        match keys {
            true => request
                .header("api-key-id", DEMO_KEY.0)
                .header("api-key-secret", DEMO_KEY.1),
            false => request,
        }
    };
    let legacy = |query: &str, token: Option<&str>| {
        let request = http
            .get(format!("{base}/api/assets/a-1/notes{query}"))
            .header("accept", "application/json; version=1");
        match token {
            Some(token) => request.header("authorization", format!("Token {token}")),
            None => request,
        }
    };
    for (name, call) in [
        (
            "get_unit_notes",
            [v3("", true), v3("?limit=11", true), v3("", false)],
        ),
        (
            "get_asset_notes",
            [
                legacy("", Some(&token)),
                legacy("?limit=11", Some(&token)),
                legacy("", None),
            ],
        ),
    ] {
        let [served, too_many, anonymous] = call;
        let answer = text(served).await;
        assert_eq!(answer.0, 501, "{name}: {answer:?}");
        assert!(answer.1.contains(&format!("`{name}`")), "{answer:?}");
        // The query is held to the spec's limit before the missing behaviour shows.
        let answer = text(too_many).await;
        assert_eq!(answer.0, 400, "{name}: {answer:?}");
        assert!(answer.1.contains("limit"), "{answer:?}");
        // And the interface's credentials are asked for.
        assert_eq!(text(anonymous).await.0, 401, "{name}");
    }
    // The spec marks the legacy one manager-only: a plain user is refused before the rest.
    let answer = text(legacy("?limit=11", Some(&plain))).await;
    assert_eq!(answer.0, 403, "{answer:?}");
    assert!(answer.1.contains("manager role"), "{answer:?}");
    // The operations the sandbox implements are served as ever.
    let units = http
        .get(format!("{base}/v3/units"))
        .header("api-key-id", DEMO_KEY.0)
        .header("api-key-secret", DEMO_KEY.1);
    assert_eq!(text(units).await.0, 200);
}

/// Logs `who` in to the legacy interface at `base`: its token.
async fn login(http: &reqwest::Client, base: &str, who: (&str, &str)) -> String {
    let answer = http
        .post(format!("{base}/api/users/authenticate"))
        .header("accept", "application/json; version=1")
        .header("content-type", "application/json")
        .body(serde_json::json!({"user": {"username": who.0, "password": who.1}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let answer: serde_json::Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    answer["auth_token"].as_str().unwrap().to_string()
}

async fn text(request: reqwest::RequestBuilder) -> (u16, String) {
    let answer = request.send().await.unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}
