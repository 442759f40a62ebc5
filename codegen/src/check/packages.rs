//! Checks `spec/packages.yaml`: each name must be one its language's registry and its
//! imports accept, or the diagnostic says which rule it breaks, at its line:column.

use serde_saphyr::Spanned;

use crate::backend::{Language, is_keyword};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::ir;
use crate::spec::packages::PackagesFile;

/// A rule a package name must keep: whether a name keeps it, and what a valid one looks
/// like (the help).
struct Rule {
    valid: fn(&str) -> bool,
    help: &'static str,
}

const RUST_CRATE: Rule = Rule {
    valid: |n| {
        n.len() <= 64
            && n.starts_with(|c: char| c.is_ascii_lowercase())
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            && !is_keyword(Language::Rust, &n.replace('-', "_"))
    },
    help: "a crate name is lowercase ASCII letters, digits, `-` and `_`, starts with a letter, is at most 64 characters and is not a Rust keyword",
};

const NPM_PACKAGE: Rule = Rule {
    valid: |n| {
        let bare = match n.strip_prefix('@').and_then(|s| s.split_once('/')) {
            Some((scope, name)) => npm_part(scope).then_some(name),
            None => Some(n),
        };
        n.len() <= 214 && bare.is_some_and(npm_part)
    },
    help: "an npm name is lowercase letters, digits, `-`, `.`, `_` and `~`, does not start with `.` or `_`, optionally under an `@scope/`, and is at most 214 characters",
};

const PYTHON_DISTRIBUTION: Rule = Rule {
    valid: |n| {
        n.starts_with(|c: char| c.is_ascii_alphanumeric())
            && n.ends_with(|c: char| c.is_ascii_alphanumeric())
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    },
    help: "a distribution name is ASCII letters, digits, `-`, `_` and `.`, and starts and ends with a letter or digit (PEP 508)",
};

const PYTHON_MODULE: Rule = Rule {
    valid: |n| lower_identifier(n) && !is_keyword(Language::Python, n),
    help: "an import name is a lowercase Python identifier (letters, digits, `_`, not starting with a digit) that is not a keyword",
};

const JAVA_ARTIFACT: Rule = Rule {
    valid: |n| {
        n.starts_with(|c: char| c.is_ascii_lowercase())
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
    },
    help: "an artifact id is lowercase ASCII letters, digits, `-`, `_` and `.`, starting with a letter",
};

/// A Java package name; the Maven group id keeps the same rule here (dot-separated Java
/// identifiers), so the one rule serves `java.group` and `java.package`.
const JAVA_PACKAGE: Rule = Rule {
    valid: java_package_name,
    help: "a Java package or group id is dot-separated lowercase Java identifiers that are not keywords, `dev.inspection.client` for example",
};

const GO_MODULE: Rule = Rule {
    valid: go_module_path,
    help: "a Go module path is `/`-separated elements of ASCII letters, digits, `-`, `.`, `_` and `~`, none empty or starting or ending with `.`; the first is a lowercase domain name with a dot (`inspection.dev/client`)",
};

fn go_module_path(n: &str) -> bool {
    let element = |e: &str| {
        !e.is_empty()
            && !e.starts_with('.')
            && !e.ends_with('.')
            && e.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
    };
    let first = n.split('/').next().unwrap_or_default();
    n.split('/').all(element)
        && first.contains('.')
        && first
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-.".contains(c))
}

/// The Go rule for major versions: from 2 on, the module path ends in `/vN` (N the major
/// version); below 2 it ends in no such element. `None` when the path keeps it.
fn go_major_version_problem(module: &str, major: u64) -> Option<String> {
    let last = module.rsplit('/').next().unwrap_or_default();
    let suffix = last
        .strip_prefix('v')
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        .and_then(|n| n.parse::<u64>().ok());
    match (major >= 2, suffix) {
        (true, Some(n)) if n == major => None,
        (true, _) => Some(format!(
            "version {major} of a Go module is published under a path ending in `/v{major}`"
        )),
        (false, Some(n)) => Some(format!(
            "a path ending in `/v{n}` is for version {n} of a Go module, and `VERSION` is {major}.x"
        )),
        (false, None) => None,
    }
}

fn npm_part(n: &str) -> bool {
    !n.is_empty()
        && !n.starts_with(['.', '_'])
        && n.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~".contains(c))
}

fn lower_identifier(n: &str) -> bool {
    n.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && n.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn java_package_name(n: &str) -> bool {
    n.split('.')
        .all(|part| lower_identifier(part) && !is_keyword(Language::Java, part))
}

/// The checked package names of `file`, shown as `shown` in diagnostics; `major` is the
/// release's major version (`VERSION`), which the Go module path must name from 2 on.
pub fn check(shown: &str, file: &PackagesFile, major: u64) -> Result<ir::Packages, Diagnostics> {
    let mut problems = Vec::new();
    let mut take = |name: &Spanned<String>, what: &str, rule: &Rule| {
        if !(rule.valid)(&name.value) {
            problems.push(Diagnostic {
                file: shown.to_string(),
                line: name.referenced.line() as u32,
                column: name.referenced.column() as u32,
                message: format!("`{}` cannot be the {}", super::clip(&name.value), what),
                help: rule.help.to_string(),
            });
        }
        name.value.clone()
    };
    let packages = ir::Packages {
        rust_crate: take(&file.rust.krate, "rust.crate", &RUST_CRATE),
        typescript_package: take(&file.typescript.package, "typescript.package", &NPM_PACKAGE),
        python_distribution: take(
            &file.python.distribution,
            "python.distribution",
            &PYTHON_DISTRIBUTION,
        ),
        python_module: take(&file.python.module, "python.module", &PYTHON_MODULE),
        java_group: take(&file.java.group, "java.group", &JAVA_PACKAGE),
        java_artifact: take(&file.java.artifact, "java.artifact", &JAVA_ARTIFACT),
        java_package: take(&file.java.package, "java.package", &JAVA_PACKAGE),
        go_module: take(&file.go.module, "go.module", &GO_MODULE),
    };
    let module = &file.go.module;
    if let Some(message) = go_major_version_problem(&module.value, major) {
        problems.push(Diagnostic {
            file: shown.to_string(),
            line: module.referenced.line() as u32,
            column: module.referenced.column() as u32,
            message,
            help: format!(
                "set go.module to a path ending in `/v{major}` when VERSION's major version is {major} (2 or more), and to one without a `/vN` element before that"
            ),
        });
    }
    if problems.is_empty() {
        Ok(packages)
    } else {
        Err(Diagnostics(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_takes_the_projects_names_and_refuses_a_broken_one() {
        let cases: [(&str, &Rule, &str, &str); 8] = [
            ("rust.crate", &RUST_CRATE, "inspection-client", "Inspection"),
            (
                "typescript.package",
                &NPM_PACKAGE,
                "@acme/inspection-client",
                "_private",
            ),
            (
                "python.distribution",
                &PYTHON_DISTRIBUTION,
                "inspection-client",
                "-dash",
            ),
            (
                "python.module",
                &PYTHON_MODULE,
                "inspection_client",
                "class",
            ),
            (
                "java.group",
                &JAVA_PACKAGE,
                "dev.inspection",
                "dev.inspection-x",
            ),
            (
                "java.artifact",
                &JAVA_ARTIFACT,
                "inspection-client",
                "Client",
            ),
            (
                "java.package",
                &JAVA_PACKAGE,
                "dev.inspection.client",
                "dev.new.client",
            ),
            (
                "go.module",
                &GO_MODULE,
                "inspection.dev/client",
                "inspection/client",
            ),
        ];
        for (what, rule, good, bad) in cases {
            assert!((rule.valid)(good), "{what} should take {good}");
            assert!(!(rule.valid)(bad), "{what} should refuse {bad}");
        }
        assert!(!(RUST_CRATE.valid)("async"));
        assert!(!(NPM_PACKAGE.valid)("@/x"));
        assert!(!(GO_MODULE.valid)("Inspection.dev/client"));
        assert!(!(GO_MODULE.valid)("inspection.dev//client"));
        assert!((GO_MODULE.valid)("example.com/acme/inspection-go"));
    }

    #[test]
    fn the_go_module_path_names_a_major_version_of_two_or_more() {
        assert_eq!(go_major_version_problem("inspection.dev/client", 0), None);
        assert_eq!(go_major_version_problem("inspection.dev/client", 1), None);
        assert_eq!(
            go_major_version_problem("inspection.dev/client/v2", 2),
            None
        );
        assert!(go_major_version_problem("inspection.dev/client", 2).is_some());
        assert!(go_major_version_problem("inspection.dev/client/v2", 3).is_some());
        assert!(go_major_version_problem("inspection.dev/client/v2", 1).is_some());
        // An element that only looks like a version is a name.
        assert_eq!(go_major_version_problem("inspection.dev/v2beta", 1), None);
    }
}
