//! `inspection import <interface> <target> FILE`: its flags, and the options they make.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use super::{Format, Options, ResultsFormat};
use crate::exit::Failure;
use crate::export::progress::Style;

/// Rows in flight at once by default: enough to keep to the quota when each answer takes
/// a while, few enough that a kill leaves little in doubt.
pub const CONCURRENCY: usize = 4;

/// `import`, with a subcommand per interface that declares an import, given as its name,
/// what it imports and its targets (name, what a row does).
pub fn command(
    interfaces: impl Iterator<
        Item = (
            &'static str,
            &'static str,
            Vec<(&'static str, &'static str)>,
        ),
    >,
) -> Command {
    let mut import = Command::new("import")
        .about("Send each row of a CSV or JSON Lines file to an operation, every row checked first, each applied once; run again to resume")
        .subcommand_required(true);
    for (name, about, targets) in interfaces {
        let mut interface = Command::new(name).about(about).subcommand_required(true);
        for (target, doc) in targets {
            interface = interface.subcommand(flags(Command::new(target).about(doc)));
        }
        import = import.subcommand(interface);
    }
    import
}

fn flags(cmd: Command) -> Command {
    let switch = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    cmd.arg(
        Arg::new("file")
            .required(true)
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .help("The rows: CSV with a header row (.csv) or one JSON object a line (.jsonl)"),
    )
    .arg(
        Arg::new("format")
            .long("format")
            .value_name("csv|jsonl")
            .help("The file's format, when its name does not say"),
    )
    .arg(
        Arg::new("map")
            .long("map")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .help("Rename the file's columns: one `File column = field` a line (`= -` leaves one out)"),
    )
    .arg(switch("check", "Check every row and send nothing"))
    .arg(switch(crate::flags::DRY_RUN, "Check every row, then print each row's request instead of sending it"))
    .arg(switch("skip-invalid", "Send the valid rows even when others are invalid (each listed, and failed in the results)"))
    .arg(switch("resend-unknown", "Send again a row whose request may have been applied (no answer came) and that cannot be found"))
    .arg(switch("force", "Send every row, even one unchanged since the last import of its key"))
    .arg(switch("restart", "Give up an unfinished import of another file into this target and begin this one"))
    .arg(
        Arg::new("results-format")
            .long("results-format")
            .value_name("jsonl|csv")
            .help("The results file's format (default jsonl)"),
    )
    .arg(
        Arg::new("journal")
            .long("journal")
            .value_name("DIR")
            .value_parser(value_parser!(PathBuf))
            .help("Where the journal is kept (default: .inspection-import/<interface>-<target> beside the file)"),
    )
    .arg(
        Arg::new("concurrency")
            .long("concurrency")
            .value_name("N")
            .value_parser(value_parser!(u32).range(1..=64))
            .help("Requests in flight at once (default 4), within the pace"),
    )
    .arg(
        Arg::new("timeout")
            .long("timeout")
            .value_name("SECS")
            .value_parser(value_parser!(f64))
            .help("Give up waiting for an answer after SECS seconds (the client's default unless given)"),
    )
}

/// The import's `--timeout`, for the run's context (checked again by [`options`]).
pub fn timeout(matches: &ArgMatches) -> Option<std::time::Duration> {
    let (_, m) = matches
        .subcommand_matches("import")?
        .subcommand()?
        .1
        .subcommand()?;
    let secs = m.get_one::<f64>("timeout")?;
    std::time::Duration::try_from_secs_f64(*secs).ok()
}

/// The options of `import <interface> <target>`'s matches.
pub fn options(target: &str, m: &ArgMatches, quiet: bool) -> Result<Options, Failure> {
    let text = |id: &str| m.get_one::<String>(id).map(String::as_str);
    let timeout = match m.get_one::<f64>("timeout").copied() {
        Some(secs) if secs.is_finite() && secs > 0.0 => {
            Some(std::time::Duration::from_secs_f64(secs))
        }
        Some(secs) => {
            return Err(Failure::usage(format!(
                "--timeout: {secs} is not a number of seconds above 0"
            )));
        }
        None => None,
    };
    Ok(Options {
        target: target.to_string(),
        file: m
            .get_one::<PathBuf>("file")
            .cloned()
            .ok_or_else(|| Failure::usage("import: name a file"))?,
        format: text("format")
            .map(Format::parse)
            .transpose()
            .map_err(|e| Failure::usage(format!("--format: {e}")))?,
        map: m.get_one::<PathBuf>("map").cloned(),
        check: m.get_flag("check"),
        dry_run: m.get_flag(crate::flags::DRY_RUN),
        skip_invalid: m.get_flag("skip-invalid"),
        resend_unknown: m.get_flag("resend-unknown"),
        force: m.get_flag("force"),
        restart: m.get_flag("restart"),
        results_format: text("results-format")
            .map(ResultsFormat::parse)
            .transpose()
            .map_err(|e| Failure::usage(format!("--results-format: {e}")))?
            .unwrap_or_default(),
        journal: m.get_one::<PathBuf>("journal").cloned(),
        concurrency: m
            .get_one::<u32>("concurrency")
            .map_or(super::command::CONCURRENCY, |n| *n as usize),
        timeout,
        progress: if quiet { Style::Quiet } else { Style::Auto },
    })
}
