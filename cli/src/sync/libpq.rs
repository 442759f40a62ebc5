//! A `postgres://` URL's settings, read as libpq reads them: the driver parses the URL,
//! [`Params`] holds the parameters this tool reads itself (the one place where more of
//! libpq's, such as `sslmode` and `sslrootcert`, are added), and the password comes from
//! the URL, `PGPASSWORD` or the password file (`PGPASSFILE`, else `~/.pgpass`).

use std::error::Error;
use std::path::PathBuf;
use std::time::Duration;

use tokio_postgres::Config;

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

/// The parameters of the URL's query this tool reads itself; the driver reads them all
/// again (and refuses one it does not know).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// `connect_timeout`: whole seconds, at least 1.
    pub connect_timeout: Option<Duration>,
    /// Whether the URL sets any of `keepalives`, `keepalives_idle`, `keepalives_interval`,
    /// `keepalives_retries` (then its settings stand, the defaults above are not applied).
    pub keepalives: bool,
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
            match decoded(key).as_deref() {
                Some("connect_timeout") => {
                    params.connect_timeout = Some(connect_timeout(value)?);
                }
                Some(
                    "keepalives" | "keepalives_idle" | "keepalives_interval" | "keepalives_retries",
                ) => params.keepalives = true,
                _ => {}
            }
        }
        Ok(params)
    }
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

/// What connecting to the URL takes: the driver's settings, and the bound on connecting.
pub struct Settings {
    pub config: Config,
    /// `connect_timeout`, or [`CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
}

/// `url`'s settings (`shown`: the URL without its password, for messages): the password
/// from `PGPASSWORD` or the password file when the URL has none, the bound on connecting,
/// and the keepalives unless the URL sets its own.
pub fn settings(url: &str, shown: &str) -> Result<Settings, Failure> {
    let refused = |e: String| Failure::usage(format!("DATABASE: {shown}: {e}"));
    let params = Params::read(url).map_err(refused)?;
    let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| {
        let e = with_causes(&e);
        Failure::usage(format!("DATABASE: {shown} is not a PostgreSQL URL: {e}"))
    })?;
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
        config,
        connect_timeout,
    })
}

/// The password file's password for this host, port, database and user
/// (`hostname:port:database:username:password`, `*` for any; the first match wins).
fn pgpass(config: &Config) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
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
}
