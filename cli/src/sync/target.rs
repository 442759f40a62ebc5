//! The `DATABASE` argument: a file path or `sqlite:PATH` (SQLite), or a `postgres://`
//! URL (PostgreSQL). Shown in messages and summaries without its password.

use std::fmt;
use std::path::PathBuf;

#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    Sqlite(PathBuf),
    /// The URL as given (its password is never shown).
    Postgres(String),
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, String> {
        if text.is_empty() {
            return Err("name a database: a file (fleet.db), sqlite:PATH or postgres://...".into());
        }
        if let Some(path) = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(format!("`{text}` names no file after `sqlite:`"));
            }
            return Ok(Target::Sqlite(PathBuf::from(path)));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Target::Postgres(text.to_string()));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "`{scheme}://` is no database this tool writes to (a file path, sqlite:PATH or postgres://...)"
            ));
        }
        Ok(Target::Sqlite(PathBuf::from(text)))
    }

    /// `sqlite` or `postgres`: the cargo feature that builds it in.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Sqlite(_) => "sqlite",
            Target::Postgres(_) => "postgres",
        }
    }
}

/// The URL with `***` for its password, so messages and logs never hold it.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let shown = match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split(':').next().unwrap_or("");
            let hidden = if user_info.contains(':') { ":***" } else { "" };
            format!("{scheme}://{user}{hidden}@{host}{tail}")
        }
        None => url.to_string(),
    };
    hide_query_password(shown)
}

/// `?password=...` in the query is a password too, and so is `sslpassword` (a key's).
fn hide_query_password(url: String) -> String {
    let Some((head, query)) = url.split_once('?') else {
        return url;
    };
    let parts: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _))
                if k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("sslpassword") =>
            {
                format!("{k}=***")
            }
            _ => p.to_string(),
        })
        .collect();
    format!("{head}?{}", parts.join("&"))
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Sqlite(path) => write!(f, "{}", path.display()),
            Target::Postgres(url) => write!(f, "{}", redacted(url)),
        }
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_urls_name_their_database() {
        assert_eq!(
            Target::parse("fleet.db"),
            Ok(Target::Sqlite("fleet.db".into()))
        );
        assert_eq!(
            Target::parse("sqlite:/tmp/f.db"),
            Ok(Target::Sqlite("/tmp/f.db".into()))
        );
        assert_eq!(
            Target::parse("sqlite:///tmp/f.db"),
            Ok(Target::Sqlite("/tmp/f.db".into()))
        );
        assert!(matches!(
            Target::parse("postgres://u@h/db"),
            Ok(Target::Postgres(_))
        ));
        assert!(
            Target::parse("mysql://h/db")
                .unwrap_err()
                .contains("`mysql://`")
        );
        assert!(Target::parse("sqlite:").is_err());
    }

    #[test]
    fn a_password_is_never_shown() {
        let t = Target::parse(
            "postgres://fleet:s3cret@db.local:5432/fleet?sslmode=disable&password=x2&sslpassword=k3y",
        )
        .unwrap();
        let shown = format!("{t} {t:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("x2") && !shown.contains("k3y"),
            "{shown}"
        );
        assert!(
            shown.contains(
                "postgres://fleet:***@db.local:5432/fleet?sslmode=disable&password=***&sslpassword=***"
            ),
            "{shown}"
        );
    }
}
