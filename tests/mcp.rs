//! `inspection mcp v3` driven by a real MCP client (the official SDK's, over stdio, and raw
//! JSON-RPC over the streamable HTTP transport) against the sandbox: read-only tools by
//! default with MCP's annotations, writes offered only when allowed, lists answered a page
//! at a time with a cursor and within the answer budget, large fields left out unless
//! asked for, a bad argument refused by the generated validators before anything is sent,
//! a service error passed on with its status, the dynamic mode's three tools, and no
//! credential in any answer or on standard error.

#[path = "support/export_folder.rs"]
mod export_folder;
#[path = "support/cli_process.rs"]
mod tool;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use export_folder::{control, sandbox, v3_env};

/// A client session with `inspection mcp v3 FLAGS` over stdio.
async fn session(sandbox: &sandbox::Sandbox, flags: &[&str]) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(tool::binary());
    cmd.args(["mcp", "v3"])
        .args(flags)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("INSPECTION_CONFIG_DIR", "/nonexistent/inspection-tests")
        .envs(v3_env(sandbox))
        .stderr(std::process::Stdio::piped());
    ().serve(TokioChildProcess::new(cmd).expect("the server starts"))
        .await
        .expect("the session starts")
}

/// The tools listed, as JSON.
async fn tools(client: &RunningService<RoleClient, ()>) -> Vec<Value> {
    let listed = client.list_all_tools().await.expect("tools/list answers");
    listed
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect()
}

/// A tool's answer (`Ok`) or tool error's text (`Err`).
async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    args: Value,
) -> Result<Value, String> {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .expect("tools/call answers");
    let result = serde_json::to_value(result).unwrap();
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !text.contains("demo-secret"),
        "a credential in an answer: {text}"
    );
    if result["isError"] == Value::Bool(true) {
        Err(text)
    } else {
        Ok(result
            .get("structuredContent")
            .cloned()
            .unwrap_or_else(|| serde_json::from_str(&text).unwrap()))
    }
}

async fn requests(sandbox: &sandbox::Sandbox) -> u64 {
    control(sandbox, "GET", "/_sandbox/stats").await["requests"]
        .as_u64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_tools_by_default_and_writes_only_when_allowed() {
    let sandbox = sandbox("").await;
    let client = session(&sandbox, &[]).await;
    let listed = tools(&client).await;
    let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"list_inspections") && names.contains(&"get_unit"),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("create_")
            || n.starts_with("delete_")
            || n.starts_with("update_")),
        "{names:?}"
    );
    for t in &listed {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["name"].as_str().unwrap().len() <= 64);
    }
    let size = serde_json::to_string(&listed).unwrap().len();
    assert!(size < 64_000, "the tool list is {size} bytes");
    let refused = call(&client, "create_task", json!({"body": {}}))
        .await
        .unwrap_err();
    assert!(
        refused.contains("--allow create_task") && refused.contains("--allow-writes"),
        "{refused}"
    );
    client.cancel().await.unwrap();

    let client = session(&sandbox, &["--allow", "create_task,delete_task"]).await;
    let listed = tools(&client).await;
    let find = |n: &str| listed.iter().find(|t| t["name"] == n).cloned().unwrap();
    let (create, delete) = (find("create_task"), find("delete_task"));
    assert_eq!(
        (
            &create["annotations"]["readOnlyHint"],
            &create["annotations"]["idempotentHint"]
        ),
        (&json!(false), &json!(false))
    );
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert!(
        !listed.iter().any(|t| t["name"] == "update_task"),
        "only the operations allowed"
    );
    assert_eq!(
        create["inputSchema"]["$defs"]["TaskRequest"]["properties"]["name"]["maxLength"],
        255
    );

    // A body over a documented limit is refused by the generated validators: nothing sent.
    let before = requests(&sandbox).await;
    let body = json!({"name": "n".repeat(300), "reference_number": "EX-0117", "due_by": "2026-12-01", "assignee_username": "sam.lee@example.com"});
    let refused = call(&client, "create_task", json!({"body": body}))
        .await
        .unwrap_err();
    assert!(
        refused.contains("name: must be at most 255 characters, got 300")
            && refused.contains("nothing was sent"),
        "{refused}"
    );
    let wrong = call(&client, "create_task", json!({"body": {"name": "x"}}))
        .await
        .unwrap_err();
    assert!(wrong.contains("nothing was sent"), "{wrong}");
    assert_eq!(requests(&sandbox).await, before, "nothing is sent");
    let made = call(&client, "create_task", json!({"body": {"name": "From an assistant", "reference_number": "EX-0117", "due_by": "2026-12-01", "assignee_username": "sam.lee@example.com"}})).await.unwrap();
    assert_eq!(made["name"], "From an assistant");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_answer_a_page_with_a_cursor_within_the_budget() {
    let sandbox = sandbox("--inspections 150").await;
    let client = session(&sandbox, &[]).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut args = json!({"max_items": 40});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = call(&client, "list_inspections", args).await.unwrap();
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 40 && !items.is_empty());
        assert!(serde_json::to_string(&page).unwrap().len() <= 60_000);
        assert!(
            items.iter().all(|i| i.get("results").is_none()),
            "large fields are left out"
        );
        assert!(
            page["left_out"]
                .as_array()
                .is_some_and(|l| l.contains(&json!("results"))),
            "the answer says what it left out: {}",
            page["left_out"]
        );
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_string()));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        (seen.len(), unique.len()),
        (153, 153),
        "every inspection once, page after page"
    );

    let picked = call(
        &client,
        "list_inspections",
        json!({"max_items": 2, "fields": ["id", "unit.reference_number", "results"]}),
    )
    .await
    .unwrap();
    let first = &picked["items"][0];
    assert!(
        first["results"].is_array() && first["unit"]["reference_number"].is_string(),
        "{first}"
    );
    assert_eq!(
        first.as_object().unwrap().len(),
        3,
        "only the fields asked for: {first}"
    );

    // An inspection's PDF is a resource the answer links, read whole as a blob.
    let id = first_id(&client).await;
    let inspection = call(&client, "get_inspection", json!({"inspection_id": id}))
        .await
        .unwrap();
    let uri = inspection["pdf_resource"].as_str().unwrap().to_string();
    assert_eq!(uri, format!("inspection://v3/get_inspection/{id}"));
    let templates = client.list_all_resource_templates().await.unwrap();
    let templates = serde_json::to_value(templates).unwrap();
    assert_eq!(
        templates[0]["uriTemplate"], "inspection://v3/get_inspection/{inspection_id}",
        "{templates}"
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    let read = serde_json::to_value(read).unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "application/pdf");
    assert!(
        read["contents"][0]["blob"]
            .as_str()
            .unwrap()
            .starts_with("JVBERi"),
        "base64 of %PDF"
    );
    let nowhere = client
        .read_resource(ReadResourceRequestParams::new("inspection://v3/get_unit/x"))
        .await;
    assert!(nowhere.is_err(), "only documents are resources");

    let missing = call(&client, "get_unit", json!({"unit_id": "unt_nope"}))
        .await
        .unwrap_err();
    assert!(missing.contains("404"), "{missing}");
    let unknown = call(
        &client,
        "get_unit",
        json!({"unit_id": "unt_001", "colour": "red"}),
    )
    .await
    .unwrap_err();
    assert!(
        unknown.contains("`colour` is not an argument of `get_unit`"),
        "{unknown}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dynamic_mode_reaches_every_operation_through_three_tools() {
    let sandbox = sandbox("").await;
    let client = session(&sandbox, &["--dynamic"]).await;
    let names: Vec<String> = tools(&client)
        .await
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["list_operations", "describe_operation", "call_operation"]
    );
    let ops = call(&client, "list_operations", json!({})).await.unwrap();
    assert!(
        ops.as_array()
            .unwrap()
            .iter()
            .any(|o| o["name"] == "list_units")
    );
    let described = call(&client, "describe_operation", json!({"name": "list_units"}))
        .await
        .unwrap();
    assert_eq!(
        described["inputSchema"]["properties"]["max_items"]["type"],
        "integer"
    );
    let units = call(
        &client,
        "call_operation",
        json!({"name": "list_units", "arguments": {"max_items": 1}}),
    )
    .await
    .unwrap();
    assert_eq!(units["items"].as_array().unwrap().len(), 1);
    let refused = call(
        &client,
        "call_operation",
        json!({"name": "delete_task", "arguments": {"task_id": "t"}}),
    )
    .await
    .unwrap_err();
    assert!(refused.contains("--allow delete_task"), "{refused}");
    client.cancel().await.unwrap();
}

/// `inspection mcp v3 --listen` on a free loopback port with `flags`, once it accepts
/// connections: the process, its port and its URL.
async fn listening(
    sandbox: &sandbox::Sandbox,
    flags: &[&str],
) -> (std::process::Child, u16, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let server = std::process::Command::new(tool::binary())
        .args(["mcp", "v3", "--listen", &addr])
        .args(flags)
        .env_clear()
        .env("INSPECTION_CONFIG_DIR", "/nonexistent/inspection-tests")
        .envs(v3_env(sandbox))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    (server, port, format!("http://{addr}/mcp"))
}

/// An `initialize` request to `url`, with `headers`.
async fn initialize(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let mut req = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(init.to_string());
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send().await.unwrap()
}

/// A header of an answer, in lower case ("" when absent).
fn header_of(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_ascii_lowercase())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_streamable_http_transport_serves_on_loopback_only() {
    let sandbox = sandbox("").await;
    let (mut server, _, url) = listening(&sandbox, &[]).await;
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut req = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        req.send()
    };
    let answer = initialize(&url, &[]).await;
    let session = answer
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    assert!(rpc(&answer.text().await.unwrap())["result"]["serverInfo"]["name"] == "inspection-v3");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(note, session.clone()).await.unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_units", "arguments": {"max_items": 2}}});
    let text = post(list, session).await.unwrap().text().await.unwrap();
    let result = rpc(&text);
    assert!(!text.contains("demo-secret"));
    let items: Value =
        serde_json::from_str(result["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(items["items"].as_array().unwrap().len(), 2, "{text}");
    server.kill().unwrap();
    server.wait().unwrap();

    let ran = tool::run(
        &[
            "mcp".into(),
            "v3".into(),
            "--listen".into(),
            "0.0.0.0:0".into(),
        ],
        &v3_env(&sandbox),
        None,
    )
    .await;
    tool::assert_failed(&ran, 2, "a loopback address only");
}

/// A page elsewhere cannot call the server (DNS rebinding): an Origin other than its own
/// loopback origin is refused on every method, `null` too; its own is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused_on_every_method() {
    let sandbox = sandbox("").await;
    let (mut server, port, url) = listening(&sandbox, &[]).await;
    let http = reqwest::Client::new();
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        for method in [
            reqwest::Method::POST,
            reqwest::Method::GET,
            reqwest::Method::DELETE,
        ] {
            let refused = http
                .request(method.clone(), &url)
                .header("origin", origin)
                .header("accept", "application/json, text/event-stream")
                .send()
                .await
                .unwrap();
            assert_eq!(refused.status(), 403, "{method} from {origin}");
            let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
            assert_eq!(body["jsonrpc"], "2.0");
            assert_eq!(body["error"]["code"], -32000, "{body}");
        }
    }
    for own in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ] {
        let served = initialize(&url, &[("origin", &own)]).await;
        assert_eq!(served.status(), 200, "from {own}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

/// A body that is not JSON is a JSON-RPC parse error with 400, a batch is refused with 400
/// under protocol versions without batches, and a body over the limit is a 413, chunked
/// or not, counted as it arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_are_read_bounded_and_checked() {
    let sandbox = sandbox("").await;
    let (mut server, _, url) = listening(&sandbox, &[]).await;
    let http = reqwest::Client::new();
    let send = |body: reqwest::Body, version: Option<&'static str>| {
        let mut req = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body);
        if let Some(v) = version {
            req = req.header("mcp-protocol-version", v);
        }
        req.send()
    };
    let broken = send("{\"jsonrpc\": \"2.0\", \"id\": 1,".into(), None)
        .await
        .unwrap();
    assert_eq!(broken.status(), 400);
    let body: Value = serde_json::from_str(&broken.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], -32700, "{body}");
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]).to_string();
    let refused = send(batch.into(), Some("2025-06-18")).await.unwrap();
    assert_eq!(refused.status(), 400);
    assert!(refused.text().await.unwrap().contains("batch"));
    let big = vec![b' '; 5 << 20];
    let too_large = send(big.clone().into(), None).await.unwrap();
    assert_eq!(too_large.status(), 413);
    // The same, chunked: no Content-Length to refuse it by (written by hand on a socket).
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let mut tcp = tokio::net::TcpStream::connect(&host).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    for chunk in big.chunks(64 << 10) {
        let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
        framed.extend_from_slice(chunk);
        framed.extend_from_slice(b"\r\n");
        if tcp.write_all(&framed).await.is_err() {
            break; // the server answered and closed early
        }
    }
    let _ = tcp.write_all(b"0\r\n\r\n").await;
    let mut answer = vec![0; 64];
    let n = tcp.read(&mut answer).await.unwrap();
    let status = String::from_utf8_lossy(&answer[..n]).to_string();
    assert!(status.starts_with("HTTP/1.1 413"), "{status}");
    // A well-formed request still goes through.
    assert_eq!(initialize(&url, &[]).await.status(), 200);
    server.kill().unwrap();
    server.wait().unwrap();
}

/// A page named by --allow-origin may call the server, with the CORS answers a browser
/// needs; the flag's mistakes are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_page_gets_the_cors_answers() {
    let sandbox = sandbox("").await;
    let (mut server, _, url) =
        listening(&sandbox, &["--allow-origin", "https://App.example/"]).await;
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, mcp-session-id",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert_eq!(
        header_of(&preflight, "access-control-allow-origin"),
        "https://app.example"
    );
    assert!(header_of(&preflight, "access-control-allow-headers").contains("mcp-session-id"));
    assert!(header_of(&preflight, "access-control-allow-headers").contains("authorization"));
    let served = initialize(&url, &[("origin", "https://app.example")]).await;
    assert_eq!(served.status(), 200);
    assert_eq!(
        header_of(&served, "access-control-allow-origin"),
        "https://app.example"
    );
    assert_eq!(
        header_of(&served, "access-control-expose-headers"),
        "mcp-session-id"
    );
    let refused = initialize(&url, &[("origin", "https://other.example")]).await;
    assert_eq!(refused.status(), 403);
    server.kill().unwrap();
    server.wait().unwrap();
    for (flags, says) in [
        (
            &["--allow-origin", "https://app.example"][..],
            "only with --listen",
        ),
        (
            &[
                "--listen",
                "127.0.0.1:0",
                "--allow-origin",
                "https://app.example/mcp",
            ][..],
            "without a path",
        ),
    ] {
        let mut args: Vec<String> = vec!["mcp".into(), "v3".into()];
        args.extend(flags.iter().map(|f| f.to_string()));
        let ran = tool::run(&args, &v3_env(&sandbox), None).await;
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
    }
}

/// With --token-file, every request carries the token, compared whole; a token file
/// others may read is refused, naming the file and not the token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_file_guards_every_request() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = sandbox("").await;
    let dir = std::env::temp_dir().join(format!("inspection-mcp-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token_file = dir.join("token");
    std::fs::write(&token_file, "s3cret-token-4711\n").unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let path = token_file.display().to_string();
    let (mut server, _, url) = listening(&sandbox, &["--token-file", &path]).await;
    let none = initialize(&url, &[]).await;
    assert_eq!(none.status(), 401);
    assert_eq!(header_of(&none, "www-authenticate"), "bearer");
    let wrong = initialize(&url, &[("authorization", "Bearer s3cret-token-4712")]).await;
    assert_eq!(wrong.status(), 401);
    assert!(!wrong.text().await.unwrap().contains("4711"));
    let right = initialize(&url, &[("authorization", "Bearer s3cret-token-4711")]).await;
    assert_eq!(right.status(), 200);
    server.kill().unwrap();
    server.wait().unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let args: Vec<String> = [
        "mcp",
        "v3",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        &path,
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let ran = tool::run(&args, &v3_env(&sandbox), None).await;
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("chmod 600") && !ran.stderr.contains("4711"),
        "{}",
        ran.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The id of the first inspection listed.
async fn first_id(client: &RunningService<RoleClient, ()>) -> String {
    let page = call(
        client,
        "list_inspections",
        json!({"max_items": 1, "fields": ["id"]}),
    )
    .await
    .unwrap();
    page["items"][0]["id"].as_str().unwrap().to_string()
}

/// The JSON-RPC message of an answer, plain JSON or server-sent events.
fn rpc(text: &str) -> Value {
    let data = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|d| !d.is_empty())
        .unwrap_or(text);
    serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_list_stays_under_its_documented_size() {
    let sandbox = sandbox("").await;
    let mut env = v3_env(&sandbox);
    env.extend(export_folder::legacy_env(&sandbox));
    for (interface, flags) in [
        ("v3", "--tools=read"),
        ("v3", "--allow-writes"),
        ("legacy", "--tools=read"),
        ("legacy", "--allow-writes"),
    ] {
        let args: Vec<String> = ["mcp", interface, "--describe", flags]
            .iter()
            .map(|a| a.to_string())
            .collect();
        let ran = tool::run(&args, &env, None).await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let described: Value = serde_json::from_slice(&ran.stdout).unwrap();
        let bytes = described["bytes"].as_u64().unwrap();
        assert!(bytes < 64_000, "{interface} {flags}: {bytes} bytes");
        let tools = described["tools"].as_array().unwrap();
        let writes = tools
            .iter()
            .filter(|t| t["annotations"]["readOnlyHint"] == false)
            .count();
        assert_eq!(writes > 0, flags == "--allow-writes", "{interface} {flags}");
        assert!(
            tools
                .iter()
                .all(|t| t["description"].as_str().unwrap().len() < 600),
            "short descriptions"
        );
    }
    let ran = tool::run(
        &[
            "mcp".into(),
            "v3".into(),
            "--describe".into(),
            "--tools".into(),
            "list_units,nope".into(),
        ],
        &env,
        None,
    )
    .await;
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("`nope` is no operation of v3"),
        "{}",
        ran.stderr
    );
}

/// The v3 tool list as a client sees it, every tool offered: a change to a tool's name,
/// description, schema or annotations shows in review.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_is_snapshotted() {
    let sandbox = sandbox("").await;
    let args: Vec<String> = ["mcp", "v3", "--describe", "--allow-writes"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let ran = tool::run(&args, &v3_env(&sandbox), None).await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let described: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let pretty = serde_json::to_string_pretty(&described["tools"]).unwrap();
    insta::assert_snapshot!("mcp_v3_tools", pretty);
}
