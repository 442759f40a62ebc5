//! `sandbox forward`: a small reverse proxy for trying the sandbox behind one (and for the
//! tests that do). It passes every request on to the sandbox, adding `Forwarded` and
//! `X-Forwarded-Host` / `X-Forwarded-Proto` with the address the client used, and passes
//! the answer back as it comes. It rewrites nothing: links are the sandbox's business
//! (`--public-url`, `--trust-forwarded-headers`).

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The largest request body passed on (the proxy holds it whole; answers stream).
pub(crate) const MAX_REQUEST: usize = 64 << 20;

/// Headers of one hop only (RFC 9110 7.6.1), never passed on.
pub(crate) const HOP_BY_HOP: &[HeaderName] = &[
    header::CONNECTION,
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
    header::UPGRADE,
    header::PROXY_AUTHORIZATION,
];

#[derive(Clone)]
struct Target {
    to: SocketAddr,
    http: reqwest::Client,
}

/// Serves on `listener`, passing everything on to the sandbox at `to`, until the task ends.
pub async fn serve(listener: tokio::net::TcpListener, to: SocketAddr) -> std::io::Result<()> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(std::io::Error::other)?;
    let app = axum::Router::new()
        .fallback(pass_on)
        .with_state(Target { to, http });
    axum::serve(listener, app).await
}

async fn pass_on(State(target): State<Target>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("http://{}{path}", target.to);
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            "forward: request body too large",
        )
            .into_response();
    };
    let mut out = target.http.request(parts.method, url).body(body);
    for (name, value) in &parts.headers {
        if !HOP_BY_HOP.contains(name) && name != header::HOST && name != header::CONTENT_LENGTH {
            out = out.header(name, value);
        }
    }
    out = out
        .header("x-forwarded-host", &host)
        .header("x-forwarded-proto", "http")
        .header("forwarded", format!("proto=http;host=\"{host}\""));
    let answer = match out.send().await {
        Ok(a) => a,
        Err(e) => {
            return (
                StatusCode::BAD_GATEWAY,
                format!("forward: {}", e.without_url()),
            )
                .into_response();
        }
    };
    let mut response = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(name) {
            response = response.header(name, value);
        }
    }
    let chunks = futures_util::stream::try_unfold(answer, |mut answer| async move {
        Ok::<_, reqwest::Error>(answer.chunk().await?.map(|chunk| (chunk, answer)))
    });
    response
        .body(Body::from_stream(chunks))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

/// `sandbox forward --to ADDR [--listen ADDR]`: the two addresses (listen default
/// 127.0.0.1:0, a free port).
pub fn parse_args(args: &[String]) -> Result<(SocketAddr, SocketAddr), String> {
    let mut to = None;
    let mut listen: SocketAddr = ([127, 0, 0, 1], 0).into();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut addr = |name: &str| -> Result<SocketAddr, String> {
            let v = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name}: `{v}` is not an address like 127.0.0.1:8080"))
        };
        match flag.as_str() {
            "--to" => to = Some(addr("--to")?),
            "--listen" => listen = addr("--listen")?,
            other => return Err(format!("forward: unknown flag `{other}`")),
        }
    }
    if !listen.ip().is_loopback() {
        return Err(format!(
            "forward: --listen {listen} is not a loopback address"
        ));
    }
    Ok((
        to.ok_or("forward: --to ADDR (the sandbox's address) is required")?,
        listen,
    ))
}
