//! `inspection sync <interface> DATABASE`: its flags, and the options they make.

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use super::deadline::DB_TIMEOUT;
use super::target::Target;
use super::{LOOKBACK, Options};
use crate::exit::Failure;
use crate::export::progress::Style;

/// `sync`, with a subcommand per interface that declares a sync, given as its name and
/// what it syncs.
pub fn command(interfaces: impl Iterator<Item = (&'static str, &'static str)>) -> Command {
    let sync = Command::new("sync")
        .about("Keep an interface's records in your database (SQLite file or PostgreSQL), in tables made from the spec; run again to bring what changed")
        .subcommand(status_command());
    let mut sync = tenants_flags(sync);
    for (name, about) in interfaces {
        // How `--documents` takes each document: the export's flags.
        sync = sync.subcommand(crate::export::documents::link_flags(
            Command::new(name)
                .about(about)
                .arg(
                    Arg::new("database")
                        .required(true)
                        .value_name("DATABASE")
                        .help("A SQLite file (fleet.db, sqlite:PATH), made on the first run, or a postgres:// URL"),
                )
                .arg(
                    Arg::new("schema")
                        .long("schema")
                        .value_name("NAME")
                        .help("PostgreSQL: the schema the tool's tables and state go in, made when missing (default: the connection's current schema, as its search_path gives it); each schema is a sync of its own, a lock each, so several can run at once into one database"),
                )
                .arg(
                    Arg::new("only")
                        .long("only")
                        .value_name("LIST,...")
                        .value_delimiter(',')
                        .action(ArgAction::Append)
                        .help("Only these lists, by table name (inspections,tasks)"),
                )
                .arg(
                    Arg::new("lookback")
                        .long("lookback")
                        .value_name("DURATION")
                        .help("How far before the newest record a list that sees only new records is read again, for changes (default 7d; 12h, 30m, 0)"),
                )
                .arg(
                    Arg::new("reconcile")
                        .long("reconcile")
                        .action(ArgAction::SetTrue)
                        .help("Walk every list whole, updating every record and marking those no longer listed"),
                )
                .arg(
                    Arg::new("rebuild")
                        .long("rebuild")
                        .action(ArgAction::SetTrue)
                        .help("Drop this tool's tables and sync everything again (after a change of tables this version cannot migrate)"),
                )
                .arg(
                    Arg::new("db-timeout")
                        .long("db-timeout")
                        .value_name("DURATION")
                        .help("The longest wait for one answer of the database (a statement's, a commit's) or for a lock another process holds on a SQLite file; past it the run stops with exit 10 (default 5m; 30s, 2h). Connecting to PostgreSQL has the URL's connect_timeout (seconds, default 30)"),
                )
                .arg(
                    Arg::new("documents")
                        .long("documents")
                        .value_name("DIR")
                        .value_parser(value_parser!(std::path::PathBuf))
                        .help("Save each record's document (an inspection's PDF) under DIR/documents, its path in the row's _document"),
                )
                .arg(
                    Arg::new("page-size")
                        .long("page-size")
                        .value_name("N")
                        .value_parser(value_parser!(u32).range(1..))
                        .help("Records a page (default: the largest each list takes)"),
                ),
        ));
    }
    sync
}

/// `sync --tenants FILE` and the flags that go with it, beside the subcommands.
fn tenants_flags(sync: Command) -> Command {
    sync
        .arg_required_else_help(true)
        .args_conflicts_with_subcommands(true)
        .arg(
            Arg::new("tenants")
                .long("tenants")
                .value_name("FILE")
                .value_parser(value_parser!(std::path::PathBuf))
                .help("Sync several companies at once under the one quota of this host: a TOML file of [[tenant]] tables (name, interface, profile, database, schema, TLS files; see docs/sync.md); exit 12 when some tenants failed"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["text", "json"])
                .requires("tenants")
                .help("With --tenants: each tenant's summary as text lines (the default) or one JSON document (json)"),
        )
        .arg(
            Arg::new("db-timeout")
                .long("db-timeout")
                .value_name("DURATION")
                .requires("tenants")
                .help("With --tenants: the longest wait for one answer of any tenant's database (default 5m)"),
        )
}

/// The options of `sync <interface>`'s matches.
pub fn options(m: &ArgMatches, quiet: bool) -> Result<Options, Failure> {
    let database = m
        .get_one::<String>("database")
        .ok_or_else(|| Failure::usage("sync: name a database"))?;
    let target = Target::parse(database).map_err(|e| Failure::usage(format!("DATABASE: {e}")))?;
    let lookback = match m.get_one::<String>("lookback") {
        Some(text) => duration(text).map_err(|e| Failure::usage(format!("--lookback: {e}")))?,
        None => LOOKBACK,
    };
    let db_timeout = db_timeout(m)?;
    let schema = m
        .get_one::<String>("schema")
        .map(|name| schema_name(name).map_err(|e| Failure::usage(format!("--schema: {e}"))))
        .transpose()?;
    Ok(Options {
        target,
        schema,
        only: m
            .get_many::<String>("only")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        lookback,
        reconcile: m.get_flag("reconcile"),
        rebuild: m.get_flag("rebuild"),
        db_timeout,
        page_size: m.get_one::<u32>("page-size").copied(),
        progress: if quiet { Style::Quiet } else { Style::Auto },
        max_restarts: 5,
        documents: m.get_one::<std::path::PathBuf>("documents").cloned(),
        links: crate::export::documents::link_options(m)?,
        tool_version: env!("CARGO_PKG_VERSION"),
        label: None,
    })
}

/// `sync status DATABASE`: each list's last successful sync and its age.
pub fn status_command() -> Command {
    Command::new(STATUS)
        .about("Say each list's last successful sync and its age, from the database's run history (_sync_runs); with --max-age, exit 11 when a list is older")
        .arg(
            Arg::new("database")
                .required(true)
                .value_name("DATABASE")
                .help("A SQLite file (fleet.db, sqlite:PATH) or a postgres:// URL a sync writes to; read, never written"),
        )
        .arg(
            Arg::new("schema")
                .long("schema")
                .value_name("NAME")
                .help("PostgreSQL: the schema the sync writes to (default: the connection's current schema)"),
        )
        .arg(
            Arg::new("max-age")
                .long("max-age")
                .value_name("DURATION")
                .help("The oldest a list's last successful sync may be (30m, 12h, 2d): an older list, or one never synced, ends the command with exit 11 (stale)"),
        )
        .arg(
            Arg::new("db-timeout")
                .long("db-timeout")
                .value_name("DURATION")
                .help("The longest wait for one answer of the database (default 5m)"),
        )
}

/// The name of `sync`'s own subcommand beside the interfaces'.
pub const STATUS: &str = "status";

/// A PostgreSQL schema's name as `--schema` takes it: kept as written (quoted in every
/// statement, so letters keep their case), at most 63 bytes (PostgreSQL would cut a
/// longer one), without a zero byte, and not `pg_...` (the system's).
pub fn schema_name(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("name a schema".into());
    }
    if name.len() > 63 {
        return Err(format!(
            "`{name}` is {} bytes long; PostgreSQL's names take 63 at most",
            name.len()
        ));
    }
    if name.contains('\0') {
        return Err("a schema's name holds no zero byte".into());
    }
    if name.to_ascii_lowercase().starts_with("pg_") {
        return Err(format!(
            "`{name}`: names starting with pg_ are PostgreSQL's own"
        ));
    }
    Ok(name.to_string())
}

/// `--db-timeout`, of `sync`, `sync status` and `sync --tenants`: the default when not given.
pub fn db_timeout(m: &ArgMatches) -> Result<std::time::Duration, Failure> {
    match m.get_one::<String>("db-timeout") {
        Some(text) => bound(text).map_err(|e| Failure::usage(format!("--db-timeout: {e}"))),
        None => Ok(DB_TIMEOUT),
    }
}

/// A bound on a wait: a [`duration`] other than 0 (the sync never waits without end).
pub fn bound(text: &str) -> Result<std::time::Duration, String> {
    match duration(text)? {
        std::time::Duration::ZERO => Err(format!(
            "`{text}`: the sync never waits without end; give a duration (30s, 5m, 2h)"
        )),
        bound => Ok(bound),
    }
}

/// `7d`, `12h`, `30m`, `45s`, or `0`.
pub fn duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    if text == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (count, unit) = text.split_at(split);
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => 0,
    };
    match count.parse::<u64>().ok().and_then(|n| n.checked_mul(unit)) {
        Some(secs) if unit > 0 => Ok(std::time::Duration::from_secs(secs)),
        _ => Err(format!(
            "`{text}` is not a duration: a whole number and s, m, h or d (7d, 12h), or 0"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit() {
        assert_eq!(duration("7d").unwrap().as_secs(), 604_800);
        assert_eq!(duration("12h").unwrap().as_secs(), 43_200);
        assert_eq!(duration("0").unwrap().as_secs(), 0);
        assert!(duration("7").unwrap_err().contains("`7`"));
        assert!(duration("a week").is_err());
        assert!(duration("99999999999999999999d").is_err());
        assert_eq!(bound("30s").unwrap().as_secs(), 30);
        assert!(bound("0").unwrap_err().contains("never waits without end"));
        assert!(bound("soon").unwrap_err().contains("not a duration"));
    }

    #[test]
    fn schema_names_are_taken_as_written_within_postgresql_s_limits() {
        assert_eq!(schema_name("Acme Fleet").unwrap(), "Acme Fleet");
        assert_eq!(schema_name("a\"b").unwrap(), "a\"b");
        assert!(schema_name("").is_err());
        assert!(
            schema_name(&"x".repeat(64))
                .unwrap_err()
                .contains("64 bytes")
        );
        assert!(schema_name(&"x".repeat(63)).is_ok());
        assert!(schema_name("PG_toast").unwrap_err().contains("pg_"));
        assert!(schema_name("a\0b").is_err());
    }
}
