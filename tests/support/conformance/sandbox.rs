//! Sandboxes for the scenarios, started in-process with the flags a file names, and the
//! `/_sandbox/` controls over HTTP (as a runner in another language uses them).

use serde_json::Value;

/// A sandbox on 127.0.0.1 with a free port.
pub struct Running {
    _sandbox: sandbox::Sandbox,
    /// The drift watch in front, when the scenarios run through one.
    pub watch: Option<sandbox::watch::Watch>,
    /// Where clients reach it: the sandbox, or the proxy in front of it.
    pub origin: String,
    /// The sandbox itself, for the `/_sandbox/` controls.
    direct: String,
    http: reqwest::Client,
}

impl Running {
    pub async fn start(spec: &super::format::SandboxSpec) -> Result<Running, String> {
        Running::start_with(spec, false).await
    }

    /// A sandbox with a drift watch in front (`watched`): clients reach the watch, and the
    /// sandbox's links name it (its public URL), so every exchange passes through it.
    pub async fn start_with(
        spec: &super::format::SandboxSpec,
        watched: bool,
    ) -> Result<Running, String> {
        let args = &spec.args;
        let mut flags = args.to_vec();
        flags.extend(["--addr".to_string(), "127.0.0.1:0".to_string()]);
        let mut options = sandbox::cli::parse(flags)
            .map_err(|e| format!("sandbox flags {args:?}: {e}"))?
            .ok_or("`--help` is no flag for a scenario")?;
        let watch_listener = match watched {
            true => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .map_err(|e| format!("cannot start the watch: {e}"))?;
                let addr = listener.local_addr().map_err(|e| e.to_string())?;
                options.public_url = Some(format!("http://{addr}"));
                Some(listener)
            }
            false => None,
        };
        let sandbox = sandbox::Sandbox::start(options)
            .await
            .map_err(|e| format!("cannot start the sandbox: {e}"))?;
        let direct = format!("http://{}", sandbox.addr);
        let mut origin = sandbox.legacy_base_url();
        let watch = match watch_listener {
            Some(listener) => {
                let options = sandbox::watch::Options {
                    upstream: direct.clone(),
                    enforce: false,
                    record: None,
                    json_lines: false,
                    ir: None,
                    timeout: sandbox::watch::DEFAULT_TIMEOUT,
                };
                let watch = sandbox::watch::Watch::on(listener, options)
                    .await
                    .map_err(|e| format!("cannot start the watch: {e}"))?;
                origin = format!("http://{}", watch.addr);
                Some(watch)
            }
            None => None,
        };
        if spec.proxy {
            // The proxy in process, as a runner in another language starts `sandbox forward`.
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| format!("cannot start the proxy: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            tokio::spawn(sandbox::forward::serve(listener, sandbox.addr));
            origin = format!("http://{addr}");
        }
        Ok(Running {
            origin,
            direct,
            watch,
            _sandbox: sandbox,
            http: reqwest::Client::new(),
        })
    }

    /// `METHOD /_sandbox/...` with an optional JSON body; the answer's JSON (or null).
    pub async fn control(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, String> {
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|_| format!("`{method}` is no HTTP method"))?;
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.direct));
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("{method} {path}: {e}"))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| format!("{method} {path}: {e}"))?;
        if !status.is_success() {
            return Err(format!("{method} {path} answered {status}: {text}"));
        }
        if text.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&text).map_err(|e| format!("{method} {path}: {e}: {text}"))
    }

    pub async fn requests(&self) -> Result<Vec<Value>, String> {
        match self.control("GET", "/_sandbox/requests", None).await? {
            Value::Array(list) => Ok(list),
            other => Err(format!("GET /_sandbox/requests gave {other}")),
        }
    }
}
