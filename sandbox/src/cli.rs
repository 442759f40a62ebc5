//! The sandbox's command-line flags, read into `Options`: for the binary, and for test
//! runners that start the sandbox in-process with the flags a scenario file names.

use std::time::Duration;

use crate::webhooks::{Header, loopback_url};
use crate::{Faults, Options, PagingStyle};

pub const USAGE: &str = "usage: cargo run -p sandbox -- [flags]

  --addr ADDR           where to listen (default 127.0.0.1:8080; port 0 picks a free port);
                        a non-loopback address needs --listen-beyond-loopback
  --storage-addr ADDR   where the storage origin serving inspections' pre-signed PDF links
                        (pdf_share_url) listens (default 127.0.0.1 on a free port)
  --listen-beyond-loopback
                        allow --addr off loopback (a container network): the sandbox's
                        demo keys and tokens are public, so anyone who can reach it can use it
  --key ID:SECRET       an accepted key pair; repeatable (default demo-key:demo-secret)
  --rate-limit N/SECS   requests per window per client address (default 100/10), or off
  --empty               start with no data (default: the demo fleet)
  --inspections N       add N generated inspections (for export tests)
  --paging STYLE        both (default), next (paging.next URLs) or cursor (paging.cursor)
  --faults RATE         fault this share of requests, mixed over every kind (e.g. 0.1)
  --fault-5xx RATE      answer 500/502/503
  --fault-429 RATE      answer 429 with Retry-After: 1
  --fault-reset RATE    cut the connection before the body
  --fault-truncate RATE cut the body half-way
  --fault-slow RATE     answer after --slow-ms (default 1500)
  --fault-seed N        seed of the fault draws (default 1)
  --legacy-user NAME:PASSWORD:ROLE
                        a legacy /api account, ROLE manager or user; repeatable
                        (default manager@example.com:manager-pass:manager and
                        user@example.com:user-pass:user)
  --legacy-transactions N
                        legacy transactions to generate, a day apart (default 5)
  --legacy-rate-limit N/SECS
                        /api requests per window per client address, a budget apart
                        from v3's (default 100/10), or off
  --legacy-min-part-size BYTES
                        the smallest part of a multipart upload but its last, checked
                        at completion (default 5242880, 5 MiB; 0 for none)
  --webhook URL         a webhook listener of both interfaces, http:// on a loopback host
                        (127.0.0.0/8, [::1], localhost); repeatable
  --webhook-header \"Name: value\"
                        a header sent with every webhook delivery; repeatable
  --max-connections N   connections served at once (default 1024); more wait to be
                        accepted until one closes
  --header-timeout-ms N how long a connection may take to send a request head, and stay
                        idle between requests, before it is closed (default 10000)
  --public-url URL      the URL clients use when it is not the listening address (behind a
                        reverse proxy, a tunnel, a container port mapping): every absolute
                        URL in an answer (paging links, share, PDF and upload URLs) names it
  --trust-forwarded-headers
                        take each request's public address from its Forwarded or
                        X-Forwarded-Host/-Proto headers (only behind a proxy that sets
                        them: anyone can send them)
  --cors-origin ORIGIN  let pages from ORIGIN (http://127.0.0.1:5173: scheme, host, port)
                        call the sandbox from a browser: preflights answered, the
                        clients' headers allowed and exposed; repeatable (default: none)

  --drift               depart from the spec on purpose, once in each way a drift watch
                        must see (sandbox/src/drift.rs lists them): to test a watch

  sandbox forward --to ADDR [--listen ADDR]
                        a small reverse proxy in front of a sandbox at ADDR (listening on
                        127.0.0.1 and a free port by default) that adds the forwarding
                        headers: to try --trust-forwarded-headers

  sandbox watch --upstream URL [--listen ADDR] [--report FILE] [--record DIR] [--enforce]
                        the drift watch: a proxy in front of the service at URL (its
                        origin, https://host) that passes all traffic on unchanged and
                        holds it to the spec; each departure is a JSON line on stdout when
                        first seen (with the spec line to change and its class); on
                        Ctrl-C a summary on stderr and the report as JSON in FILE;
                        --record writes each exchange, redacted, to DIR; --enforce answers
                        502 naming the departure instead (a CI job against staging);
                        GET /_watch/report shows the report while it runs";

/// `N/SECS` (N requests per SECS seconds) or `off`.
fn rate_limit(flag: &str, v: String) -> Result<Option<(u32, Duration)>, String> {
    if v == "off" {
        return Ok(None);
    }
    let (n, secs) = v
        .split_once('/')
        .ok_or_else(|| format!("{flag}: `{v}` is not N/SECONDS or off"))?;
    let n = n
        .parse()
        .map_err(|_| format!("{flag}: `{n}` is not a number"))?;
    let secs = secs
        .parse()
        .map_err(|_| format!("{flag}: `{secs}` is not a number of seconds"))?;
    Ok(Some((n, Duration::from_secs(secs))))
}

/// The options the flags ask for; `None` for `--help`. Unset flags keep the defaults, with
/// `--addr` 127.0.0.1:8080.
pub fn parse(args: Vec<String>) -> Result<Option<Options>, String> {
    let mut o = Options {
        addr: ([127, 0, 0, 1], 8080).into(),
        ..Options::default()
    };
    let mut keys = Vec::new();
    let mut beyond_loopback = false;
    let mut legacy_users = Vec::new();
    let mut faults = Faults::default();
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let rate = |v: String, name: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|r| (0.0..=1.0).contains(r))
                .ok_or_else(|| format!("{name}: `{v}` is not a rate from 0 to 1"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--addr" => {
                let v = value("--addr")?;
                o.addr = v
                    .parse()
                    .map_err(|_| format!("--addr: `{v}` is not an address like 127.0.0.1:8080"))?;
            }
            "--storage-addr" => {
                let v = value("--storage-addr")?;
                o.storage_addr = v.parse().map_err(|_| {
                    format!("--storage-addr: `{v}` is not an address like 127.0.0.1:8081")
                })?;
            }
            "--listen-beyond-loopback" => beyond_loopback = true,
            "--key" => {
                let v = value("--key")?;
                let (id, secret) = v
                    .split_once(':')
                    .ok_or_else(|| format!("--key: `{v}` is not ID:SECRET"))?;
                keys.push((id.to_string(), secret.to_string()));
            }
            "--rate-limit" => o.rate_limit = rate_limit(&flag, value(&flag)?)?,
            "--legacy-rate-limit" => o.legacy_rate_limit = rate_limit(&flag, value(&flag)?)?,
            "--empty" => o.demo = false,
            "--inspections" => {
                let v = value("--inspections")?;
                o.extra_inspections = v
                    .parse()
                    .map_err(|_| format!("--inspections: `{v}` is not a number"))?;
            }
            "--paging" => {
                o.paging = match value("--paging")?.as_str() {
                    "both" => PagingStyle::Both,
                    "next" => PagingStyle::NextUrl,
                    "cursor" => PagingStyle::Cursor,
                    other => {
                        return Err(format!("--paging: `{other}` is not both, next or cursor"));
                    }
                }
            }
            "--faults" => {
                let seed = faults.seed;
                faults = Faults::mixed(seed, rate(value("--faults")?, "--faults")?);
            }
            "--fault-5xx" => faults.server_error = rate(value(&flag)?, &flag)?,
            "--fault-429" => faults.too_many_requests = rate(value(&flag)?, &flag)?,
            "--fault-reset" => faults.reset = rate(value(&flag)?, &flag)?,
            "--fault-truncate" => faults.truncate = rate(value(&flag)?, &flag)?,
            "--fault-slow" => faults.slow = rate(value(&flag)?, &flag)?,
            "--slow-ms" => {
                let v = value("--slow-ms")?;
                faults.slow_for = Duration::from_millis(
                    v.parse()
                        .map_err(|_| format!("--slow-ms: `{v}` is not a number"))?,
                );
            }
            "--fault-seed" => {
                let v = value("--fault-seed")?;
                faults.seed = v
                    .parse()
                    .map_err(|_| format!("--fault-seed: `{v}` is not a number"))?;
            }
            "--legacy-user" => {
                let v = value("--legacy-user")?;
                let parts: Vec<&str> = v.splitn(3, ':').collect();
                let [name, password, role] = parts.as_slice() else {
                    return Err(format!("--legacy-user: `{v}` is not NAME:PASSWORD:ROLE"));
                };
                let manager = match *role {
                    "manager" => true,
                    "user" => false,
                    other => {
                        return Err(format!(
                            "--legacy-user: role `{other}` is not manager or user"
                        ));
                    }
                };
                legacy_users.push((name.to_string(), password.to_string(), manager));
            }
            "--legacy-min-part-size" => {
                let v = value(&flag)?;
                o.legacy_min_part_size = v
                    .parse()
                    .map_err(|_| format!("{flag}: `{v}` is not a number of bytes"))?;
            }
            "--legacy-transactions" => {
                let v = value("--legacy-transactions")?;
                o.legacy_transactions = v
                    .parse()
                    .map_err(|_| format!("--legacy-transactions: `{v}` is not a number"))?;
            }
            "--webhook" => {
                let v = value("--webhook")?;
                loopback_url(&v).map_err(|e| format!("--webhook: {e}"))?;
                o.webhooks.push(v);
            }
            "--webhook-header" => {
                let v = value("--webhook-header")?;
                Header::parse(&v).map_err(|e| format!("--webhook-header: {e}"))?;
                let (name, value) = v.split_once(':').unwrap_or_default();
                o.webhook_headers
                    .push((name.trim().to_string(), value.trim().to_string()));
            }
            "--max-connections" => {
                let v = value("--max-connections")?;
                o.max_connections =
                    v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("--max-connections: `{v}` is not a number from 1")
                    })?;
            }
            "--header-timeout-ms" => {
                let v = value("--header-timeout-ms")?;
                let ms: u64 =
                    v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("--header-timeout-ms: `{v}` is not a number from 1")
                    })?;
                o.header_timeout = Duration::from_millis(ms);
            }
            "--public-url" => {
                let v = value("--public-url")?;
                o.public_url =
                    Some(crate::public_url::parse(&v).map_err(|e| format!("--public-url: {e}"))?);
            }
            "--trust-forwarded-headers" => o.trust_forwarded = true,
            "--drift" => o.drift = true,
            "--cors-origin" => {
                let v = value("--cors-origin")?;
                o.cors_origins
                    .push(crate::cors::parse(&v).map_err(|e| format!("--cors-origin: {e}"))?);
            }
            other => return Err(format!("unknown flag `{other}`")),
        }
    }
    for (flag, addr) in [("--addr", o.addr), ("--storage-addr", o.storage_addr)] {
        if !addr.ip().is_loopback() && !beyond_loopback {
            return Err(format!(
                "{flag}: {addr} is not a loopback address; the sandbox has public demo \
                 credentials, so listening there needs --listen-beyond-loopback"
            ));
        }
    }
    if !keys.is_empty() {
        o.keys = keys;
    }
    if !legacy_users.is_empty() {
        o.legacy_users = legacy_users;
    }
    o.faults = faults;
    Ok(Some(o))
}
