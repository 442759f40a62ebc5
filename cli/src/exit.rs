//! Why a command failed, as an exit code per class (the table `inspection --help` and
//! docs/cli.md show), and the message printed on stderr.

use std::fmt;

use inspection_runtime::Error;

/// The classes of failure, each with its exit code. 0 is success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Anything no other class names: an answer that cannot be decoded, a file that cannot
    /// be written, an API error status not listed below.
    Failure,
    /// The command line or a file it names is wrong: an unknown flag, a value that is not
    /// of its type, a body file that is not JSON or does not fit the operation.
    Usage,
    /// Refused before sending by a documented limit, or answered 400, 409 or 422.
    Invalid,
    /// Credentials missing, unreadable or refused: no variable and no profile, a profile
    /// others can read, a base URL the client cannot use, or an answer 401 or 403.
    Auth,
    /// Answered 404.
    NotFound,
    /// Answered 429 with a wait longer than the client waits out, or 429 after every retry.
    RateLimited,
    /// Answered 5xx after every retry, or still preparing (202) past the polling limit.
    Server,
    /// No answer: the connection failed or timed out after every retry.
    Network,
    /// The export folder (or the sync's database) is held by a run that is going on.
    Busy,
    /// The sync's database cannot be reached, opened or written (or was made by another
    /// tool, or by a newer one).
    Database,
    /// `sync status --max-age`: a list's last successful sync is older than the age
    /// allowed (or it never had one).
    Stale,
    /// `sync --tenants`: one tenant or more failed (each one's error, with its own class
    /// and code, is in the summary); the others completed.
    Tenants,
}

impl Class {
    /// Every class in the order of its code, for the help text and the docs.
    pub const ALL: [Class; 12] = [
        Class::Failure,
        Class::Usage,
        Class::Invalid,
        Class::Auth,
        Class::NotFound,
        Class::RateLimited,
        Class::Server,
        Class::Network,
        Class::Busy,
        Class::Database,
        Class::Stale,
        Class::Tenants,
    ];

    pub fn code(self) -> u8 {
        match self {
            Class::Failure => 1,
            Class::Usage => 2,
            Class::Invalid => 3,
            Class::Auth => 4,
            Class::NotFound => 5,
            Class::RateLimited => 6,
            Class::Server => 7,
            Class::Network => 8,
            Class::Busy => 9,
            Class::Database => 10,
            Class::Stale => 11,
            Class::Tenants => 12,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Failure => "failure",
            Class::Usage => "usage",
            Class::Invalid => "invalid request",
            Class::Auth => "credentials",
            Class::NotFound => "not found",
            Class::RateLimited => "rate limited",
            Class::Server => "server",
            Class::Network => "network",
            Class::Busy => "busy",
            Class::Database => "database",
            Class::Stale => "stale",
            Class::Tenants => "some tenants failed",
        }
    }

    /// The exit-code table, one line per class, for `--help`.
    pub fn table() -> String {
        let mut out = String::from("Exit codes:\n  0  success\n");
        for class in Class::ALL {
            out.push_str(&format!("  {}  {}\n", class.code(), class.name()));
        }
        out
    }
}

/// A failed command: its class and what to tell the user (never a credential: the
/// client's errors carry none, and messages here name variables, never their values).
#[derive(Debug)]
pub struct Failure {
    pub class: Class,
    pub message: String,
    /// What to do next, such as the flag that resumes a walk.
    pub hint: Option<String>,
}

impl Failure {
    pub fn new(class: Class, message: impl Into<String>) -> Failure {
        Failure {
            class,
            message: message.into(),
            hint: None,
        }
    }

    /// A failure that may pass if tried again later: no answer, a server error, a rate
    /// limit that outlasted the client's retries.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.class,
            Class::Network | Class::Server | Class::RateLimited
        )
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Class::Usage, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O failure on `path`, naming it.
    pub fn io(what: &str, path: &std::path::Path, e: std::io::Error) -> Failure {
        Failure::new(
            Class::Failure,
            format!("cannot {what} {}: {e}", path.display()),
        )
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

/// The class of a client error.
pub fn class_of(error: &Error) -> Class {
    match error {
        Error::Api(api) => match api.status {
            401 | 403 => Class::Auth,
            404 => Class::NotFound,
            429 => Class::RateLimited,
            400 | 409 | 422 => Class::Invalid,
            500..=599 => Class::Server,
            _ => Class::Failure,
        },
        Error::Validation(_) => Class::Invalid,
        Error::Transport { .. } | Error::Timeout { .. } => Class::Network,
        Error::NotReady { .. } => Class::Server,
        Error::Interrupted { source, .. } => class_of(source),
        Error::Config(_) => Class::Auth,
        _ => Class::Failure,
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        let hint = error
            .resume()
            .map(|at| format!("run the same command with `--resume {at}` to go on from there"));
        Failure {
            class: class_of(&error),
            message: error.to_string(),
            hint,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_its_own_code() {
        let mut codes: Vec<u8> = Class::ALL.iter().map(|c| c.code()).collect();
        codes.dedup();
        assert_eq!(codes, (1..=12).collect::<Vec<u8>>());
        assert!(Class::table().contains("  4  credentials\n"));
    }

    #[test]
    fn client_errors_fall_in_their_class() {
        let network = Error::Timeout {
            method: "GET".into(),
            path: "/units".into(),
            source: None,
        };
        assert_eq!(class_of(&network), Class::Network);
        let interrupted = Error::Interrupted {
            resume: "cursor:abc".parse().unwrap(),
            source: Box::new(network),
        };
        assert_eq!(class_of(&interrupted), Class::Network);
        let failure = Failure::from(interrupted);
        assert!(
            failure
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("--resume cursor:abc")),
            "{failure:?}"
        );
        assert_eq!(
            class_of(&Error::Config("missing".into())),
            Class::Auth,
            "a client that cannot be configured is a credentials problem"
        );
    }
}
