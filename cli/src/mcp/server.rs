//! The protocol: the official Rust MCP SDK (`rmcp`, pinned; its handler types changed in
//! each major version, so only this file names them), serving the tools of `invoke.rs`
//! over stdio or, with `--listen`, the streamable HTTP transport on loopback. The tool
//! list is built from the generated table as JSON and read into the SDK's types, so a
//! field the SDK adds does not touch the table.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, json};

use super::invoke::Server;
use crate::exit::{Class, Failure};

/// The handler the SDK drives.
#[derive(Clone)]
struct Handler(Arc<Server>);

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let name = format!("inspection-{}", self.0.served.interface);
        let info =
            serde_json::from_value(json!({"name": name, "version": env!("CARGO_PKG_VERSION")}))
                .unwrap_or_else(|_| rmcp::model::Implementation::from_build_env());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(info)
            .with_instructions(format!(
                "The {} interface of the equipment-inspection service. Lists answer one page with `next_cursor`; \
                 every argument is checked against the interface's documented limits before anything is sent.",
                self.0.served.interface
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        serde_json::from_value(json!({"tools": self.0.served.listed()}))
            .map_err(|e| ErrorData::internal_error(format!("the tool list: {e}"), None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // Each record's document is a resource of its own: the templates name them.
        serde_json::from_value(json!({"resources": []}))
            .map_err(|e| ErrorData::internal_error(format!("the resource list: {e}"), None))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        serde_json::from_value(json!({"resourceTemplates": self.0.document_templates()}))
            .map_err(|e| ErrorData::internal_error(format!("the resource templates: {e}"), None))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        use base64::Engine;
        let bytes = self
            .0
            .document(&request.uri)
            .await
            .map_err(|message| ErrorData::invalid_params(message, None))?;
        let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
        let result: ReadResourceResult = serde_json::from_value(json!({
            "contents": [{"uri": request.uri, "mimeType": "application/pdf", "blob": blob}],
        }))
        .map_err(|e| ErrorData::internal_error(format!("the document: {e}"), None))?;
        Ok(result.into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let arguments: Map<String, serde_json::Value> = arguments.into_iter().collect();
        let result = match self.0.call(&request.name, arguments).await {
            Ok(answer) => CallToolResult::structured(answer),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(result.into())
    }
}

/// Serves until the client goes away (stdio) or the process is stopped (HTTP).
pub async fn serve(
    server: Server,
    listen: Option<SocketAddr>,
    allow_origins: Vec<String>,
    token: Option<String>,
) -> Result<(), Failure> {
    let handler = Handler(Arc::new(server));
    match listen {
        None => {
            let running = handler.serve(rmcp::transport::stdio()).await.map_err(|e| {
                Failure::new(
                    Class::Failure,
                    format!("the MCP session did not start: {e}"),
                )
            })?;
            running.waiting().await.map_err(|e| {
                Failure::new(Class::Failure, format!("the MCP session failed: {e}"))
            })?;
            Ok(())
        }
        Some(addr) => http(handler, addr, allow_origins, token).await,
    }
}

async fn http(
    handler: Handler,
    addr: SocketAddr,
    allow_origins: Vec<String>,
    token: Option<String>,
) -> Result<(), Failure> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::usage(format!("--listen {addr}: {e}")))?;
    eprintln!("inspection: MCP over streamable HTTP at http://{addr}/mcp");
    // Every request passes the origin check first, whatever its method (POST, the GET
    // stream, DELETE).
    let port = listener.local_addr().map_or(addr.port(), |a| a.port());
    let origins = super::origin::Origins::loopback(port).with_allowed(allow_origins);
    // Innermost: the body is read (bounded) and checked only once the request is let in.
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(super::body::check));
    if let Some(token) = token {
        let token = super::bearer::Token::new(&token);
        router = router.layer(axum::middleware::from_fn(move |request, next| {
            super::bearer::check(token.clone(), request, next)
        }));
    }
    // Outermost: a foreign page is refused, and an allowed page's preflight answered,
    // before the token is asked for (a browser's preflight carries none).
    let router = router.layer(axum::middleware::from_fn(move |request, next| {
        super::origin::check(origins.clone(), request, next)
    }));
    axum::serve(listener, router)
        .await
        .map_err(|e| Failure::new(Class::Failure, format!("the MCP server stopped: {e}")))
}
