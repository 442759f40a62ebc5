//! The subcommands of an interface, built from the table the generator writes (one
//! [`Operation`] per operation of the spec), and a parsed command line read back into the
//! call adapter's [`Args`] and [`Mode`].

use std::io::Read;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use serde_json::{Map, Value};

use crate::call::{Args, Mode};
use crate::exit::Failure;
use crate::flags;
use crate::output::Printer;

/// One operation as a subcommand.
#[derive(Debug)]
pub struct Operation {
    /// The spec's name (`list_units`), which the call adapter matches.
    pub name: &'static str,
    /// The subcommand (`list-units`).
    pub command: &'static str,
    /// One line for the list of subcommands.
    pub about: &'static str,
    /// The whole doc: method and path, what the spec says, the statuses it answers.
    pub doc: &'static str,
    pub params: &'static [Param],
    pub body: Body,
    pub answer: Answer,
}

/// A flag of an operation.
#[derive(Debug)]
pub struct Param {
    /// The flag without its dashes (`unit-id`).
    pub flag: &'static str,
    /// The spec's name (the wire name of a query parameter or body field).
    pub name: &'static str,
    pub place: Place,
    pub kind: Kind,
    pub required: bool,
    /// The spec's doc with its limits.
    pub help: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Path,
    Query,
    /// A field of a flat JSON body, merged over `--body`.
    Body,
}

/// How a flag's text becomes the JSON value the adapter reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A string (ids, dates, URLs).
    Text,
    /// A date-time in ISO 8601, or a date (its midnight, UTC).
    DateTime,
    /// One of these values.
    Choice(&'static [&'static str]),
    Integer,
    Number,
    /// `true` or `false`.
    Boolean,
    /// JSON text (an object or list parameter).
    Json,
    /// A record by id; `external:ID` and `self` where the path takes them.
    Ref {
        external: bool,
        me: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    None,
    /// JSON from `--body FILE|-`, with the fields of [`Place::Body`] flags over it;
    /// `required` when no field flag exists (the body cannot be made from flags alone);
    /// `optional`: the request goes without a body when neither gives one.
    /// `secrets`: JSON paths of values a dry run hides and no message quotes.
    Json {
        required: bool,
        optional: bool,
        secrets: &'static [&'static str],
    },
    /// The bytes of `--body FILE|-` (text), sent with `--content-type`.
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Json,
    Empty,
    Upsert,
    /// Bytes: `--output FILE`.
    Bytes,
    /// JSON, or with this flag (`pdf`) the alternative media type to `--output`.
    Alternative(&'static str),
    /// A page; `--all` for every record, `--max-items`, `--resume`.
    Paged,
}

impl Place {
    /// Its name for tools (`inspection describe`).
    pub fn name(self) -> &'static str {
        match self {
            Place::Path => "path",
            Place::Query => "query",
            Place::Body => "body",
        }
    }
}

impl Kind {
    /// Its name for tools (`inspection describe`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::DateTime => "date_time",
            Kind::Choice(_) => "choice",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Json => "json",
            Kind::Ref { .. } => "reference",
        }
    }
}

impl Answer {
    /// Its name for tools (`inspection describe`), and the flag of an alternative form.
    pub fn name(self) -> (&'static str, Option<&'static str>) {
        match self {
            Answer::Json => ("json", None),
            Answer::Empty => ("empty", None),
            Answer::Upsert => ("upsert", None),
            Answer::Bytes => ("bytes", None),
            Answer::Alternative(flag) => ("alternative", Some(flag)),
            Answer::Paged => ("paged", None),
        }
    }
}

/// The subcommand of an interface: one subcommand per operation.
pub fn interface(name: &'static str, about: &'static str, ops: &'static [Operation]) -> Command {
    Command::new(name)
        .about(about)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommands(ops.iter().map(operation))
}

fn operation(op: &'static Operation) -> Command {
    let mut cmd = Command::new(op.command).about(op.about).long_about(op.doc);
    for p in op.params {
        cmd = cmd.arg(param(p));
    }
    cmd = match op.body {
        Body::None => cmd,
        Body::Json { required, .. } => cmd.arg(
            Arg::new(flags::BODY)
                .long(flags::BODY)
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .required(required)
                .help("The JSON body, from FILE or `-` (standard input); field flags go over it"),
        ),
        Body::Bytes => cmd
            .arg(
                Arg::new(flags::BODY)
                    .long(flags::BODY)
                    .value_name("FILE")
                    .value_parser(value_parser!(PathBuf))
                    .required(true)
                    .help("The body, from FILE or `-` (standard input), sent as it is"),
            )
            .arg(
                Arg::new(flags::CONTENT_TYPE)
                    .long(flags::CONTENT_TYPE)
                    .value_name("MEDIA")
                    .help("The body's media type"),
            ),
    };
    cmd = match op.answer {
        Answer::Bytes => cmd.arg(output_arg()),
        Answer::Alternative(flag) => cmd.arg(output_arg()).arg(
            Arg::new("alternative")
                .long(flag)
                .action(ArgAction::SetTrue)
                .requires(flags::OUTPUT)
                .help(format!(
                    "Ask for the {flag} form instead of JSON (with --output)"
                )),
        ),
        Answer::Paged => cmd
            .arg(
                Arg::new(flags::ALL)
                    .long(flags::ALL)
                    .action(ArgAction::SetTrue)
                    .help("Follow every page; print one record per line (JSON Lines)"),
            )
            .arg(
                Arg::new(flags::MAX_ITEMS)
                    .long(flags::MAX_ITEMS)
                    .value_name("N")
                    .value_parser(value_parser!(u64))
                    .requires(flags::ALL)
                    .help("With --all, stop after N records"),
            )
            .arg(
                Arg::new(flags::RESUME)
                    .long(flags::RESUME)
                    .value_name("AT")
                    .help("Start at a page a failed walk named (`cursor:...` or `link:...`)"),
            ),
        Answer::Json | Answer::Empty | Answer::Upsert => cmd,
    };
    cmd.arg(
        Arg::new(flags::DRY_RUN)
            .long(flags::DRY_RUN)
            .action(ArgAction::SetTrue)
            .help("Print the request (secrets redacted) instead of sending it"),
    )
}

fn output_arg() -> Arg {
    Arg::new(flags::OUTPUT)
        .long(flags::OUTPUT)
        .short('o')
        .value_name("FILE")
        .value_parser(value_parser!(PathBuf))
        .help("Write the bytes to FILE (`-`: standard output); FILE appears only once whole")
}

fn param(p: &'static Param) -> Arg {
    let arg = Arg::new(p.flag)
        .long(p.flag)
        .help(p.help)
        .required(p.required);
    match p.kind {
        Kind::Integer => arg.value_name("INT").value_parser(value_parser!(i64)),
        Kind::Number => arg.value_name("NUMBER").value_parser(value_parser!(f64)),
        Kind::Boolean => arg.value_name("BOOL").value_parser(value_parser!(bool)),
        Kind::Choice(values) => arg
            .value_name("VALUE")
            .value_parser(clap::builder::PossibleValuesParser::new(values)),
        Kind::Json => arg.value_name("JSON"),
        Kind::DateTime => arg.value_name("TIME"),
        Kind::Ref { .. } | Kind::Text => arg.value_name("TEXT"),
    }
}

/// The operation a matched subcommand names.
pub fn find(ops: &'static [Operation], command: &str) -> Option<&'static Operation> {
    ops.iter().find(|op| op.command == command)
}

/// The adapter's arguments from the command line; a body file that cannot be read or is
/// not JSON, or a flag value that is not what its kind takes, is a usage failure naming it.
pub fn args(op: &Operation, m: &ArgMatches) -> Result<Args, Failure> {
    let mut args = Args::default();
    let mut fields = Map::new();
    for p in op.params {
        args.flags.insert(p.name, p.flag);
        let Some(value) = value(p, m)? else {
            continue;
        };
        match p.place {
            Place::Path => args.path.insert(p.name.to_string(), value),
            Place::Query => args.query.insert(p.name.to_string(), value),
            Place::Body => fields.insert(p.name.to_string(), value),
        };
    }
    match op.body {
        Body::None => {}
        Body::Json { optional: true, .. }
            if fields.is_empty() && m.get_one::<PathBuf>(flags::BODY).is_none() => {}
        Body::Json { secrets, .. } => {
            let mut body = match m.get_one::<PathBuf>(flags::BODY) {
                Some(path) => json_file(path)?,
                None => Value::Object(Map::new()),
            };
            if !fields.is_empty() {
                let Value::Object(object) = &mut body else {
                    return Err(Failure::usage(
                        "--body: field flags go over a JSON object, and the body is not one",
                    ));
                };
                object.extend(fields);
            }
            args.body = Some(body);
            args.secret_body = !secrets.is_empty();
        }
        Body::Bytes => {
            if let Some(path) = m.get_one::<PathBuf>(flags::BODY) {
                let text = String::from_utf8(read_file(path)?).map_err(|_| {
                    Failure::usage(format!("--body {}: not UTF-8 text", path.display()))
                })?;
                args.other.insert("body_text".into(), Value::String(text));
            }
            if let Some(media) = m.get_one::<String>(flags::CONTENT_TYPE) {
                args.other
                    .insert("content_type".into(), Value::String(media.clone()));
            }
        }
    }
    if op.answer == Answer::Paged
        && let Some(at) = m.get_one::<String>(flags::RESUME)
    {
        args.other
            .insert("resume".into(), Value::String(at.clone()));
    }
    Ok(args)
}

/// How the command runs: its flags, and (for `--dry-run`) the core that previews requests.
pub fn mode(op: &Operation, m: &ArgMatches, core: &inspection_runtime::Core) -> Mode {
    let flag = |id: &str| {
        m.try_get_one::<bool>(id)
            .ok()
            .flatten()
            .copied()
            .unwrap_or(false)
    };
    let secrets = match op.body {
        Body::Json { secrets, .. } => secrets,
        _ => &[],
    };
    Mode {
        dry_run: flag(flags::DRY_RUN).then(|| core.clone()),
        all: flag(flags::ALL),
        max_items: m
            .try_get_one::<u64>(flags::MAX_ITEMS)
            .ok()
            .flatten()
            .copied(),
        alternative: flag("alternative"),
        output: m
            .try_get_one::<PathBuf>(flags::OUTPUT)
            .ok()
            .flatten()
            .cloned(),
        printer: Printer::for_stdout(),
        secret_paths: secrets,
        ..Mode::default()
    }
}

/// Whether the command line asks for a dry run.
pub fn is_dry_run(m: &ArgMatches) -> bool {
    m.try_get_one::<bool>(flags::DRY_RUN)
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false)
}

fn value(p: &Param, m: &ArgMatches) -> Result<Option<Value>, Failure> {
    let flag = p.flag;
    Ok(Some(match p.kind {
        Kind::Integer => match m.get_one::<i64>(flag) {
            Some(n) => Value::from(*n),
            None => return Ok(None),
        },
        Kind::Number => match m
            .get_one::<f64>(flag)
            .and_then(|n| serde_json::Number::from_f64(*n))
        {
            Some(n) => Value::Number(n),
            None => return Ok(None),
        },
        Kind::Boolean => match m.get_one::<bool>(flag) {
            Some(b) => Value::Bool(*b),
            None => return Ok(None),
        },
        Kind::Json => match m.get_one::<String>(flag) {
            Some(text) => serde_json::from_str(text)
                .map_err(|e| Failure::usage(format!("--{flag}: not JSON: {e}")))?,
            None => return Ok(None),
        },
        Kind::Ref { external, me } => match m.get_one::<String>(flag) {
            Some(text) => reference(flag, text, external, me)?,
            None => return Ok(None),
        },
        Kind::DateTime => match m.get_one::<String>(flag) {
            Some(text) => Value::String(
                date_time(text)
                    .map_err(|e| Failure::usage(format!("--{flag}: {e}")))?
                    .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            ),
            None => return Ok(None),
        },
        Kind::Text | Kind::Choice(_) => match m.get_one::<String>(flag) {
            Some(text) => Value::String(text.clone()),
            None => return Ok(None),
        },
    }))
}

/// A date-time in ISO 8601 (RFC 3339, an offset or `Z`), or a date as its midnight, UTC.
pub fn date_time(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(d.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    Err(format!(
        "`{text}` is not a date (2026-01-31) or a date-time (2026-01-31T08:00:00Z)"
    ))
}

/// `self`, `external:ID` or an id, as the adapter reads a record reference.
fn reference(flag: &str, text: &str, external: bool, me: bool) -> Result<Value, Failure> {
    if me && text == "self" {
        return Ok(serde_json::json!({"self": true}));
    }
    if let Some(id) = text.strip_prefix("external:") {
        if !external {
            return Err(Failure::usage(format!(
                "--{flag}: this path takes no external id (`external:`)"
            )));
        }
        return Ok(serde_json::json!({"external": id}));
    }
    Ok(Value::String(text.to_string()))
}

/// A file's bytes, or standard input's for `-`.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, Failure> {
    if path == std::path::Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::usage(format!("--body -: cannot read standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path)
        .map_err(|e| Failure::usage(format!("--body {}: cannot read it: {e}", path.display())))
}

/// A JSON body file; an error names the file, line and column.
pub(crate) fn json_file(path: &std::path::Path) -> Result<Value, Failure> {
    let bytes = read_file(path)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Failure::usage(format!("--body {}: not JSON: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag a subcommand gets beyond its parameters is one the flags table gives it,
    /// which the generator renames parameters off: no other flag can clash with one.
    #[test]
    fn a_subcommand_adds_only_the_flags_the_table_states() {
        let bodies = [
            (Body::None, flags::Sends::Nothing),
            (
                Body::Json {
                    required: false,
                    optional: true,
                    secrets: &[],
                },
                flags::Sends::Json,
            ),
            (Body::Bytes, flags::Sends::Bytes),
        ];
        let answers = [
            (Answer::Json, flags::Answers::Json),
            (Answer::Empty, flags::Answers::Json),
            (Answer::Upsert, flags::Answers::Json),
            (Answer::Bytes, flags::Answers::Bytes),
            (Answer::Alternative("pdf"), flags::Answers::Alternative),
            (Answer::Paged, flags::Answers::Paged),
        ];
        for (body, sends) in bodies {
            for (answer, answers) in answers {
                let op: &'static Operation = Box::leak(Box::new(Operation {
                    name: "op",
                    command: "op",
                    about: "",
                    doc: "",
                    params: &[],
                    body,
                    answer,
                }));
                let mut cmd = operation(op);
                cmd.build();
                let got: std::collections::BTreeSet<String> = cmd
                    .get_arguments()
                    .filter_map(|a| a.get_long())
                    .map(str::to_string)
                    .collect();
                let mut stated: Vec<&str> = flags::for_operation(sends, answers);
                stated.extend([flags::DRY_RUN, flags::HELP]);
                if let Answer::Alternative(flag) = answer {
                    stated.push(flag);
                }
                let stated = stated.into_iter().map(str::to_string).collect();
                assert_eq!(got, stated, "{body:?} {answer:?}");
            }
        }
    }
}
