//! A `postgres://` URL's settings, read as libpq reads them: the driver parses the URL,
//! [`Params`] holds the parameters this tool reads itself (the driver knows three TLS
//! modes and none of the certificate files: `sslmode`, `sslrootcert`, `sslcert`,
//! `sslkey`, `sslnegotiation` and `sslsni` are read here and taken out of the URL it
//! gets), [`Tls`] what they come to with libpq's variables (`PGSSLMODE`, ...) and
//! defaults (`~/.postgresql/`), and the password comes from the URL, `PGPASSWORD` or the
//! password file (`PGPASSFILE`, else `~/.pgpass`).

use std::error::Error;
use std::path::PathBuf;
use std::time::Duration;

use tokio_postgres::Config;
use tokio_postgres::config::{ChannelBinding, Host, SslMode as DriverMode, SslNegotiation};

use crate::exit::Failure;

/// How long connecting (TCP, TLS, authentication and start-up) may take when the URL has
/// no `connect_timeout` (libpq's own default is to wait without end).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// TCP keepalives when the URL sets none of libpq's keepalive parameters: a first probe
/// after 60 s of silence, then one every 10 s, the connection given up after 3
/// unanswered (libpq leaves the system's, a first probe after two hours). They find a
/// server gone from the network; a frozen server's system still answers them, which is
/// what the deadlines are for.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(60);
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
pub const KEEPALIVE_RETRIES: u32 = 3;

/// The parameters this tool reads and the driver never sees (it would refuse them).
const TOOL_ONLY: &[&str] = &[
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslnegotiation",
    "sslsni",
];

/// libpq's `sslmode`, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// Without TLS first; with it (unverified) when the server refuses that.
    Allow,
    /// With TLS when the server offers it (unverified); without it otherwise, or when
    /// the TLS connection fails. libpq's default.
    Prefer,
    /// TLS or nothing; the certificate unchecked unless a root certificate file is
    /// present (then as `verify-ca`).
    Require,
    /// TLS, the certificate's chain checked against the root certificates.
    VerifyCa,
    /// TLS, the chain and the host name checked.
    VerifyFull,
}

impl SslMode {
    pub const ALL: [SslMode; 6] = [
        SslMode::Disable,
        SslMode::Allow,
        SslMode::Prefer,
        SslMode::Require,
        SslMode::VerifyCa,
        SslMode::VerifyFull,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(text: &str, what: &str) -> Result<SslMode, String> {
        SslMode::ALL
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = SslMode::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "{what}=`{text}` is none of libpq's modes ({})",
                    names.join(", ")
                )
            })
    }
}

/// The parameters of the URL's query this tool reads itself; the driver reads them all
/// again (and refuses one it does not know), but for [`TOOL_ONLY`]'s.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// `connect_timeout`: whole seconds, at least 1.
    pub connect_timeout: Option<Duration>,
    /// Whether the URL sets any of `keepalives`, `keepalives_idle`, `keepalives_interval`,
    /// `keepalives_retries` (then its settings stand, the defaults above are not applied).
    pub keepalives: bool,
    pub sslmode: Option<SslMode>,
    /// `sslrootcert`, `sslcert`, `sslkey`: files (or `system`, for the first).
    pub sslrootcert: Option<String>,
    pub sslcert: Option<String>,
    pub sslkey: Option<String>,
    /// `sslnegotiation=direct` (`postgres` is false).
    pub direct: Option<bool>,
    /// `sslsni=0` is false.
    pub sslsni: Option<bool>,
    /// Whether the URL sets `channel_binding` (the driver reads it; `PGCHANNELBINDING`
    /// stands in when it does not).
    pub channel_binding: bool,
}

impl Params {
    /// The parameters of `url`'s query (`?key=value&...`, percent-encoded). A refusal
    /// names the parameter, and quotes only values of the parameters read here (never
    /// a password).
    pub fn read(url: &str) -> Result<Params, String> {
        let mut params = Params::default();
        let Some((_, query)) = url.split_once('?') else {
            return Ok(params);
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let Some(key) = decoded(key) else { continue };
            params.take(&key, value)?;
        }
        Ok(params)
    }

    /// One parameter of the query (`value` still percent-encoded).
    fn take(&mut self, key: &str, value: &str) -> Result<(), String> {
        let text =
            || decoded(value).ok_or_else(|| format!("{key}: its value has a broken %-escape"));
        match key {
            "connect_timeout" => self.connect_timeout = Some(connect_timeout(value)?),
            "keepalives" | "keepalives_idle" | "keepalives_interval" | "keepalives_retries" => {
                self.keepalives = true;
            }
            "sslmode" => self.sslmode = Some(SslMode::parse(&text()?, key)?),
            "sslrootcert" => self.sslrootcert = Some(text()?).filter(|t| !t.is_empty()),
            "sslcert" => self.sslcert = Some(text()?).filter(|t| !t.is_empty()),
            "sslkey" => self.sslkey = Some(text()?).filter(|t| !t.is_empty()),
            "sslnegotiation" => self.direct = Some(negotiation(&text()?, key)?),
            "sslsni" => self.sslsni = Some(flag(&text()?, key)?),
            "channel_binding" => self.channel_binding = true,
            // Its value is a secret: never quoted.
            "sslpassword" => {
                return Err(
                    "sslpassword: this tool reads unencrypted keys only; write the \
                            key out decrypted, readable by you alone (openssl pkey -in KEY \
                            -out KEY.plain; chmod 600 KEY.plain), and name that in sslkey"
                        .into(),
                );
            }
            _ => {}
        }
        Ok(())
    }
}

/// `sslnegotiation`'s value: whether it is `direct`.
fn negotiation(text: &str, what: &str) -> Result<bool, String> {
    match text {
        "postgres" => Ok(false),
        "direct" => Ok(true),
        _ => Err(format!(
            "{what}=`{text}` is neither `postgres` nor `direct`"
        )),
    }
}

/// `sslsni`'s value: 1 or 0.
fn flag(text: &str, what: &str) -> Result<bool, String> {
    match text {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(format!("{what}=`{text}` is neither 1 nor 0")),
    }
}

/// `url` without the parameters only this tool reads ([`TOOL_ONLY`]), for the driver.
pub fn for_driver(url: &str) -> String {
    let Some((head, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let key = pair.split_once('=').map_or(*pair, |(k, _)| k);
            !decoded(key).is_some_and(|k| TOOL_ONLY.contains(&k.as_str()))
        })
        .collect();
    if kept.iter().all(|p| p.is_empty()) {
        return head.to_string();
    }
    format!("{head}?{}", kept.join("&"))
}

/// `connect_timeout`'s value: whole seconds. libpq reads 0 (or less) as "wait without
/// end", which this tool does not do: it is refused.
fn connect_timeout(value: &str) -> Result<Duration, String> {
    let text = decoded(value).unwrap_or_else(|| value.to_string());
    match text.trim().parse::<i64>() {
        Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs.unsigned_abs())),
        Ok(_) => Err(format!(
            "connect_timeout={text}: the sync never waits without end; give whole seconds, \
             1 or more (30 when the URL has none)"
        )),
        Err(_) => Err(format!(
            "connect_timeout=`{text}` is not a whole number of seconds"
        )),
    }
}

/// `text` with its `%XX` escapes decoded (`None` when one is broken or the result is not
/// UTF-8).
fn decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Where the server's certificate is checked from: a file of root certificates, or the
/// system's store (`sslrootcert=system`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    File(PathBuf),
    System,
}

/// What is checked of the server's certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Nothing: the connection is encrypted, the server not authenticated.
    Nothing,
    /// Its chain up to one of the roots (`verify-ca`, and a weaker mode with a root file).
    Chain,
    /// The chain and the host name (`verify-full`).
    ChainAndName,
}

/// TLS as the URL, libpq's variables and its defaults ask for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    pub mode: SslMode,
    pub roots: Option<Roots>,
    /// The client's certificate (its chain) and key files, when there is one.
    pub client: Option<(PathBuf, PathBuf)>,
    /// `sslnegotiation=direct`: TLS from the first byte (PostgreSQL 17 and later).
    pub direct: bool,
    /// The host name sent in the handshake (SNI) when it is one, not an address.
    pub sni: bool,
}

impl Tls {
    /// No TLS at all.
    pub fn off() -> Tls {
        Tls {
            mode: SslMode::Disable,
            roots: None,
            client: None,
            direct: false,
            sni: true,
        }
    }

    /// What is checked of the server's certificate: a root certificate file makes a mode
    /// weaker than `verify-ca` check the chain, as libpq does.
    pub fn verify(&self) -> Verify {
        match (self.mode, &self.roots) {
            (SslMode::VerifyFull, _) => Verify::ChainAndName,
            (SslMode::VerifyCa, _) | (_, Some(_)) => Verify::Chain,
            _ => Verify::Nothing,
        }
    }

    /// `params` with libpq's variables (`var`) where the URL is silent and its files in
    /// `~/.postgresql/` where neither names one. A file named must be there (libpq would
    /// go on without a missing client certificate, or unverified without a missing root
    /// file under `require`: a typo is not let weaken the connection); a mode that checks
    /// needs its roots, and the system's roots come with `verify-full` alone.
    pub fn read(params: &Params, var: &dyn Fn(&str) -> Option<String>) -> Result<Tls, String> {
        let env_mode = var("PGSSLMODE")
            .map(|m| SslMode::parse(&m, "PGSSLMODE"))
            .transpose()?;
        let given = params.sslmode.or(env_mode);
        let sources = Sources { params, var };
        let rootcert = sources.named(&params.sslrootcert, "PGSSLROOTCERT");
        let system = rootcert.as_deref() == Some("system");
        match given {
            Some(mode) if system && mode != SslMode::VerifyFull => {
                return Err(format!(
                    "sslmode={} is weaker than sslrootcert=system allows (libpq's rule): \
                     use sslmode=verify-full, or name the authority's file in sslrootcert",
                    mode.name()
                ));
            }
            Some(SslMode::Disable) => return Ok(Tls::off()),
            _ => {}
        }
        let roots = match rootcert {
            Some(_) if system => Some(Roots::System),
            Some(file) => Some(Roots::File(existing("sslrootcert", file)?)),
            None => sources.default("root.crt").map(Roots::File),
        };
        let mode = match (given, system) {
            (None, true) => SslMode::VerifyFull,
            (mode, _) => mode.unwrap_or(SslMode::Prefer),
        };
        if mode >= SslMode::VerifyCa && roots.is_none() {
            return Err(format!(
                "sslmode={} checks the server's certificate against its authority: name the \
                 authority's certificate (sslrootcert=FILE, or ~/.postgresql/root.crt), or \
                 sslrootcert=system for the system's authorities",
                mode.name()
            ));
        }
        let direct = sources.direct()?;
        if direct && mode < SslMode::Require {
            return Err(format!(
                "sslnegotiation=direct starts with TLS and never goes on without it: it takes \
                 sslmode=require, verify-ca or verify-full, not {}",
                mode.name()
            ));
        }
        let sni = match params.sslsni {
            Some(sni) => sni,
            None => var("PGSSLSNI").map_or(Ok(true), |v| flag(&v, "PGSSLSNI"))?,
        };
        Ok(Tls {
            mode,
            roots,
            client: sources.client()?,
            direct,
            sni,
        })
    }
}

/// Where a TLS setting comes from: the URL's parameter, else libpq's variable, else a
/// file in `~/.postgresql/`.
struct Sources<'a> {
    params: &'a Params,
    var: &'a dyn Fn(&str) -> Option<String>,
}

impl Sources<'_> {
    /// The URL's value, else the variable `name`'s (an empty one is none).
    fn named(&self, url: &Option<String>, name: &str) -> Option<String> {
        url.clone()
            .or_else(|| (self.var)(name))
            .filter(|t| !t.is_empty())
    }

    /// `~/.postgresql/<file>`, when it is there.
    fn default(&self, file: &str) -> Option<PathBuf> {
        let home = (self.var)("HOME").filter(|h| !h.is_empty())?;
        Some(PathBuf::from(home).join(".postgresql").join(file)).filter(|p| p.is_file())
    }

    /// The client's certificate and key: `sslcert` (else `PGSSLCERT`, else
    /// `~/.postgresql/postgresql.crt`) and its key likewise; a certificate without a key
    /// is refused.
    fn client(&self) -> Result<Option<(PathBuf, PathBuf)>, String> {
        let cert = match self.named(&self.params.sslcert, "PGSSLCERT") {
            Some(file) => existing("sslcert", file)?,
            None => match self.default("postgresql.crt") {
                Some(cert) => cert,
                None => return Ok(None),
            },
        };
        let key = match self.named(&self.params.sslkey, "PGSSLKEY") {
            Some(file) => existing("sslkey", file)?,
            None => self.default("postgresql.key").ok_or_else(|| {
                format!(
                    "the client certificate {} has no key: name it in sslkey (or put it in \
                     ~/.postgresql/postgresql.key)",
                    cert.display()
                )
            })?,
        };
        Ok(Some((cert, key)))
    }

    /// `sslnegotiation=direct`, else `PGSSLNEGOTIATION=direct`.
    fn direct(&self) -> Result<bool, String> {
        match self.params.direct {
            Some(direct) => Ok(direct),
            None => (self.var)("PGSSLNEGOTIATION")
                .map_or(Ok(false), |n| negotiation(&n, "PGSSLNEGOTIATION")),
        }
    }
}

/// A file a parameter names, which must be there.
fn existing(what: &str, file: String) -> Result<PathBuf, String> {
    let path = PathBuf::from(file);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => Ok(path),
        Ok(_) => Err(format!("{what}: {} is not a file", path.display())),
        Err(e) => Err(format!("{what}: {}: {e}", path.display())),
    }
}

/// What connecting to the URL takes: the driver's settings, TLS, and the bound on
/// connecting.
pub struct Settings {
    pub config: Config,
    pub tls: Tls,
    /// The hosts the URL names, for messages.
    pub hosts: String,
    /// `connect_timeout`, or [`CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
}

/// `url`'s settings (`shown`: the URL without its password, for messages): TLS as libpq
/// reads it (none over Unix sockets, as libpq), the password from `PGPASSWORD` or the
/// password file when the URL has none, the bound on connecting, and the keepalives
/// unless the URL sets its own.
pub fn settings(url: &str, shown: &str) -> Result<Settings, Failure> {
    let refused = |e: String| Failure::usage(format!("DATABASE: {shown}: {e}"));
    let params = Params::read(url).map_err(refused)?;
    let mut config: Config = for_driver(url)
        .parse()
        .map_err(|e: tokio_postgres::Error| {
            let e = with_causes(&e);
            Failure::usage(format!("DATABASE: {shown} is not a PostgreSQL URL: {e}"))
        })?;
    let tls = driver_tls(&mut config, &params).map_err(refused)?;
    if config.get_password().is_none() {
        if let Some(password) = std::env::var_os("PGPASSWORD") {
            config.password(password.to_string_lossy().as_bytes());
        } else if let Some(password) = pgpass(&config) {
            config.password(password);
        }
    }
    // The bound is the sync's deadline around the whole connection, whatever hosts the
    // URL names. The driver reads `connect_timeout` too, as a bound on each address's TCP
    // connect alone: it is set a second later, so that the sync's ends the wait first and
    // says what it waited for.
    let connect_timeout = params.connect_timeout.unwrap_or(CONNECT_TIMEOUT);
    config.connect_timeout(connect_timeout + Duration::from_secs(1));
    if !params.keepalives {
        config
            .keepalives(true)
            .keepalives_idle(KEEPALIVE_IDLE)
            .keepalives_interval(KEEPALIVE_INTERVAL)
            .keepalives_retries(KEEPALIVE_RETRIES);
    }
    Ok(Settings {
        hosts: hosts(&config),
        config,
        tls,
        connect_timeout,
    })
}

/// TLS as the URL and the variables ask, and the driver's part of it: its mode (the first
/// attempt's, for `allow`), the negotiation, `PGCHANNELBINDING` where the URL sets no
/// `channel_binding`. No TLS where every host is a Unix socket (libpq's rule).
fn driver_tls(config: &mut Config, params: &Params) -> Result<Tls, String> {
    let var = |name: &str| std::env::var(name).ok();
    let sockets_only = config
        .get_hosts()
        .iter()
        .all(|h| !matches!(h, Host::Tcp(_)));
    let tls = match sockets_only && config.get_hostaddrs().is_empty() {
        true => Tls::off(),
        false => Tls::read(params, &var)?,
    };
    config.ssl_mode(match tls.mode {
        SslMode::Disable | SslMode::Allow => DriverMode::Disable,
        SslMode::Prefer => DriverMode::Prefer,
        _ => DriverMode::Require,
    });
    if tls.direct {
        config.ssl_negotiation(SslNegotiation::Direct);
    }
    if let Some(binding) = var("PGCHANNELBINDING").filter(|_| !params.channel_binding) {
        config.channel_binding(channel_binding(&binding)?);
    }
    Ok(tls)
}

/// `PGCHANNELBINDING`'s value.
fn channel_binding(text: &str) -> Result<ChannelBinding, String> {
    match text {
        "disable" => Ok(ChannelBinding::Disable),
        "prefer" => Ok(ChannelBinding::Prefer),
        "require" => Ok(ChannelBinding::Require),
        _ => Err(format!(
            "PGCHANNELBINDING=`{text}` is none of disable, prefer, require"
        )),
    }
}

/// The hosts (and ports) the URL names: `db.internal:5432`.
fn hosts(config: &Config) -> String {
    let ports = config.get_ports();
    let port = |i: usize| ports.get(i).or(ports.first()).copied().unwrap_or(5432);
    let names: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| match h {
            Host::Tcp(name) => format!("{name}:{}", port(i)),
            #[cfg(unix)]
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    names.join(", ")
}

/// The password file's password for this host, port, database and user
/// (`hostname:port:database:username:password`, `*` for any; the first match wins).
fn pgpass(config: &Config) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or("").to_string();
    let database = config.get_dbname().unwrap_or(&user).to_string();
    pgpass_lookup(&text, [&host, &port, &database, &user])
}

fn pgpass_lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = split_pgpass(line);
            if fields.len() != 5 {
                return None;
            }
            let matches = fields[..4]
                .iter()
                .zip(wanted)
                .all(|(f, w)| f == "*" || f == w);
            matches.then(|| fields[4].clone())
        })
}

/// A line's fields: `:` separates, `\:` and `\\` escape.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().unwrap().extend(chars.next()),
            ':' => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// An error with the errors that caused it (the driver's own words name the kind, its
/// cause the system's: `error connecting to server: Connection refused`). None of them
/// holds a password: the driver's refusals name a URL's parameter, never its value.
pub fn with_causes(e: &dyn Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_file_matches_host_port_database_and_user() {
        let text = "# comment\n\
                    other:5432:fleet:sync:wrong\n\
                    db.local:5432:fleet:sync:s3cret\n\
                    *:*:*:sync:fallback\n\
                    db.local:5432:ops:esc\\:aped:p\\:w\n";
        assert_eq!(
            pgpass_lookup(text, ["db.local", "5432", "fleet", "sync"]).as_deref(),
            Some("s3cret")
        );
        assert_eq!(
            pgpass_lookup(text, ["x", "1", "y", "sync"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(
            pgpass_lookup(text, ["db.local", "5432", "ops", "esc:aped"]).as_deref(),
            Some("p:w")
        );
        assert_eq!(pgpass_lookup(text, ["x", "1", "y", "nobody"]), None);
    }

    #[test]
    fn connect_timeout_and_keepalives_are_read_from_the_query() {
        let read = |url: &str| Params::read(url);
        assert_eq!(read("postgres://h/db"), Ok(Params::default()));
        let p = read("postgres://u:p@h/db?sslmode=disable&connect_timeout=%35").unwrap();
        assert_eq!(p.connect_timeout, Some(Duration::from_secs(5)));
        assert!(!p.keepalives);
        assert!(
            read("postgres://h/db?keepalives_idle=30")
                .unwrap()
                .keepalives
        );
        let zero = read("postgres://h/db?connect_timeout=0").unwrap_err();
        assert!(
            zero.contains("connect_timeout=0") && zero.contains("without end"),
            "{zero}"
        );
        let bad = read("postgres://h/db?connect_timeout=soon").unwrap_err();
        assert!(bad.contains("`soon`"), "{bad}");
        // A broken escape in a parameter this tool does not read is the driver's to refuse,
        // and a password's value is never quoted.
        assert!(read("postgres://h/db?password=%zzs3cret").is_ok());
    }

    #[test]
    fn the_settings_bound_connecting_and_keep_the_connection_alive() {
        let s = settings("postgres://u:pw@127.0.0.1/db", "shown").unwrap();
        assert_eq!(s.connect_timeout, CONNECT_TIMEOUT);
        assert!(s.config.get_keepalives());
        assert_eq!(s.config.get_keepalives_idle(), KEEPALIVE_IDLE);
        let s = settings(
            "postgres://u:pw@127.0.0.1/db?connect_timeout=3&keepalives=0",
            "x",
        )
        .unwrap();
        assert_eq!(s.connect_timeout, Duration::from_secs(3));
        assert!(!s.config.get_keepalives(), "the URL's keepalives stand");
        let refused = settings("postgres://u:pw@127.0.0.1/db?connect_timeout=-1", "shown")
            .err()
            .unwrap();
        assert_eq!(refused.class, crate::exit::Class::Usage);
        assert!(
            refused
                .message
                .starts_with("DATABASE: shown: connect_timeout=-1")
        );
    }

    /// `Tls::read` of `url` with these variables.
    fn tls_of(url: &str, vars: &[(&str, &str)]) -> Result<Tls, String> {
        let params = Params::read(url)?;
        let var = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        Tls::read(&params, &var)
    }

    /// A HOME with `~/.postgresql/` holding `files`, and a file outside it.
    fn home(name: &str, files: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("libpq-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".postgresql")).unwrap();
        for file in files {
            std::fs::write(dir.join(".postgresql").join(file), "x").unwrap();
        }
        std::fs::write(dir.join("ca.pem"), "x").unwrap();
        dir
    }

    #[test]
    fn tls_modes_are_read_as_libpq_reads_them() {
        let plain = tls_of("postgres://h/db", &[]).unwrap();
        assert_eq!(
            (plain.mode, plain.verify()),
            (SslMode::Prefer, Verify::Nothing)
        );
        for mode in SslMode::ALL.into_iter().filter(|m| *m < SslMode::VerifyCa) {
            let url = format!("postgres://h/db?sslmode={}", mode.name());
            assert_eq!(tls_of(&url, &[]).unwrap().mode, mode);
        }
        let bad = tls_of("postgres://h/db?sslmode=verify", &[]).unwrap_err();
        assert!(
            bad.contains("sslmode=`verify`") && bad.contains("verify-full"),
            "{bad}"
        );
        // The URL over PGSSLMODE, PGSSLMODE over the default.
        let env = [("PGSSLMODE", "require")];
        assert_eq!(
            tls_of("postgres://h/db", &env).unwrap().mode,
            SslMode::Require
        );
        let url = "postgres://h/db?sslmode=disable";
        assert_eq!(tls_of(url, &env).unwrap(), Tls::off());
        assert!(
            tls_of("postgres://h/db", &[("PGSSLMODE", "on")])
                .unwrap_err()
                .contains("PGSSLMODE")
        );
    }

    #[test]
    fn the_checking_modes_need_their_roots_and_a_root_file_makes_require_check_the_chain() {
        let dir = home("roots", &[]);
        let ca = dir.join("ca.pem").display().to_string();
        let no_roots = tls_of("postgres://h/db?sslmode=verify-full", &[]).unwrap_err();
        assert!(no_roots.contains("sslrootcert=FILE"), "{no_roots}");
        let url = format!("postgres://h/db?sslmode=verify-ca&sslrootcert={ca}");
        let tls = tls_of(&url, &[]).unwrap();
        assert_eq!(
            (tls.verify(), tls.roots),
            (Verify::Chain, Some(Roots::File(ca.clone().into())))
        );
        let url = format!("postgres://h/db?sslmode=require&sslrootcert={ca}");
        assert_eq!(tls_of(&url, &[]).unwrap().verify(), Verify::Chain);
        let env = [("PGSSLROOTCERT", ca.as_str())];
        let tls = tls_of("postgres://h/db?sslmode=verify-full", &env).unwrap();
        assert_eq!(tls.verify(), Verify::ChainAndName);
        // ~/.postgresql/root.crt where nothing names a file.
        let with_root = home("default-root", &["root.crt"]);
        let h = with_root.display().to_string();
        let tls = tls_of("postgres://h/db?sslmode=require", &[("HOME", &h)]).unwrap();
        assert_eq!(tls.verify(), Verify::Chain);
        assert_eq!(
            tls.roots,
            Some(Roots::File(with_root.join(".postgresql/root.crt")))
        );
        let tls = tls_of(
            "postgres://h/db?sslmode=require",
            &[("HOME", &dir.display().to_string())],
        );
        assert_eq!(tls.unwrap().verify(), Verify::Nothing);
        // A file named must be there, whatever the mode.
        let missing = tls_of(
            "postgres://h/db?sslmode=require&sslrootcert=/nonexistent/ca.pem",
            &[],
        );
        assert!(
            missing
                .unwrap_err()
                .starts_with("sslrootcert: /nonexistent/ca.pem")
        );
    }

    #[test]
    fn system_roots_imply_verify_full_and_refuse_a_weaker_mode() {
        let tls = tls_of("postgres://h/db?sslrootcert=system", &[]).unwrap();
        assert_eq!(
            (tls.mode, tls.roots),
            (SslMode::VerifyFull, Some(Roots::System))
        );
        for weak in ["require", "verify-ca", "prefer", "disable"] {
            let url = format!("postgres://h/db?sslrootcert=system&sslmode={weak}");
            let refused = tls_of(&url, &[]).unwrap_err();
            assert!(
                refused.contains(&format!("sslmode={weak} is weaker")),
                "{refused}"
            );
        }
        let tls = tls_of("postgres://h/db", &[("PGSSLROOTCERT", "system")]).unwrap();
        assert_eq!(tls.mode, SslMode::VerifyFull);
    }

    #[test]
    fn client_files_come_from_the_url_the_variables_or_the_home_folder() {
        let dir = home("client", &["postgresql.crt", "postgresql.key"]);
        let h = dir.display().to_string();
        let pg = dir.join(".postgresql");
        let tls = tls_of("postgres://h/db", &[("HOME", &h)]).unwrap();
        assert_eq!(
            tls.client,
            Some((pg.join("postgresql.crt"), pg.join("postgresql.key")))
        );
        let ca = dir.join("ca.pem").display().to_string();
        let env = [("HOME", h.as_str()), ("PGSSLCERT", ca.as_str())];
        let tls = tls_of("postgres://h/db", &env).unwrap();
        assert_eq!(
            tls.client,
            Some((ca.clone().into(), pg.join("postgresql.key")))
        );
        let url = format!("postgres://h/db?sslcert={ca}&sslkey={ca}");
        let tls = tls_of(&url, &env).unwrap();
        assert_eq!(tls.client, Some((ca.clone().into(), ca.clone().into())));
        // A certificate without its key is refused, naming the certificate.
        let keyless = format!("postgres://h/db?sslcert={ca}");
        let refused = tls_of(&keyless, &[]).unwrap_err();
        assert!(
            refused.contains(&ca) && refused.contains("sslkey"),
            "{refused}"
        );
        // None at all: no client certificate.
        assert_eq!(tls_of("postgres://h/db", &[]).unwrap().client, None);
    }

    #[test]
    fn negotiation_sni_and_secrets() {
        let tls = tls_of(
            "postgres://h/db?sslmode=require&sslnegotiation=direct&sslsni=0",
            &[],
        );
        let tls = tls.unwrap();
        assert!(tls.direct && !tls.sni);
        let weak = tls_of("postgres://h/db?sslnegotiation=direct", &[]).unwrap_err();
        assert!(weak.contains("not prefer"), "{weak}");
        let env = [
            ("PGSSLNEGOTIATION", "direct"),
            ("PGSSLMODE", "verify-full"),
            ("PGSSLROOTCERT", "system"),
        ];
        assert!(tls_of("postgres://h/db", &env).unwrap().direct);
        let refused = Params::read("postgres://h/db?sslpassword=s3cret").unwrap_err();
        assert!(
            refused.contains("unencrypted") && !refused.contains("s3cret"),
            "{refused}"
        );
        assert!(
            Params::read("postgres://h/db?sslsni=yes")
                .unwrap_err()
                .contains("sslsni=`yes`")
        );
    }

    #[test]
    fn the_driver_never_sees_the_parameters_the_tool_reads() {
        assert_eq!(
            for_driver(
                "postgres://u@h/db?sslmode=verify-full&connect_timeout=3&sslrootcert=%2Fca.pem&ssl%6Dode=x"
            ),
            "postgres://u@h/db?connect_timeout=3"
        );
        assert_eq!(
            for_driver("postgres://u@h/db?sslmode=require"),
            "postgres://u@h/db"
        );
        assert_eq!(for_driver("postgres://u@h/db"), "postgres://u@h/db");
        let s = settings(
            "postgres://u:pw@db.local/db?sslmode=verify-full&sslrootcert=system",
            "x",
        )
        .unwrap();
        assert_eq!(s.config.get_ssl_mode(), DriverMode::Require);
        assert_eq!(s.hosts, "db.local:5432");
        // Over a Unix socket libpq uses no TLS, whatever the mode.
        let s = settings(
            "postgres://u@%2Frun%2Fpostgresql/db?sslmode=verify-full",
            "x",
        )
        .unwrap();
        assert_eq!(
            (s.tls.mode, s.config.get_ssl_mode()),
            (SslMode::Disable, DriverMode::Disable)
        );
        let s = settings("postgres://u@h/db?sslmode=allow", "x").unwrap();
        assert_eq!(
            s.config.get_ssl_mode(),
            DriverMode::Disable,
            "allow tries without TLS first"
        );
    }
}
