//! Runs one scenario against a sandbox: reset, script, client, then each step with its
//! expectations, as `tests/conformance/README.md` prescribes for every runner.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use inspection_client::{Config, Error, RetryPolicy, legacy, v3};
use serde_json::{Value, json};
use tracing::Instrument;

use super::call::{Outcome, describe, failed, step_args};
use super::expect::{check, check_requests, fill, same};
use super::format::{ClientSpec, Credentials, Interface, Scenario, Step};
use super::sandbox::Running;
use super::tool::{self, Tool};
use super::webhooks::{self, Listener};

enum Client {
    V3(v3::Client),
    Legacy(legacy::Client),
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The scenario's client settings (the defaults of `format.json` filled in).
fn config(base: Config, spec: &ClientSpec) -> Config {
    let mut config = base.no_pacing();
    if let Some(limit) = &spec.rate_limit {
        config = config.rate_limit(limit.requests, ms(limit.window_ms));
    }
    config
        .retry(RetryPolicy::new(
            spec.max_attempts,
            ms(spec.initial_backoff_ms),
            ms(spec.max_backoff_ms),
        ))
        .timeout(ms(spec.timeout_ms))
        .validate_requests(spec.validate)
        .max_polls(spec.max_polls)
        .poll_interval(ms(spec.poll_interval_ms))
        .max_response_bytes(spec.max_response_bytes)
        .max_error_bytes(spec.max_error_bytes)
        .max_empty_pages(spec.max_empty_pages)
}

async fn login(
    sandbox: &Running,
    spec: &ClientSpec,
    username: &str,
    password: &str,
) -> Result<legacy::Client, Error> {
    let credentials =
        legacy::AuthenticateRequest::new(legacy::Credentials::new(username, password));
    let config = config(legacy::Client::default_config(), spec);
    legacy::Client::login_with_config(&sandbox.origin, credentials, config).await
}

/// A client of the scenario's interface with its settings and `c`; a legacy one logs in.
async fn client(sandbox: &Running, scenario: &Scenario, c: &Credentials) -> Result<Client, Error> {
    let spec = &scenario.client;
    match scenario.interface {
        Interface::V3 => {
            let key = v3::ApiKey::new(text(&c.key_id), text(&c.key_secret));
            let config = config(v3::Client::default_config(), spec);
            v3::Client::with_config(&format!("{}/v3", sandbox.origin), key, config).map(Client::V3)
        }
        Interface::Legacy => login(sandbox, spec, &text(&c.username), &text(&c.password))
            .await
            .map(Client::Legacy),
    }
}

/// The credentials of a `login` (legacy; `username` and `password` required) or
/// `make_client` step: each the step's `args` give, else the scenario's.
fn step_credentials(
    scenario: &Scenario,
    call: &str,
    args: Option<Value>,
) -> Result<Credentials, String> {
    let mut args = step_args(args)?;
    let mut c = scenario.client.credentials.clone();
    for (key, slot) in [
        ("key_id", &mut c.key_id),
        ("key_secret", &mut c.key_secret),
        ("username", &mut c.username),
        ("password", &mut c.password),
    ] {
        // Only the interface's own: the scenario's are all there (format.json's defaults).
        if slot.is_none() {
            continue;
        }
        let given: Option<String> = match call {
            "login" => Some(args.required(key)?),
            _ => args.take(key)?,
        };
        if given.is_some() {
            *slot = given;
        }
    }
    args.finish()?;
    Ok(c)
}

/// A credential of the scenario (its interface's are always there, `format.json` gives
/// their defaults).
fn text(credential: &Option<String>) -> String {
    credential.clone().unwrap_or_default()
}

/// The scenario's secrets, which no event may hold: the v3 key secret or the legacy
/// password it uses.
fn secrets(scenario: &Scenario) -> Vec<String> {
    let c = &scenario.client.credentials;
    [&c.key_secret, &c.password]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
}

/// Runs `scenario`; the error names the step that failed and why.
pub async fn scenario(sandbox: &Running, scenario: &Scenario) -> Result<(), String> {
    run(sandbox, scenario, None).await
}

/// Runs `scenario`'s calls through the command-line tool instead of the library.
pub async fn scenario_through_tool(
    sandbox: &Running,
    scenario: &Scenario,
    tool: &Tool,
) -> Result<(), String> {
    run(sandbox, scenario, Some(tool)).await
}

async fn run(sandbox: &Running, scenario: &Scenario, tool: Option<&Tool>) -> Result<(), String> {
    super::events::install();
    sandbox.control("POST", "/_sandbox/reset", None).await?;
    if !scenario.script.is_empty() {
        let script = Value::Array(scenario.script.clone());
        sandbox
            .control("POST", "/_sandbox/script", Some(&script))
            .await?;
    }
    let mut vars = BTreeMap::from([("origin".to_string(), json!(sandbox.origin))]);
    let mut client = client(sandbox, scenario, &scenario.client.credentials)
        .await
        .map_err(|e| format!("cannot make the client before the first step: {e}"))?;
    // The scenario's webhook listener, once a `listen` step made it; closed at the end.
    let mut listener: Option<Listener> = None;
    let mut outcome = Ok(());
    for (i, step) in scenario.steps.iter().enumerate() {
        let label = match (&step.call, &step.sandbox) {
            (Some(call), _) => format!("call {call}"),
            (None, Some(control)) => format!("sandbox {}", control.request()),
            (None, None) => String::new(),
        };
        let ran = match (tool, &step.call) {
            (Some(tool), Some(call)) => {
                tool_step(sandbox, scenario, step, call, tool, &mut vars).await
            }
            _ => {
                run_step(
                    sandbox,
                    scenario,
                    step,
                    &mut client,
                    &mut vars,
                    &mut listener,
                )
                .await
            }
        };
        outcome = ran.map_err(|e| format!("step {} ({label}): {e}", i + 1));
        if outcome.is_err() {
            break;
        }
    }
    if let Some(listener) = listener {
        listener.close().await;
    }
    outcome?;
    let pending = sandbox.control("GET", "/_sandbox/script", None).await?;
    match pending["pending"].as_u64() {
        Some(0) => Ok(()),
        _ => Err(format!(
            "canned answers were left unused at the end: {pending}"
        )),
    }
}

async fn run_step(
    sandbox: &Running,
    scenario: &Scenario,
    step: &Step,
    client: &mut Client,
    vars: &mut BTreeMap<String, Value>,
    listener: &mut Option<Listener>,
) -> Result<(), String> {
    let call = match (&step.call, &step.sandbox) {
        (Some(call), None) => call,
        (None, Some(control)) => {
            let (method, path) = control
                .request()
                .split_once(' ')
                .ok_or("`sandbox` is `METHOD /_sandbox/...`")?;
            let body = control.body().map(|b| fill(b, vars)).transpose()?;
            sandbox.control(method, path, body.as_ref()).await?;
            return Ok(());
        }
        _ => return Err("a step has exactly one of `call` and `sandbox`".into()),
    };
    sandbox
        .control("DELETE", "/_sandbox/requests", None)
        .await?;
    let args = step.args.as_ref().map(|a| fill(a, vars)).transpose()?;
    let mut secrets = secrets(scenario);
    if call == "login" || call == "make_client" {
        let given = |key: &str| args.as_ref().and_then(|a| a[key].as_str());
        secrets.extend(
            ["key_secret", "password"]
                .into_iter()
                .filter_map(given)
                .map(String::from),
        );
    }
    // What came before this step (the scenario's own login) is not its events.
    super::events::take();
    let started = Instant::now();
    // In the step's span, so that the events recorded are this step's alone.
    let outcome = async {
        Ok::<Outcome, String>(match (call.as_str(), &*client) {
            ("login", Client::Legacy(_)) | ("make_client", _) => {
                let c = step_credentials(scenario, call, args)?;
                match self::client(sandbox, scenario, &c).await {
                    Ok(fresh) => {
                        *client = fresh;
                        Outcome {
                            result: Some(Value::Null),
                            error: None,
                        }
                    }
                    Err(e) => failed(e),
                }
            }
            ("listen", _) => {
                webhooks::listen(sandbox, scenario.interface, listener, step_args(args)?).await?
            }
            ("deliveries", _) => {
                webhooks::deliveries(scenario.interface, listener.as_ref(), step_args(args)?)
                    .await?
            }
            (_, Client::V3(c)) => super::v3::call(c, call, step_args(args)?, step.mode).await?,
            (_, Client::Legacy(c)) => {
                super::legacy::call(c, call, step_args(args)?, step.mode).await?
            }
        })
    }
    .instrument(super::events::step_span())
    .await?;
    let took = started.elapsed();
    let events = super::events::take();
    super::events::check_secrets(&events, &secrets)?;
    check_outcome(step, &outcome, vars)?;
    if let Some(expected) = &step.expect_events {
        let expected = fill(&Value::Array(expected.clone()), vars)?;
        super::events::check_events(expected.as_array().map_or(&[], Vec::as_slice), &events)?;
    }
    if let Some(min) = step.min_ms
        && took < ms(min)
    {
        return Err(format!("took {took:?}, expected at least {min} ms"));
    }
    if let Some(max) = step.max_ms
        && took > ms(max)
    {
        return Err(format!("took {took:?}, expected at most {max} ms"));
    }
    if let Some(expected) = &step.expect_requests {
        let expected = fill(&Value::Array(expected.clone()), vars)?;
        let recorded = sandbox.requests().await?;
        check_requests(expected.as_array().map_or(&[], Vec::as_slice), &recorded)?;
    }
    // A call that failed as expected saves its error (a walk's `resume`); else its result.
    let saved = match (&outcome.error, &outcome.result) {
        (Some(e), _) => Some(describe(e)),
        (None, result) => result.clone(),
    };
    if let (Some(name), Some(value)) = (&step.save, saved) {
        vars.insert(name.clone(), value);
    }
    Ok(())
}

fn check_outcome(
    step: &Step,
    outcome: &Outcome,
    vars: &BTreeMap<String, Value>,
) -> Result<(), String> {
    let expect = &step.expect;
    match (&outcome.error, &expect.error) {
        (Some(e), None) => return Err(format!("failed: {e} ({})", describe(e))),
        (None, Some(pattern)) => {
            return Err(format!(
                "expected an error matching {pattern}, got {}",
                outcome.result.as_ref().unwrap_or(&Value::Null)
            ));
        }
        (Some(e), Some(pattern)) => {
            let mut pattern = fill(pattern, vars)?;
            let mut words = |key: &str| -> Result<Vec<String>, String> {
                match pattern.as_object_mut().and_then(|p| p.remove(key)) {
                    None => Ok(Vec::new()),
                    // A misspelt list must fail, not turn the check off.
                    Some(list) => list
                        .as_array()
                        .and_then(|l| l.iter().map(|w| w.as_str().map(String::from)).collect())
                        .ok_or(format!("`{key}` must be a list of strings, got {list}")),
                }
            };
            let (excluded, included) = (words("text_excludes")?, words("text_includes")?);
            check(&pattern, Some(&describe(e)), "the error")
                .map_err(|m| format!("{m} (the error: {e})"))?;
            let text = format!("{e} {e:?}");
            if let Some(word) = excluded.iter().find(|w| text.contains(w.as_str())) {
                return Err(format!("the error's text shows `{word}`: {text}"));
            }
            if let Some(word) = included.iter().find(|w| !text.contains(w.as_str())) {
                return Err(format!("the error's text does not show `{word}`: {text}"));
            }
        }
        (None, None) => {}
    }
    check_result(step, outcome.result.as_ref(), vars)
}

/// The `ok`, `equals` and `count` expectations of a step.
fn check_result(
    step: &Step,
    result: Option<&Value>,
    vars: &BTreeMap<String, Value>,
) -> Result<(), String> {
    let expect = &step.expect;
    if let Some(pattern) = &expect.ok {
        check(&fill(pattern, vars)?, result, "")?;
    }
    if let Some(want) = &expect.equals {
        let want = fill(want, vars)?;
        if !result.is_some_and(|r| same(&want, r)) {
            return Err(format!(
                "expected exactly {want}, got {}",
                result.unwrap_or(&Value::Null)
            ));
        }
    }
    if let Some(count) = expect.count {
        let got = result.and_then(Value::as_array).map(Vec::len);
        if got != Some(count) {
            return Err(format!(
                "expected {count} entries, got {}",
                result.unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}

/// A call step through the command-line tool: its exit code against the expected error
/// (or 0), what it printed or saved against `ok`, `equals`, `count`, and the requests it
/// made (without its login) against `expect_requests`.
async fn tool_step(
    sandbox: &Running,
    scenario: &Scenario,
    step: &Step,
    call: &str,
    tool: &Tool,
    vars: &mut BTreeMap<String, Value>,
) -> Result<(), String> {
    sandbox
        .control("DELETE", "/_sandbox/requests", None)
        .await?;
    let args = step.args.as_ref().map(|a| fill(a, vars)).transpose()?;
    let call_line = tool.invocation(scenario.interface, call, args.as_ref(), step.mode)?;
    let env = tool.env(&sandbox.origin, scenario);
    let ran = tool::run(&call_line.args, &env, call_line.stdin.as_deref()).await;
    let shown = || format!("`inspection {}`", call_line.args.join(" "));
    let result = match &step.expect.error {
        Some(pattern) => {
            let want = tool::exit_code(&fill(pattern, vars)?);
            if ran.code != want {
                return Err(format!(
                    "{} exited {} where the error {pattern} is {want}: {}",
                    shown(),
                    ran.code,
                    ran.stderr
                ));
            }
            None
        }
        None if ran.code != 0 => {
            return Err(format!("{} exited {}: {}", shown(), ran.code, ran.stderr));
        }
        None => Some(tool::result(&ran, call_line.output.as_deref())?),
    };
    check_result(step, result.as_ref(), vars).map_err(|e| format!("{}: {e}", shown()))?;
    if let Some(expected) = &step.expect_requests {
        let expected = fill(&Value::Array(expected.clone()), vars)?;
        let recorded =
            tool::without_login(sandbox.requests().await?, call, "/api/users/authenticate");
        check_requests(expected.as_array().map_or(&[], Vec::as_slice), &recorded)
            .map_err(|e| format!("{}: {e}", shown()))?;
    }
    if let (Some(name), Some(value)) = (&step.save, result) {
        vars.insert(name.clone(), value);
    }
    Ok(())
}
