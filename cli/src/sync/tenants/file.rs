//! The tenants file of `sync --tenants FILE`: one `[[tenant]]` table per company, read
//! and checked whole before anything connects; every refusal names the file, the line and
//! the column.
//!
//! ```toml
//! [[tenant]]
//! name = "acme"                # in every progress line, log line and summary
//! interface = "v3"
//! profile = "acme"             # where its credentials come from (default: the name)
//! database = "postgres://sync@db.internal/fleet?sslmode=verify-full"
//! schema = "acme"
//! sslrootcert = "ca.pem"       # TLS files, relative to this file's folder
//! only = ["inspections"]       # optional, as --only
//! lookback = "3d"              # optional, as --lookback
//! documents = "/srv/acme"      # optional, as --documents
//! page_size = 100              # optional, as --page-size
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::sync::command::{duration, schema_name};
use crate::sync::target::Target;

/// One company's sync, as its table says.
#[derive(Clone, Debug)]
pub struct Tenant {
    pub name: String,
    pub interface: String,
    pub profile: String,
    pub target: Target,
    pub schema: Option<String>,
    pub only: Vec<String>,
    pub lookback: Option<Duration>,
    pub documents: Option<PathBuf>,
    pub page_size: Option<u32>,
    /// Where its `interface` is written (`FILE:LINE:COLUMN`), for a refusal found later.
    pub interface_at: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tenant: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Spanned<String>,
    interface: Spanned<String>,
    profile: Option<String>,
    database: Spanned<String>,
    schema: Option<Spanned<String>>,
    sslmode: Option<String>,
    sslrootcert: Option<String>,
    sslcert: Option<String>,
    sslkey: Option<String>,
    only: Option<Vec<String>>,
    lookback: Option<Spanned<String>>,
    documents: Option<PathBuf>,
    page_size: Option<Spanned<u32>>,
}

/// The tenants of the file at `path`.
pub fn read(path: &Path) -> Result<Vec<Tenant>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the tenants file {shown}: {e}"))?;
    let file: File = toml::from_str(&text).map_err(|e| match e.span() {
        Some(span) => format!("{}: {}", at(path, &text, &span), e.message()),
        None => format!("{shown}: {}", e.message()),
    })?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut tenants: Vec<Tenant> = Vec::new();
    for entry in file.tenant {
        let tenant = resolve(entry, folder, &|span| at(path, &text, span))?;
        if let Some(taken) = tenants.iter().find(|t| clash(t, &tenant)) {
            return Err(format!(
                "{}: tenant `{}` syncs into the database and schema of tenant `{}`; give \
                 each company a schema (or a database) of its own",
                tenant.interface_at, tenant.name, taken.name
            ));
        }
        tenants.push(tenant);
    }
    if tenants.is_empty() {
        return Err(format!("{shown}: no [[tenant]] table"));
    }
    if tenants.iter().any(|t| holds_password(&t.target)) {
        crate::credentials::owner_only(path, "the tenants file")
            .map_err(|e| format!("{e} (or leave passwords to ~/.pgpass)"))?;
    }
    Ok(tenants)
}

/// Two tenants of one name, or of one database and schema (whose lock would refuse one):
/// a URL's database is what it names before its query.
fn clash(a: &Tenant, b: &Tenant) -> bool {
    let database = |t: &Tenant| match &t.target {
        Target::Postgres(url) => url.split('?').next().unwrap_or("").to_string(),
        Target::Sqlite(path) => path.display().to_string(),
    };
    a.name == b.name || (database(a) == database(b) && a.schema == b.schema)
}

/// One table checked and made a tenant; `at` places a span.
fn resolve(
    entry: Entry,
    folder: &Path,
    at: &dyn Fn(&Range<usize>) -> String,
) -> Result<Tenant, String> {
    let name = entry.name.get_ref();
    let here = |span: &Range<usize>, what: String| format!("{}: {what}", at(span));
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(here(
            &entry.name.span(),
            "a tenant's name is 1 to 64 characters, none of them a control character".into(),
        ));
    }
    let database = with_tls_files(&entry, folder).map_err(|e| here(&entry.database.span(), e))?;
    let target = Target::parse(&database).map_err(|e| here(&entry.database.span(), e))?;
    let schema = match &entry.schema {
        Some(s) if matches!(target, Target::Sqlite(_)) => {
            return Err(here(
                &s.span(),
                "a SQLite file has no schemas: give each tenant a file of its own".into(),
            ));
        }
        Some(s) => Some(schema_name(s.get_ref()).map_err(|e| here(&s.span(), e))?),
        None => None,
    };
    let lookback = match &entry.lookback {
        Some(l) => Some(duration(l.get_ref()).map_err(|e| here(&l.span(), e))?),
        None => None,
    };
    if let Some(size) = entry.page_size.as_ref().filter(|s| *s.get_ref() == 0) {
        return Err(here(&size.span(), "a page holds 1 record at least".into()));
    }
    Ok(Tenant {
        page_size: entry.page_size.map(Spanned::into_inner),
        profile: entry.profile.clone().unwrap_or_else(|| name.clone()),
        interface_at: at(&entry.interface.span()),
        interface: entry.interface.get_ref().clone(),
        name: name.clone(),
        target,
        schema,
        only: entry.only.unwrap_or_default(),
        lookback,
        documents: entry.documents.map(|d| folder.join(d)),
    })
}

/// The database URL with the table's TLS settings added to its query (files relative to
/// the tenants file's folder); a setting both in the URL and in the table is refused.
fn with_tls_files(entry: &Entry, folder: &Path) -> Result<String, String> {
    let mut url = entry.database.get_ref().clone();
    let files = [
        ("sslrootcert", &entry.sslrootcert),
        ("sslcert", &entry.sslcert),
        ("sslkey", &entry.sslkey),
    ];
    let settings = files
        .into_iter()
        .filter_map(|(key, value)| {
            let value = value.as_ref()?;
            // `system` is not a file: libpq's word for the platform's roots.
            let value = match value.as_str() {
                "system" => value.clone(),
                path => folder.join(path).display().to_string(),
            };
            Some((key, value))
        })
        .chain(entry.sslmode.as_ref().map(|m| ("sslmode", m.clone())));
    for (key, value) in settings {
        // The database as `Target` reads it: a file named `postgres.db` is SQLite's.
        if !matches!(Target::parse(&url), Ok(Target::Postgres(_))) {
            return Err(format!("`{key}` is for a PostgreSQL database"));
        }
        let query = url.split_once('?').map_or("", |(_, q)| q);
        if query.split('&').any(|p| p.split('=').next() == Some(key)) {
            return Err(format!(
                "`{key}` is both in the URL and in the table: keep one"
            ));
        }
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&format!("{key}={}", encoded(&value)));
    }
    Ok(url)
}

/// `text` percent-encoded for a URL's query value.
fn encoded(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Whether a database URL carries a password (`user:password@`, `?password=`).
fn holds_password(target: &Target) -> bool {
    let Target::Postgres(url) = target else {
        return false;
    };
    let rest = url.split_once("://").map_or("", |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'))
        || query.split('&').any(|p| {
            p.split('=')
                .next()
                .is_some_and(|k| k.eq_ignore_ascii_case("password"))
        })
}

/// `FILE:LINE:COLUMN` of the byte offset a span starts at.
fn at(path: &Path, text: &str, span: &Range<usize>) -> String {
    let start = (0..=span.start.min(text.len()))
        .rev()
        .find(|at| text.is_char_boundary(*at))
        .unwrap_or(0);
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{}:{line}:{column}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Vec<Tenant>, String> {
        let dir = std::env::temp_dir().join(format!("tenants-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A file of its own for each call: the tests run side by side.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("t{n}.toml"));
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        read(&path).map_err(|e| e.replace(&path.display().to_string(), "FILE"))
    }

    const TWO: &str = r#"
[[tenant]]
name = "acme"
interface = "v3"
database = "postgres://sync@db/fleet?sslmode=verify-full"
schema = "acme"
sslrootcert = "ca dir/ca.pem"
lookback = "3d"

[[tenant]]
name = "globex"
interface = "v3"
profile = "globex-prod"
database = "postgres://sync@db/fleet"
schema = "globex"
only = ["inspections"]
"#;

    #[test]
    fn tenants_take_their_settings_and_tls_files_into_the_url() {
        let tenants = read_text(TWO).unwrap();
        let acme = &tenants[0];
        assert_eq!(
            (acme.name.as_str(), acme.profile.as_str()),
            ("acme", "acme")
        );
        let Target::Postgres(url) = &acme.target else {
            panic!()
        };
        // The file's folder, where its relative TLS files are.
        let folder = std::env::temp_dir().join(format!("tenants-{}", std::process::id()));
        let root = folder.join("ca dir/ca.pem").display().to_string();
        let expected = format!(
            "postgres://sync@db/fleet?sslmode=verify-full&sslrootcert={}",
            root.replace(' ', "%20")
        );
        assert_eq!(url, &expected);
        assert_eq!(acme.lookback, Some(Duration::from_secs(3 * 86_400)));
        assert!(
            acme.interface_at.ends_with(".toml:4:13"),
            "{}",
            acme.interface_at
        );
        assert_eq!(tenants[1].profile, "globex-prod");
        assert_eq!(tenants[1].only, ["inspections"]);
    }

    #[test]
    fn a_refusal_names_the_line_and_column() {
        let unknown = read_text(
            "[[tenant]]\nname = \"a\"\ninterface = \"v3\"\ndatabase = \"x.db\"\ncolour = 1\n",
        );
        assert!(
            unknown
                .as_ref()
                .unwrap_err()
                .starts_with("FILE:5:1: unknown field `colour`"),
            "{unknown:?}"
        );
        let lookback = read_text(
            "[[tenant]]\nname = \"a\"\ninterface = \"v3\"\ndatabase = \"x.db\"\nlookback = \"a week\"\n",
        );
        assert!(
            lookback
                .as_ref()
                .unwrap_err()
                .starts_with("FILE:5:12: `a week` is not a duration"),
            "{lookback:?}"
        );
        let schema = read_text(
            "[[tenant]]\nname = \"a\"\ninterface = \"v3\"\ndatabase = \"x.db\"\nschema = \"s\"\n",
        );
        assert!(
            schema
                .as_ref()
                .unwrap_err()
                .contains("FILE:5:10: a SQLite file has no schemas"),
            "{schema:?}"
        );
        let twice = TWO.replace("schema = \"globex\"", "schema = \"acme\"");
        let twice = read_text(&twice).unwrap_err();
        assert!(
            twice.contains(
                "FILE:12:13: tenant `globex` syncs into the database and schema of tenant `acme`"
            ),
            "{twice}"
        );
        let both = TWO.replace("fleet?sslmode", "fleet?sslrootcert=x&sslmode");
        assert!(
            read_text(&both)
                .unwrap_err()
                .contains("`sslrootcert` is both in the URL and in the table")
        );
        assert!(
            read_text("")
                .unwrap_err()
                .contains("missing field `tenant`")
        );
        let file = "[[tenant]]\nname = \"a\"\ninterface = \"v3\"\ndatabase = \"postgres.db\"\nsslmode = \"require\"\n";
        let sqlite = read_text(file).unwrap_err();
        assert!(
            sqlite.contains("FILE:4:12: `sslmode` is for a PostgreSQL database"),
            "{sqlite}"
        );
    }

    #[test]
    fn a_file_with_a_password_must_be_its_owner_s_alone() {
        let with = TWO.replace(
            "postgres://sync@db/fleet\"",
            "postgres://sync:s3cret@db/fleet\"",
        );
        let refused = read_text(&with).unwrap_err();
        assert!(
            refused.contains("the tenants file FILE can be read or changed by others"),
            "{refused}"
        );
        assert!(!refused.contains("s3cret"));
        assert!(holds_password(
            &Target::parse("postgres://u@h/d?password=x").unwrap()
        ));
        assert!(!holds_password(&Target::parse("postgres://u@h/d").unwrap()));
    }
}
