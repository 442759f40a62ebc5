//! The flags the tool adds itself, stated once. The command tree takes its flag names from
//! here, and the generator (codegen's CLI backend, which includes this file as a module of
//! its own) renames an operation's parameter flag off the same names (`--query-quiet`), so
//! a clash between the two cannot be written. Plain data: no dependency, nothing of the
//! crate, so both can compile it.

pub const HELP: &str = "help";
pub const VERSION: &str = "version";
pub const PROFILE: &str = "profile";
pub const QUIET: &str = "quiet";
pub const RATE_LIMIT: &str = "rate-limit";
pub const LOG_FORMAT: &str = "log-format";
pub const DRY_RUN: &str = "dry-run";
pub const BODY: &str = "body";
pub const CONTENT_TYPE: &str = "content-type";
pub const OUTPUT: &str = "output";
pub const ALL: &str = "all";
pub const MAX_ITEMS: &str = "max-items";
pub const RESUME: &str = "resume";

/// On every operation's subcommand: the tool's global flags (clap's own `--help` and
/// `--version` among them) and `--dry-run`.
pub const EVERY_OPERATION: &[&str] = &[
    HELP, VERSION, PROFILE, QUIET, RATE_LIMIT, LOG_FORMAT, DRY_RUN,
];

/// What an operation sends, as far as its flags go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sends {
    Nothing,
    Json,
    Bytes,
}

/// What an operation answers, as far as its flags go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answers {
    /// JSON, an upsert, or nothing.
    Json,
    Bytes,
    /// JSON, or with a flag of its own (named by the operation) another form to a file.
    Alternative,
    Paged,
}

/// The flags the tool gives an operation's subcommand for its body and answer, beyond
/// [`EVERY_OPERATION`] (an alternative form's own flag is named by its operation).
pub fn for_operation(sends: Sends, answers: Answers) -> Vec<&'static str> {
    let mut flags = match sends {
        Sends::Nothing => vec![],
        Sends::Json => vec![BODY],
        Sends::Bytes => vec![BODY, CONTENT_TYPE],
    };
    flags.extend(match answers {
        Answers::Json => &[][..],
        Answers::Bytes | Answers::Alternative => &[OUTPUT][..],
        Answers::Paged => &[ALL, MAX_ITEMS, RESUME][..],
    });
    flags
}
