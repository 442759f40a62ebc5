//! Checks `spec/packages.yaml`: each name must be one its language's registry and its
//! imports accept, or the diagnostic says which rule it breaks, at its line:column.

use serde_saphyr::Spanned;

use crate::backend::{Language, is_keyword};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::ir;
use crate::spec::packages::PackagesFile;

/// A rule a package name must keep: what it is called, whether a name keeps it, and what
/// a valid one looks like (the help).
struct Rule {
    what: &'static str,
    valid: fn(&str) -> bool,
    help: &'static str,
}

const RUST_CRATE: Rule = Rule {
    what: "rust.crate",
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
    what: "typescript.package",
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
    what: "python.distribution",
    valid: |n| {
        n.starts_with(|c: char| c.is_ascii_alphanumeric())
            && n.ends_with(|c: char| c.is_ascii_alphanumeric())
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    },
    help: "a distribution name is ASCII letters, digits, `-`, `_` and `.`, and starts and ends with a letter or digit (PEP 508)",
};

const PYTHON_MODULE: Rule = Rule {
    what: "python.module",
    valid: |n| lower_identifier(n) && !is_keyword(Language::Python, n),
    help: "an import name is a lowercase Python identifier (letters, digits, `_`, not starting with a digit) that is not a keyword",
};

const JAVA_GROUP: Rule = Rule {
    what: "java.group",
    valid: java_package_name,
    help: "a group id is dot-separated lowercase Java identifiers that are not keywords, `dev.inspection` for example",
};

const JAVA_ARTIFACT: Rule = Rule {
    what: "java.artifact",
    valid: |n| {
        n.starts_with(|c: char| c.is_ascii_lowercase())
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
    },
    help: "an artifact id is lowercase ASCII letters, digits, `-`, `_` and `.`, starting with a letter",
};

const JAVA_PACKAGE: Rule = Rule {
    what: "java.package",
    valid: java_package_name,
    help: "a Java package is dot-separated lowercase Java identifiers that are not keywords, `dev.inspection.client` for example",
};

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

/// The checked package names of `file`, shown as `shown` in diagnostics.
pub fn check(shown: &str, file: &PackagesFile) -> Result<ir::Packages, Diagnostics> {
    let mut problems = Vec::new();
    let mut take = |name: &Spanned<String>, rule: &Rule| {
        if !(rule.valid)(&name.value) {
            problems.push(Diagnostic {
                file: shown.to_string(),
                line: name.referenced.line() as u32,
                column: name.referenced.column() as u32,
                message: format!("`{}` cannot be the {}", super::clip(&name.value), rule.what),
                help: rule.help.to_string(),
            });
        }
        name.value.clone()
    };
    let packages = ir::Packages {
        rust_crate: take(&file.rust.krate, &RUST_CRATE),
        typescript_package: take(&file.typescript.package, &NPM_PACKAGE),
        python_distribution: take(&file.python.distribution, &PYTHON_DISTRIBUTION),
        python_module: take(&file.python.module, &PYTHON_MODULE),
        java_group: take(&file.java.group, &JAVA_GROUP),
        java_artifact: take(&file.java.artifact, &JAVA_ARTIFACT),
        java_package: take(&file.java.package, &JAVA_PACKAGE),
    };
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
        let cases: [(&Rule, &str, &str); 7] = [
            (&RUST_CRATE, "inspection-client", "Inspection"),
            (&NPM_PACKAGE, "@acme/inspection-client", "_private"),
            (&PYTHON_DISTRIBUTION, "inspection-client", "-dash"),
            (&PYTHON_MODULE, "inspection_client", "class"),
            (&JAVA_GROUP, "dev.inspection", "dev.inspection-x"),
            (&JAVA_ARTIFACT, "inspection-client", "Client"),
            (&JAVA_PACKAGE, "dev.inspection.client", "dev.new.client"),
        ];
        for (rule, good, bad) in cases {
            assert!((rule.valid)(good), "{} should take {good}", rule.what);
            assert!(!(rule.valid)(bad), "{} should refuse {bad}", rule.what);
        }
        assert!(!(RUST_CRATE.valid)("async"));
        assert!(!(NPM_PACKAGE.valid)("@/x"));
    }
}
