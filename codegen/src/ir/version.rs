//! Release versions (`MAJOR.MINOR.PATCH`) and what a change needs of them.

/// `(major, minor, patch)` of `text`, when it is a release version.
pub fn parse(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split('.');
    let mut next = || -> Option<u64> {
        let part = parts.next()?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let version = (next()?, next()?, next()?);
    parts.next().is_none().then_some(version)
}

/// Whether `new` raises `old` enough for a breaking change: the major version, or below
/// 1.0 the minor one (Cargo's and npm's reading of 0.x versions).
pub fn allows_breaking(old: &str, new: &str) -> bool {
    match (parse(old), parse(new)) {
        (Some((0, old_minor, _)), Some((0, new_minor, _))) => new_minor > old_minor,
        (Some((old_major, ..)), Some((new_major, ..))) => new_major > old_major,
        _ => false,
    }
}

/// The smallest version after `old` that allows a breaking change.
pub fn next_breaking(old: &str) -> String {
    match parse(old) {
        Some((0, minor, _)) => format!("0.{}.0", minor + 1),
        Some((major, ..)) => format!("{}.0.0", major + 1),
        None => old.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_breaking_bumps() {
        assert_eq!(parse("0.1.0"), Some((0, 1, 0)));
        assert_eq!(parse("1.2"), None);
        assert_eq!(parse("1.2.3.4"), None);
        assert_eq!(parse("1.x.3"), None);
        assert!(allows_breaking("0.1.0", "0.2.0"));
        assert!(!allows_breaking("0.1.0", "0.1.1"));
        assert!(allows_breaking("0.9.0", "1.0.0"));
        assert!(allows_breaking("1.4.2", "2.0.0"));
        assert!(!allows_breaking("1.4.2", "1.5.0"));
        assert_eq!(next_breaking("0.1.3"), "0.2.0");
        assert_eq!(next_breaking("2.1.0"), "3.0.0");
    }
}
