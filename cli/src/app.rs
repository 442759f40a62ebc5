//! The tool as a whole: `inspection [--profile NAME] [--quiet] <interface> <operation>`,
//! `inspection export <interface> FOLDER`, `inspection completions SHELL`; the generated
//! `main` hands over its interfaces and this runs one command line to its exit code.

use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use crate::command::{self, Operation};
use crate::credentials::Vars;
use crate::exit::{Class, Failure};
use crate::export;
use crate::flags;
use crate::sync::tenants::file::Tenant;

/// A command under way.
pub type Running<'a> = Pin<Box<dyn Future<Output = Result<(), Failure>> + 'a>>;

/// A sync under way, which says what it did.
pub type Synced<'a> = Pin<Box<dyn Future<Output = Result<crate::sync::Summary, Failure>> + 'a>>;

/// An interface of the spec, as the generated crate describes it.
pub struct Interface {
    pub name: &'static str,
    pub about: &'static str,
    pub operations: &'static [Operation],
    /// Runs one operation's subcommand.
    pub run: for<'a> fn(&'a Context, &'static Operation, &'a ArgMatches) -> Running<'a>,
    /// Makes one small authenticated call and says whether it worked.
    pub auth_check: for<'a> fn(&'a Context) -> Running<'a>,
    pub export: Option<Export>,
    pub sync: Option<Sync>,
    pub import: Option<Import>,
    pub mcp: Option<Mcp>,
}

/// An interface's operations as MCP tools.
pub struct Mcp {
    pub tools: &'static [crate::mcp::Tool],
    pub run: for<'a> fn(&'a Context, &'a crate::mcp::Options) -> Running<'a>,
}

/// An interface's import, as the spec's `import` declares it.
pub struct Import {
    /// What can be imported, for the help text.
    pub about: &'static str,
    /// Each target's name and what a row does, for the command tree.
    pub targets: &'static [(&'static str, &'static str)],
    pub run: for<'a> fn(&'a Context, &'a crate::import::Options) -> Running<'a>,
}

/// An interface's sync, as the spec's `sync` declares it.
pub struct Sync {
    /// What is synced, for the help text.
    pub about: &'static str,
    pub run: for<'a> fn(&'a Context, &'a crate::sync::Options) -> Synced<'a>,
}

/// An interface's export, as the spec's `export` declares it.
pub struct Export {
    /// What is exported (`every inspection ...`), for the help text.
    pub about: &'static str,
    /// The flag that saves each record's document too (`pdf`), when there is one.
    pub document_flag: Option<&'static str>,
    /// Whether records carry a pre-signed link to their document (`--documents-from`).
    pub document_link: bool,
    pub run: for<'a> fn(&'a Context, &'a export::Options) -> Running<'a>,
}

/// What every command of a run shares: where credentials come from, and the pace.
pub struct Context {
    pub vars: Vars,
    /// `--rate-limit`: `None` keeps the interface's documented quota.
    pub rate_limit: Option<RateLimit>,
    /// How long a request waits for its answer (the import's `--timeout`); `None`
    /// keeps the client's default.
    pub timeout: Option<std::time::Duration>,
    /// The pacers every client of the run takes (one per base URL): the service's quota
    /// is per client address, so clients with other credentials (`sync --tenants`)
    /// share it.
    pub pacing: inspection_runtime::SharedPacing,
}

pub use crate::pace::RateLimit;

impl Context {
    /// A core for a dry run's previews: the base URL from `base_url_var`, and `headers`
    /// as the credentials (`(name, value, sensitive)`: placeholders for secrets, which a
    /// dry run never reads); nothing logs in.
    pub fn dry_core(
        &self,
        base_url_var: &str,
        headers: &[(&'static str, String, bool)],
        config: inspection_runtime::Config,
    ) -> Result<inspection_runtime::Core, inspection_runtime::Error> {
        let base_url = self.vars.get(base_url_var)?;
        let borrowed: Vec<(&'static str, &str, bool)> = headers
            .iter()
            .map(|(name, value, sensitive)| (*name, value.as_str(), *sensitive))
            .collect();
        let auth = inspection_runtime::__private::Auth::headers(&borrowed)
            .map_err(inspection_runtime::Error::Config)?;
        inspection_runtime::Core::new(&base_url, auth, self.config(config))
    }

    /// `config` with this run's pace.
    pub fn config(&self, config: inspection_runtime::Config) -> inspection_runtime::Config {
        let config = config.share_pacing(self.pacing.clone());
        let config = match self.timeout {
            Some(timeout) => config.timeout(timeout),
            None => config,
        };
        match self.rate_limit {
            None => config,
            Some(RateLimit::Off) => config.no_pacing(),
            Some(RateLimit::Limit(n, window)) => config.rate_limit(n, window),
        }
    }
}

/// The name of the subcommand that checks credentials; the generator keeps operations
/// off it.
pub const AUTH_CHECK: &str = "auth-check";

/// The whole command tree.
pub fn command(
    name: &'static str,
    version: &'static str,
    interfaces: &'static [Interface],
) -> Command {
    let mut root = Command::new(name)
        .version(version)
        .about("Every operation of the inspection service's interfaces from the shell, and an export that survives being killed")
        .after_help(Class::table())
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new(flags::PROFILE)
                .long(flags::PROFILE)
                .global(true)
                .value_name("NAME")
                .help("Read credentials from this profile (see docs/cli.md) before the environment"),
        )
        .arg(
            Arg::new(flags::RATE_LIMIT)
                .long(flags::RATE_LIMIT)
                .global(true)
                .value_name("N/SECS")
                .help("Pace requests to N per SECS seconds (the documented quota unless given; `off` for none)"),
        )
        .arg(log_format_flag())
        .arg(
            Arg::new(flags::QUIET)
                .long(flags::QUIET)
                .short('q')
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Show no progress"),
        );
    for i in interfaces {
        root = root.subcommand(
            command::interface(i.name, i.about, i.operations).subcommand(
                Command::new(AUTH_CHECK).about("Say whether the credentials work (one small call)"),
            ),
        );
    }
    root.subcommand(export_command(interfaces))
        .subcommand(crate::sync::command::command(
            interfaces
                .iter()
                .filter_map(|i| Some((i.name, i.sync.as_ref()?.about))),
        ))
        .subcommand(crate::import::command::command(
            interfaces.iter().filter_map(|i| {
                let import = i.import.as_ref()?;
                Some((i.name, import.about, import.targets.to_vec()))
            }),
        ))
        .subcommand(crate::mcp::command::command(
            interfaces
                .iter()
                .filter(|i| i.mcp.is_some())
                .map(|i| (i.name, i.about)),
        ))
        .subcommand(
            Command::new("describe")
                .hide(true)
                .about("Print every interface's operations and their flags as JSON (for tools)"),
        )
        .subcommand(
            Command::new("completions")
                .about("Print a completion script for a shell")
                .arg(
                    Arg::new("shell")
                        .required(true)
                        .value_parser(value_parser!(clap_complete::Shell)),
                ),
        )
}

/// `--log-format`, on every command.
fn log_format_flag() -> Arg {
    Arg::new(flags::LOG_FORMAT)
        .long(flags::LOG_FORMAT)
        .global(true)
        .value_name("FORMAT")
        .value_parser(["text", "json"])
        .help("How the client's events and the final error go to stderr: text (the default: the error's line alone) or json (one JSON object a line: each attempt's answer, retries and why, waits, failures, and the error)")
}

/// `export`, with a subcommand per interface that declares an export.
fn export_command(interfaces: &'static [Interface]) -> Command {
    let mut export = Command::new("export")
        .about("Export every record of an interface into a folder; run again to resume or, with --since last, to add what is new")
        .subcommand_required(true);
    for i in interfaces {
        let Some(e) = &i.export else { continue };
        let mut cmd = Command::new(i.name)
            .about(e.about)
            .arg(
                Arg::new("folder")
                    .required(true)
                    .value_name("FOLDER")
                    .value_parser(value_parser!(PathBuf))
                    .help("Where the records, documents and checkpoint go"),
            )
            .arg(
                Arg::new("page-size")
                    .long("page-size")
                    .value_name("N")
                    .value_parser(value_parser!(u32).range(1..))
                    .help("Records a page (default: the largest the list takes)"),
            )
            .arg(Arg::new("since").long("since").value_name("WHEN").help(
                "`last` (what came after the previous finished export), or a date or date-time",
            ))
            .arg(
                Arg::new("restart")
                    .long("restart")
                    .action(ArgAction::SetTrue)
                    .help("Start over in this folder: its records and checkpoint are set aside (renamed, not deleted); whole documents are kept"),
            );
        if let Some(flag) = e.document_flag {
            cmd = cmd.arg(
                Arg::new("documents")
                    .long(flag)
                    .action(ArgAction::SetTrue)
                    .help(format!("Save each record's {flag} too")),
            );
        }
        if e.document_link {
            cmd = export::documents::link_flags(cmd);
        }
        export = export.subcommand(cmd);
    }
    export
}

/// Runs the command line of this process and gives its exit code.
pub fn main(
    name: &'static str,
    version: &'static str,
    interfaces: &'static [Interface],
) -> ExitCode {
    let matches = match command(name, version, interfaces).try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                Class::Usage.code()
            } else {
                0
            });
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(name, &Failure::new(Class::Failure, e.to_string())),
    };
    let rate_limit = match matches
        .get_one::<String>(flags::RATE_LIMIT)
        .map(|t| RateLimit::parse(t))
    {
        None => None,
        Some(Ok(limit)) => Some(limit),
        Some(Err(e)) => return fail(name, &Failure::usage(format!("--rate-limit: {e}"))),
    };
    let log_format = matches
        .get_one::<String>(flags::LOG_FORMAT)
        .map_or(Ok(crate::logs::LogFormat::Text), |t| {
            crate::logs::LogFormat::parse(t)
        });
    let log_format = match log_format {
        Ok(format) => format,
        Err(e) => return fail(name, &Failure::usage(format!("--log-format: {e}"))),
    };
    if log_format == crate::logs::LogFormat::Json {
        crate::logs::install_json();
    }
    let cx = Context {
        vars: Vars::from_process(
            matches
                .get_one::<String>(flags::PROFILE)
                .map(String::as_str),
        ),
        rate_limit,
        timeout: crate::import::command::timeout(&matches),
        pacing: inspection_runtime::SharedPacing::new(),
    };
    match runtime.block_on(dispatch(name, version, interfaces, &cx, &matches)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if log_format == crate::logs::LogFormat::Json => {
            crate::logs::failure_line(&failure);
            ExitCode::from(failure.class.code())
        }
        Err(failure) => fail(name, &failure),
    }
}

fn fail(name: &str, failure: &Failure) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{name}: error ({}): {failure}", failure.class.name());
    ExitCode::from(failure.class.code())
}

async fn dispatch(
    name: &'static str,
    version: &'static str,
    interfaces: &'static [Interface],
    cx: &Context,
    matches: &ArgMatches,
) -> Result<(), Failure> {
    let Some((sub, m)) = matches.subcommand() else {
        return Err(Failure::usage("no command given; see --help"));
    };
    match sub {
        "completions" => {
            let shell = *m
                .get_one::<clap_complete::Shell>("shell")
                .ok_or_else(|| Failure::usage("completions: name a shell"))?;
            let mut cmd = command(name, version, interfaces);
            clap_complete::generate(shell, &mut cmd, name, &mut std::io::stdout());
            Ok(())
        }
        "describe" => crate::output::Printer::for_stdout().print(&describe(interfaces)),
        "export" => export(interfaces, cx, m, matches.get_flag(flags::QUIET)).await,
        "sync" => sync(interfaces, cx, m, matches.get_flag(flags::QUIET), version).await,
        "import" => import(interfaces, cx, m, matches.get_flag(flags::QUIET)).await,
        "mcp" => {
            let (mcp, m) = tool_of(interfaces, m, "mcp", |i| i.mcp.as_ref())?;
            (mcp.run)(cx, &crate::mcp::command::options(m)?).await
        }
        interface => {
            let Some(i) = interfaces.iter().find(|i| i.name == interface) else {
                return Err(Failure::usage(format!("no interface `{interface}`")));
            };
            let Some((op_name, m)) = m.subcommand() else {
                return Err(Failure::usage(format!("{interface}: name an operation")));
            };
            if op_name == AUTH_CHECK {
                return (i.auth_check)(cx).await;
            }
            let op = command::find(i.operations, op_name)
                .ok_or_else(|| Failure::usage(format!("no operation `{op_name}`")))?;
            (i.run)(cx, op, m).await
        }
    }
}

/// The tool `what` (export, sync) of the interface `m` names, and that subcommand's
/// matches.
fn tool_of<'m, T>(
    interfaces: &'static [Interface],
    m: &'m ArgMatches,
    what: &str,
    tool: fn(&'static Interface) -> Option<&'static T>,
) -> Result<(&'static T, &'m ArgMatches), Failure> {
    let Some((interface, m)) = m.subcommand() else {
        return Err(Failure::usage(format!("{what}: name an interface")));
    };
    match interfaces
        .iter()
        .find(|i| i.name == interface)
        .and_then(tool)
    {
        Some(t) => Ok((t, m)),
        None => Err(Failure::usage(format!("`{interface}` has no {what}"))),
    }
}

/// `export <interface> FOLDER`.
async fn export(
    interfaces: &'static [Interface],
    cx: &Context,
    m: &ArgMatches,
    quiet: bool,
) -> Result<(), Failure> {
    let (e, m) = tool_of(interfaces, m, "export", |i| i.export.as_ref())?;
    let since = match m.get_one::<String>("since") {
        Some(text) => {
            export::Since::parse(text).map_err(|e| Failure::usage(format!("--since: {e}")))?
        }
        None => export::Since::All,
    };
    let options = export::Options {
        folder: m
            .get_one::<PathBuf>("folder")
            .cloned()
            .ok_or_else(|| Failure::usage("export: name a folder"))?,
        documents: m
            .try_get_one::<bool>("documents")
            .ok()
            .flatten()
            .copied()
            .unwrap_or(false),
        since,
        progress: if quiet {
            export::progress::Style::Quiet
        } else {
            export::progress::Style::Auto
        },
        max_restarts: 5,
        restart: m.get_flag("restart"),
        page_size: m.get_one::<u32>("page-size").copied(),
        links: export::documents::link_options(m)?,
    };
    (e.run)(cx, &options).await
}

/// `sync <interface> DATABASE`.
async fn sync(
    interfaces: &'static [Interface],
    cx: &Context,
    m: &ArgMatches,
    quiet: bool,
    version: &'static str,
) -> Result<(), Failure> {
    if let Some((crate::sync::command::STATUS, m)) = m.subcommand() {
        return crate::sync::status::run(m).await;
    }
    if let Some(options) = crate::sync::tenants::options(m, quiet, version)? {
        let start = |tenant: &Tenant, options| start_tenant(interfaces, cx, tenant, options);
        return crate::sync::tenants::run(&options, &start).await;
    }
    let (s, m) = tool_of(interfaces, m, "sync", |i| i.sync.as_ref())?;
    let mut options = crate::sync::command::options(m, quiet)?;
    options.tool_version = version;
    let summary = (s.run)(cx, &options).await?;
    crate::output::Printer::for_stdout().print(&summary)
}

/// One tenant's sync of `sync --tenants`: its interface's, with a client made from the
/// tenant's profile (the environment filling its gaps) on the run's shared pacers.
fn start_tenant(
    interfaces: &'static [Interface],
    cx: &Context,
    tenant: &Tenant,
    options: crate::sync::Options,
) -> Result<crate::sync::tenants::Running, Failure> {
    let Some(sync) = (interfaces.iter())
        .find(|i| i.name == tenant.interface)
        .and_then(|i| i.sync.as_ref())
    else {
        let synced: Vec<&str> = (interfaces.iter())
            .filter(|i| i.sync.is_some())
            .map(|i| i.name)
            .collect();
        return Err(Failure::usage(format!(
            "{}: tenant `{}`: `{}` is no interface with a sync (those with one: {})",
            tenant.interface_at,
            tenant.name,
            tenant.interface,
            synced.join(", ")
        )));
    };
    let cx = Context {
        vars: Vars::from_process(Some(&tenant.profile)),
        rate_limit: cx.rate_limit,
        timeout: cx.timeout,
        pacing: cx.pacing.clone(),
    };
    Ok(Box::pin(async move { (sync.run)(&cx, &options).await }))
}

/// `import <interface> <target> FILE`.
async fn import(
    interfaces: &'static [Interface],
    cx: &Context,
    m: &ArgMatches,
    quiet: bool,
) -> Result<(), Failure> {
    let (i, m) = tool_of(interfaces, m, "import", |i| i.import.as_ref())?;
    let Some((target, m)) = m.subcommand() else {
        return Err(Failure::usage("import: name what to import"));
    };
    let options = crate::import::command::options(target, m, quiet)?;
    (i.run)(cx, &options).await
}

/// The line `auth-check` prints when the credentials work.
pub fn auth_ok(interface: &str, base_url: &str) -> Result<(), Failure> {
    crate::output::Printer::for_stdout().print(&serde_json::json!({
        "interface": interface,
        "base_url": base_url,
        "credentials": "accepted",
    }))
}

/// `inspection describe`: each operation's subcommand and flags, by the spec's names (a
/// conformance runner turns a scenario's arguments into flags with it).
fn describe(interfaces: &[Interface]) -> serde_json::Value {
    let ops = |i: &Interface| -> Vec<serde_json::Value> {
        i.operations
            .iter()
            .map(|op| {
                let params: Vec<serde_json::Value> = op
                    .params
                    .iter()
                    .map(|p| {
                        serde_json::json!({
                            "flag": p.flag,
                            "name": p.name,
                            "place": p.place.name(),
                            "kind": p.kind.name(),
                            "required": p.required,
                        })
                    })
                    .collect();
                let (answer, alternative) = op.answer.name();
                let body = match op.body {
                    crate::command::Body::None => None,
                    crate::command::Body::Json { .. } => Some("json"),
                    crate::command::Body::Bytes => Some("bytes"),
                };
                serde_json::json!({
                    "name": op.name,
                    "command": op.command,
                    "params": params,
                    "body": body,
                    "answer": answer,
                    "alternative": alternative,
                })
            })
            .collect()
    };
    interfaces
        .iter()
        .map(|i| (i.name.to_string(), serde_json::Value::Array(ops(i))))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[cfg(test)]
mod tests {
    /// The values people type after a flag, and the database URL, fuzzed: random text
    /// made from valid values by random edits, with a fixed seed (`FUZZ_ITERATIONS=N` runs
    /// longer). Nothing panics, and a refusal says what it wanted (the command line
    /// prefixes the flag's name).
    #[test]
    fn flag_values_and_database_urls_never_panic_and_say_what_they_want() {
        let n: usize = std::env::var("FUZZ_ITERATIONS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000);
        let bases = [
            "100/10",
            "off",
            "2026-11-29T08:00:00Z",
            "2026-11-29",
            "last",
            "7d",
            "12h30m",
            "postgres://sync:p%40ss@db.internal:5432/fleet?sslmode=disable",
            "postgres://sync:p%40ss@db.internal/fleet?connect_timeout=10&keepalives_idle=30",
            "postgres://sync@db/fleet?sslmode=verify-full&sslrootcert=system&sslpassword=p%40ss",
            "postgres://sync@db/fleet?sslmode=require&sslnegotiation=direct&sslsni=0&sslcert=c",
            "30s",
            "sqlite:fleet.db",
            "fleet.db",
            "link",
        ];
        let mut state = 0x5eed_f1a6_u64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below.max(1) as u64) as usize
        };
        for case in 0..n {
            let text = edited(bases[next(bases.len())], &mut next);
            // A database URL's refusal never shows its password (the other flags quote
            // what they were given: no secret goes there).
            if let Err(refusal) = crate::sync::target::Target::parse(&text) {
                assert!(
                    !refusal.contains("p%40ss") && !refusal.contains("p@ss"),
                    "case {case}: a refusal shows the password: {refusal}"
                );
            }
            #[cfg(feature = "postgres")]
            match crate::sync::libpq::Params::read(&text) {
                Err(refusal) => assert!(
                    !refusal.contains("p%40ss") && !refusal.contains("p@ss"),
                    "case {case}: a parameter's refusal shows the password: {refusal}"
                ),
                // What the TLS parameters come to (no variable set) never panics either;
                // a refusal names a file the URL gave (an edit may have joined the
                // password's text to one), never anything else's value.
                Ok(params) => {
                    let files = [&params.sslrootcert, &params.sslcert, &params.sslkey];
                    let secret_in_a_file = files
                        .iter()
                        .any(|f| f.as_deref().is_some_and(|f| f.contains("p@ss")));
                    let tls = crate::sync::libpq::Tls::read(&params, &|_| None);
                    if let (Err(refusal), false) = (tls, secret_in_a_file) {
                        assert!(
                            !refusal.contains("p%40ss") && !refusal.contains("p@ss"),
                            "case {case}: a TLS refusal shows the password: {refusal}"
                        );
                    }
                }
            }
            let refusals = [
                crate::pace::RateLimit::parse(&text).err(),
                crate::export::Since::parse(&text).err(),
                crate::sync::command::duration(&text).err(),
                crate::sync::command::bound(&text).err(),
                crate::sync::target::Target::parse(&text).err(),
                crate::export::documents::DocumentsFrom::parse(&text).err(),
                crate::import::Format::parse(&text).err(),
            ];
            for refusal in refusals.into_iter().flatten() {
                assert!(
                    !refusal.trim().is_empty(),
                    "case {case}: `{text}` refused without a word"
                );
            }
        }
    }

    /// `base` with one to three random edits: cut, a piece inserted, a few characters
    /// dropped.
    fn edited(base: &str, next: &mut impl FnMut(usize) -> usize) -> String {
        let pieces = [
            "/",
            ":",
            "@",
            "%",
            "%zz",
            "-",
            "0",
            "9999999999999999999999",
            "T",
            "Z",
            "+",
            ".",
            "?",
            "=",
            "é",
            " ",
            "",
        ];
        let mut text: Vec<char> = base.chars().collect();
        for _ in 0..=next(3) {
            let at = next(text.len() + 1);
            match next(3) {
                0 => text.truncate(at),
                1 => text
                    .splice(at..at, pieces[next(pieces.len())].chars())
                    .for_each(drop),
                _ => {
                    let end = (at + next(4)).min(text.len());
                    text.drain(at..end);
                }
            }
        }
        text.into_iter().collect()
    }
}
