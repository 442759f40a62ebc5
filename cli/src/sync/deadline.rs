//! How long the sync waits on its database, and the failure that names what it waited for
//! once a wait outlasts its bound. The bounds are the client's own: a frozen PostgreSQL
//! server's `statement_timeout` never fires, and a lock another process holds on a SQLite
//! file is waited for only so long.

use std::future::Future;
use std::time::Duration;

use crate::exit::{Class, Failure};

/// The default `--db-timeout`: the longest wait for one answer of the database (a
/// statement's, a commit's) or for SQLite's lock. Every statement the sync sends is small
/// (a page's rows; a migration's batches of 500 stored records and one update per record;
/// `--rebuild`'s one `DROP TABLE` per table), so this bound is met by a healthy server
/// with room to spare, even behind another session's short lock.
pub const DB_TIMEOUT: Duration = Duration::from_secs(300);

/// What the sync waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// A PostgreSQL connection: TCP, TLS, authentication and start-up.
    Connecting,
    /// The answer to a statement (a transaction's start among them).
    Statement,
    /// The answer to a commit.
    Commit,
    /// The lock another process holds on a SQLite file.
    Lock,
}

impl Wait {
    /// What was waited for, in a sentence.
    pub fn what(self) -> &'static str {
        match self {
            Wait::Connecting => "the connection (TCP, TLS, authentication and start-up)",
            Wait::Statement => "the answer to a statement",
            Wait::Commit => "the answer to a commit",
            Wait::Lock => "the lock another process holds on it",
        }
    }

    /// What sets the bound.
    fn set_by(self) -> &'static str {
        match self {
            Wait::Connecting => "the URL's connect_timeout, 30 s when it has none",
            _ => "--db-timeout",
        }
    }

    /// What the user should know besides: a commit without its answer may have been made.
    pub fn afterword(self) -> &'static str {
        match self {
            Wait::Commit => {
                "; whether that commit was made or not, the next run goes on from what the \
                 database holds"
            }
            _ => "",
        }
    }
}

/// `work`'s outcome, or, once `bound` has passed, the failure naming the database `shown`
/// (never with its password) and `what` it waited for. `work` is dropped unfinished then.
pub async fn within<T>(
    shown: &str,
    what: Wait,
    bound: Duration,
    work: impl Future<Output = T>,
) -> Result<T, Failure> {
    tokio::time::timeout(bound, work)
        .await
        .map_err(|_| expired(shown, what, bound, None))
}

/// The database `shown` did not give `what` within `bound` (`detail`: the driver's own
/// words, when it has some).
pub fn expired(shown: &str, what: Wait, bound: Duration, detail: Option<&str>) -> Failure {
    let detail = detail.map_or(String::new(), |d| format!("; {d}"));
    let cause = match what {
        Wait::Lock => "",
        _ => ": the server may be stopped, overloaded or out of reach",
    };
    Failure::new(
        Class::Database,
        format!(
            "the database {shown}: waited {} for {} ({}{detail}){cause}{}",
            seconds(bound),
            what.what(),
            what.set_by(),
            what.afterword()
        ),
    )
}

/// `2 s`, `1.5 s`, `300 s`.
pub fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expired_wait_names_the_database_what_it_waited_for_and_its_bound() {
        let f = expired("db.local/fleet", Wait::Commit, Duration::from_secs(2), None);
        assert_eq!(f.class, Class::Database);
        assert!(
            f.message.starts_with(
                "the database db.local/fleet: waited 2 s for the answer to a commit (--db-timeout)"
            ),
            "{}",
            f.message
        );
        assert!(f.message.contains("the next run goes on"), "{}", f.message);
        let f = expired(
            "fleet.db",
            Wait::Lock,
            Duration::from_millis(1500),
            Some("database is locked"),
        );
        assert_eq!(
            f.message,
            "the database fleet.db: waited 1.5 s for the lock another process holds on it \
             (--db-timeout; database is locked)"
        );
    }

    #[test]
    fn a_wait_past_its_bound_ends() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let never = std::future::pending::<()>();
        let waited = within("x", Wait::Connecting, Duration::from_millis(10), never);
        let f = runtime.block_on(waited).unwrap_err();
        assert!(f.message.contains("connect_timeout"), "{}", f.message);
        let done = within("x", Wait::Statement, Duration::from_secs(5), async { 7 });
        assert_eq!(runtime.block_on(done).unwrap(), 7);
    }
}
