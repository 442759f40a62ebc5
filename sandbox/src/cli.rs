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
  --company ID:SECRET:INSPECTIONS
                        another company: its own key and its own data (the demo fleet,
                        unless --empty, and INSPECTIONS generated ones), under the same
                        rate limit per client address as the first; repeatable
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
                [--timeout SECS]
                        the drift watch: a proxy in front of the service at URL (its
                        origin, https://host) that passes all traffic on unchanged and
                        holds it to the spec; each departure is a JSON line on stdout when
                        first seen (with the spec line to change and its class); on
                        Ctrl-C a summary on stderr and the report as JSON in FILE;
                        --record writes each exchange, redacted, to DIR; --enforce answers
                        502 naming the departure instead (a CI job against staging);
                        --timeout: how long the upstream may stay silent (default 60;
                        then 504, or the answer cut off); GET /_watch/report shows the
                        report while it runs";

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
    let mut p = Parsed {
        o: Options {
            addr: ([127, 0, 0, 1], 8080).into(),
            ..Options::default()
        },
        keys: Vec::new(),
        beyond_loopback: false,
        legacy_users: Vec::new(),
        faults: Faults::default(),
    };
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            return Ok(None);
        }
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let known = p.listen_flag(&flag, &mut value)?
            || p.access_flag(&flag, &mut value)?
            || p.data_flag(&flag, &mut value)?
            || p.fault_flag(&flag, &mut value)?;
        if !known {
            return Err(format!("unknown flag `{flag}`"));
        }
    }
    p.finish().map(Some)
}

/// The value of the flag being read.
type Value<'a> = &'a mut dyn FnMut() -> Result<String, String>;

/// The flags read so far.
struct Parsed {
    o: Options,
    keys: Vec<(String, String)>,
    beyond_loopback: bool,
    legacy_users: Vec<(String, String, bool)>,
    faults: Faults,
}

impl Parsed {
    /// Where and how it listens. `false`: not one of these flags.
    fn listen_flag(&mut self, flag: &str, value: Value) -> Result<bool, String> {
        let o = &mut self.o;
        match flag {
            "--addr" => o.addr = address(flag, value()?, "127.0.0.1:8080")?,
            "--storage-addr" => o.storage_addr = address(flag, value()?, "127.0.0.1:8081")?,
            "--listen-beyond-loopback" => self.beyond_loopback = true,
            "--max-connections" => o.max_connections = at_least_one(flag, value()?)?,
            "--header-timeout-ms" => {
                o.header_timeout = Duration::from_millis(at_least_one(flag, value()?)?);
            }
            "--public-url" => {
                let url = crate::public_url::parse(&value()?);
                o.public_url = Some(url.map_err(|e| format!("{flag}: {e}"))?);
            }
            "--trust-forwarded-headers" => o.trust_forwarded = true,
            "--cors-origin" => {
                let origin = crate::cors::parse(&value()?);
                o.cors_origins
                    .push(origin.map_err(|e| format!("{flag}: {e}"))?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Who may call it, at what pace, and whom it calls. `false`: not one of these flags.
    fn access_flag(&mut self, flag: &str, value: Value) -> Result<bool, String> {
        let o = &mut self.o;
        match flag {
            "--key" => {
                let v = value()?;
                let (id, secret) = v
                    .split_once(':')
                    .ok_or_else(|| format!("--key: `{v}` is not ID:SECRET"))?;
                self.keys.push((id.to_string(), secret.to_string()));
            }
            "--company" => o
                .companies
                .push(crate::Company::parse(&value()?).map_err(|e| format!("{flag}: {e}"))?),
            "--rate-limit" => o.rate_limit = rate_limit(flag, value()?)?,
            "--legacy-rate-limit" => o.legacy_rate_limit = rate_limit(flag, value()?)?,
            "--webhook" => {
                let v = value()?;
                loopback_url(&v).map_err(|e| format!("{flag}: {e}"))?;
                o.webhooks.push(v);
            }
            "--webhook-header" => {
                let v = value()?;
                Header::parse(&v).map_err(|e| format!("{flag}: {e}"))?;
                let (name, value) = v.split_once(':').unwrap_or_default();
                o.webhook_headers
                    .push((name.trim().to_string(), value.trim().to_string()));
            }
            "--drift" => o.drift = true,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The data it starts with. `false`: not one of these flags.
    fn data_flag(&mut self, flag: &str, value: Value) -> Result<bool, String> {
        let o = &mut self.o;
        match flag {
            "--empty" => o.demo = false,
            "--inspections" => o.extra_inspections = number(flag, value()?, "a number")?,
            "--paging" => {
                o.paging = match value()?.as_str() {
                    "both" => PagingStyle::Both,
                    "next" => PagingStyle::NextUrl,
                    "cursor" => PagingStyle::Cursor,
                    other => {
                        return Err(format!("--paging: `{other}` is not both, next or cursor"));
                    }
                }
            }
            "--legacy-user" => self.legacy_users.push(legacy_user(&value()?)?),
            "--legacy-min-part-size" => {
                o.legacy_min_part_size = number(flag, value()?, "a number of bytes")?;
            }
            "--legacy-transactions" => o.legacy_transactions = number(flag, value()?, "a number")?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The faults it injects. `false`: not one of these flags.
    fn fault_flag(&mut self, flag: &str, value: Value) -> Result<bool, String> {
        let f = &mut self.faults;
        match flag {
            "--faults" => *f = Faults::mixed(f.seed, rate(flag, value()?)?),
            "--fault-5xx" => f.server_error = rate(flag, value()?)?,
            "--fault-429" => f.too_many_requests = rate(flag, value()?)?,
            "--fault-reset" => f.reset = rate(flag, value()?)?,
            "--fault-truncate" => f.truncate = rate(flag, value()?)?,
            "--fault-slow" => f.slow = rate(flag, value()?)?,
            "--slow-ms" => f.slow_for = Duration::from_millis(number(flag, value()?, "a number")?),
            "--fault-seed" => f.seed = number(flag, value()?, "a number")?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The options, once every listening address is checked.
    fn finish(mut self) -> Result<Options, String> {
        let o = &mut self.o;
        for (flag, addr) in [("--addr", o.addr), ("--storage-addr", o.storage_addr)] {
            if !addr.ip().is_loopback() && !self.beyond_loopback {
                return Err(format!(
                    "{flag}: {addr} is not a loopback address; the sandbox has public demo \
                     credentials, so listening there needs --listen-beyond-loopback"
                ));
            }
        }
        if !self.keys.is_empty() {
            o.keys = self.keys;
        }
        let mut ids: Vec<&str> = o.keys.iter().map(|k| k.0.as_str()).collect();
        for company in &o.companies {
            if ids.contains(&company.key.0.as_str()) {
                return Err(format!(
                    "--company: the key id `{}` is already another company's",
                    company.key.0
                ));
            }
            ids.push(&company.key.0);
        }
        if !self.legacy_users.is_empty() {
            o.legacy_users = self.legacy_users;
        }
        o.faults = self.faults;
        Ok(self.o)
    }
}

fn address(flag: &str, v: String, example: &str) -> Result<std::net::SocketAddr, String> {
    v.parse()
        .map_err(|_| format!("{flag}: `{v}` is not an address like {example}"))
}

fn number<T: std::str::FromStr>(flag: &str, v: String, what: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{flag}: `{v}` is not {what}"))
}

fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(
    flag: &str,
    v: String,
) -> Result<T, String> {
    v.parse()
        .ok()
        .filter(|n| *n >= T::from(1))
        .ok_or_else(|| format!("{flag}: `{v}` is not a number from 1"))
}

/// A share of requests, from 0 to 1.
fn rate(flag: &str, v: String) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| format!("{flag}: `{v}` is not a rate from 0 to 1"))
}

/// `NAME:PASSWORD:ROLE`, the role `manager` or `user`.
fn legacy_user(v: &str) -> Result<(String, String, bool), String> {
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
    Ok((name.to_string(), password.to_string(), manager))
}
