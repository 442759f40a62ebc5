//! Where credentials come from: the environment variables the generated clients'
//! `from_env` read, or a profile in the user's configuration folder that only its owner
//! can read. Never from a flag (a flag is in the shell's history and the process list),
//! never printed: every message names a variable or a file, never a value.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use inspection_runtime::Error;

/// Looks a variable up (the process's environment, or a test's).
pub type Lookup = Box<dyn Fn(&str) -> Option<String>>;

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "default";

/// The variables of one run: the environment, then a profile. With `--profile` named,
/// the profile comes first and the environment fills its gaps.
pub struct Vars {
    profile: String,
    explicit: bool,
    path: Option<PathBuf>,
    env: Lookup,
    file: OnceCell<Result<Option<BTreeMap<String, String>>, String>>,
}

impl Vars {
    /// The process's environment and the profile file of the user's configuration folder
    /// (`$INSPECTION_CONFIG_DIR`, else `$XDG_CONFIG_HOME/inspection`, else
    /// `~/.config/inspection`, then `profiles`).
    pub fn from_process(profile: Option<&str>) -> Vars {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let dir = env("INSPECTION_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| env("XDG_CONFIG_HOME").map(|d| Path::new(&d).join("inspection")))
            .or_else(|| env("HOME").map(|h| Path::new(&h).join(".config/inspection")));
        let profile = profile
            .map(str::to_string)
            .or_else(|| env("INSPECTION_PROFILE"));
        Vars::new(
            profile.as_deref(),
            dir.map(|d| d.join("profiles")),
            Box::new(env),
        )
    }

    /// Variables from `env` and the profile file at `path` (read when first needed).
    pub fn new(profile: Option<&str>, path: Option<PathBuf>, env: Lookup) -> Vars {
        Vars {
            profile: profile.unwrap_or(DEFAULT_PROFILE).to_string(),
            explicit: profile.is_some(),
            path,
            env,
            file: OnceCell::new(),
        }
    }

    /// The value of `name`, or a configuration error naming it and where it was looked
    /// for (never a value).
    pub fn get(&self, name: &str) -> Result<String, Error> {
        if !self.explicit
            && let Some(value) = (self.env)(name)
        {
            return Ok(value);
        }
        let profile = self.profile_values().map_err(Error::Config)?;
        if let Some(value) = profile.and_then(|p| p.get(name).cloned()) {
            return Ok(value);
        }
        if let Some(value) = (self.env)(name) {
            return Ok(value);
        }
        let file = match &self.path {
            Some(path) => format!(" or to profile `{}` in {}", self.profile, path.display()),
            None => String::new(),
        };
        Err(Error::Config(format!(
            "no credential `{name}`: set the environment variable{file}"
        )))
    }

    /// The named profile's variables; `None` when there is no profile file, or (for the
    /// default profile only) no such section in it.
    fn profile_values(&self) -> Result<Option<&BTreeMap<String, String>>, String> {
        let read = self.file.get_or_init(|| {
            let Some(path) = &self.path else {
                return Ok(None);
            };
            read_profile(path, &self.profile, self.explicit)
        });
        match read {
            Ok(values) => Ok(values.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }
}

/// The section `profile` of the file at `path`. A file that is not there is no profile
/// (unless one was named); a file others can read is refused, whatever it holds.
fn read_profile(
    path: &Path,
    profile: &str,
    named: bool,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let shown = path.display();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => return Ok(None),
        Err(e) => return Err(format!("cannot read the profile file {shown}: {e}")),
    };
    owner_only(path, "the profile file")?;
    let sections = parse(&text).map_err(|(line, what)| format!("{shown}:{line}: {what}"))?;
    match sections.get(profile) {
        Some(values) => Ok(Some(values.clone())),
        None if named => Err(format!("{shown} has no profile `[{profile}]`")),
        None => Ok(None),
    }
}

/// Refuses a file holding secrets (`what`: "the profile file") that its group or others
/// may read or write.
#[cfg(unix)]
pub(crate) fn owner_only(path: &Path, what: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "{what} {} can be read or changed by others (mode {:o}); it holds \
             secrets: make it yours alone with `chmod 600 {}`",
            path.display(),
            mode & 0o777,
            path.display()
        ));
    }
    Ok(())
}

/// Windows files have no mode bits; the user profile folder is private by default.
#[cfg(not(unix))]
pub(crate) fn owner_only(_path: &Path, _what: &str) -> Result<(), String> {
    Ok(())
}

type Sections = BTreeMap<String, BTreeMap<String, String>>;

/// `[name]` sections of `NAME = value` lines; `#` starts a comment line. An error names
/// the line (never its value: it may be a secret).
pub(crate) fn parse(text: &str) -> Result<Sections, (usize, String)> {
    let mut sections = Sections::new();
    let mut current: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim().to_string();
            sections.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err((n + 1, "expected `NAME = value` or `[profile]`".into()));
        };
        let Some(section) = &current else {
            return Err((n + 1, "a setting before the first `[profile]`".into()));
        };
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        sections
            .entry(section.clone())
            .or_default()
            .insert(key.trim().to_string(), value.to_string());
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> Lookup {
        Box::new(move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    fn profile_file(text: &str, mode: u32) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "inspection-cli-creds-{}-{}",
            std::process::id(),
            text.len() as u32 ^ mode
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("profiles");
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        (dir, path)
    }

    #[test]
    fn the_environment_comes_first_then_the_default_profile() {
        let (dir, path) = profile_file("[default]\nA = from-file\nB = \"quoted\"\n", 0o600);
        let vars = Vars::new(None, Some(path.clone()), env_of(&[("A", "from-env")]));
        assert_eq!(vars.get("A").unwrap(), "from-env");
        assert_eq!(vars.get("B").unwrap(), "quoted");
        let missing = vars.get("C").unwrap_err().to_string();
        assert!(
            missing.contains("`C`") && missing.contains("profile `default`"),
            "{missing}"
        );
        // A named profile comes before the environment.
        let named = Vars::new(Some("default"), Some(path), env_of(&[("A", "from-env")]));
        assert_eq!(named.get("A").unwrap(), "from-file");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_profile_others_can_read_is_refused_without_showing_a_value() {
        let (dir, path) = profile_file("[default]\nSECRET = hunter22\n", 0o644);
        let vars = Vars::new(None, Some(path), env_of(&[]));
        let refused = vars.get("SECRET").unwrap_err().to_string();
        assert!(
            refused.contains("mode 644") && refused.contains("chmod 600"),
            "{refused}"
        );
        assert!(!refused.contains("hunter22"), "{refused}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_malformed_line_is_named_by_its_number_not_its_text() {
        let (dir, path) = profile_file("[default]\nA = 1\nsecret-without-equals\n", 0o600);
        let vars = Vars::new(None, Some(path), env_of(&[]));
        let refused = vars.get("A").unwrap_err().to_string();
        assert!(refused.contains("profiles:3:"), "{refused}");
        assert!(!refused.contains("secret-without-equals"), "{refused}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_named_profile_must_exist() {
        let vars = Vars::new(
            Some("work"),
            Some("/nonexistent/profiles".into()),
            env_of(&[]),
        );
        let refused = vars.get("A").unwrap_err().to_string();
        assert!(refused.contains("/nonexistent/profiles"), "{refused}");
    }
}
