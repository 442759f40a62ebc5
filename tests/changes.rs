//! The change classification: one spec mutation per rule of the table in docs/maintainers.md,
//! each with how users of the clients are affected, as a table of cases.

use std::sync::LazyLock;

use codegen::ir::Api;
use codegen::ir::diff::{Change, Impact, diff};

/// A small spec with a request record, a response record, an open enum, a union (the
/// generator's test `Shape`) and two operations (one with a limited path parameter and
/// query parameters).
static BASE: LazyLock<String> =
    LazyLock::new(|| [TYPES, codegen::test_spec::SHAPE, OPERATIONS].concat());

const TYPES: &str = r#"
interface:
  name: shop
  title: Shop
  doc: A test interface.
  base_url: { placeholder: "{base_url}", example: "https://example.test", doc: Root. }
  auth:
    api_key_headers:
      doc: Keys.
      unauthorized_status: 401
      headers:
        key: { doc: The key id. }
        secret: { doc: The secret., sensitive: true }
  versioning: None.
types:
  Kind:
    enum:
      doc: Kinds.
      open: true
      values:
        small: Small.
        large: Large.
  NewItem:
    object:
      doc: A request body.
      fields:
        name: { type: string, doc: The name., required: true, max_length: 50 }
        note: { type: string, doc: A note. }
  Item:
    object:
      doc: A response record.
      fields:
        id: { type: string, doc: The id., required: true }
        kind: { type: Kind, doc: Its kind. }
        shape: { type: Shape, doc: Its shape. }
"#;

const OPERATIONS: &str = r#"operations:
  create_item:
    doc: Creates an item.
    method: POST
    path: /items
    body: { type: NewItem }
    responses:
      - { status: 201, body: Item, doc: The item. }
  find_item:
    doc: Finds an item.
    method: GET
    path: /items/{code}
    path_params:
      code: { type: string, doc: The code., max_length: 9 }
    query:
      color: { type: string, doc: A color. }
    responses:
      - { status: 200, body: Item, doc: The item. }
"#;

fn load(text: &str) -> Api {
    Api::new(vec![
        codegen::load_str("shop.yaml", text).unwrap_or_else(|d| panic!("{d}")),
    ])
}

/// A mutation of the base spec.
enum Edit {
    /// The first `from` becomes `to`.
    Replace(&'static str, &'static str),
    /// Everything from `at` on is cut (the last operations).
    CutFrom(&'static str),
    /// Text added at the end (an operation).
    Append(&'static str),
}

impl Edit {
    fn apply(&self, base: &str) -> Result<String, String> {
        let find = |what: &str| {
            base.find(what)
                .ok_or_else(|| format!("the base spec has no `{what}`"))
        };
        let edited = match *self {
            Edit::Replace(from, to) => find(from).map(|_| base.replacen(from, to, 1)),
            Edit::CutFrom(at) => find(at).map(|i| base[..i].to_string()),
            Edit::Append(text) => Ok(format!("{base}{text}")),
        }?;
        match edited == base {
            true => Err("the edit leaves the spec as it was".into()),
            false => Ok(edited),
        }
    }
}

/// One rule: an edit, and the impact of the change whose text names `names`.
struct Case {
    rule: &'static str,
    edit: Edit,
    names: &'static str,
    impact: Impact,
    semver: Semver,
}

/// What cargo-semver-checks says of the Rust crate the edited spec generates, against the
/// base spec's crate (the ignored `semver_checks_on_every_case` test checks it; the table in
/// docs/maintainers.md is what it prints).
#[derive(Debug, PartialEq)]
enum Semver {
    /// It asks for a major release, naming these lints.
    Major(&'static [&'static str]),
    /// It asks for nothing, and rightly: an addition or a docs change.
    Nothing,
    /// It asks for nothing, but the change breaks users: this is why it cannot see it.
    Blind(&'static str),
}

use Edit::{Append, CutFrom, Replace};
use Impact::{Additive, Breaking, Docs};
use Semver::{Blind, Major, Nothing};

const CASES: &[Case] = &[
    Case {
        rule: "a new optional request field is additive",
        edit: Replace(
            "        note: { type: string, doc: A note. }\n",
            "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New. }\n",
        ),
        names: "NewItem.color",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a new required request field is breaking",
        edit: Replace(
            "        note: { type: string, doc: A note. }\n",
            "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New., required: true }\n",
        ),
        names: "NewItem.color",
        impact: Breaking,
        semver: Major(&["method_parameter_count_changed"]),
    },
    Case {
        rule: "a new optional response field is additive",
        edit: Replace(
            "        shape: { type: Shape, doc: Its shape. }\n",
            "        shape: { type: Shape, doc: Its shape. }\n        size: { type: integer, doc: New. }\n",
        ),
        names: "Item.size",
        impact: Additive,
        semver: Nothing,
    },
    // Found by cargo-semver-checks (the `semver` test below): reading answers is not
    // affected, but the record's constructor takes the new field in every language.
    Case {
        rule: "a new required response field is breaking: code that builds the record",
        edit: Replace(
            "        shape: { type: Shape, doc: Its shape. }\n",
            "        shape: { type: Shape, doc: Its shape. }\n        size: { type: integer, doc: New., required: true }\n",
        ),
        names: "required field `Item.size` added (code that builds the record must give it)",
        impact: Breaking,
        semver: Major(&["method_parameter_count_changed"]),
    },
    Case {
        rule: "a new union member is additive",
        edit: Replace(
            "        round: { shape: Round, doc: Round. }\n",
            "        round: { shape: Round, doc: Round. }\n        square: { shape: Round, doc: Square. }\n",
        ),
        names: "member `square` added",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a new enum value is additive",
        edit: Replace(
            "        large: Large.\n",
            "        large: Large.\n        huge: Huge.\n",
        ),
        names: "value `huge` added",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a looser request limit is additive",
        edit: Replace("max_length: 9 }", "max_length: 20 }"),
        names: "limit is looser",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a tighter request limit is breaking",
        edit: Replace("max_length: 50 }", "max_length: 40 }"),
        names: "limit is tighter",
        impact: Breaking,
        semver: Blind(
            "the limit is checked when a request is sent, in the generated validator; no signature changes",
        ),
    },
    Case {
        rule: "a new operation is additive",
        edit: Append(
            "  list_items:\n    doc: Lists items.\n    method: GET\n    path: /items\n    \
             responses:\n      - { status: 200, body: Item, doc: An item. }\n",
        ),
        names: "operation `list_items` added",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a new optional query parameter is additive",
        edit: Replace(
            "      color: { type: string, doc: A color. }\n",
            "      color: { type: string, doc: A color. }\n      size: { type: integer, doc: A size. }\n",
        ),
        names: "query parameter `size` added",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a removed operation is breaking",
        edit: CutFrom("  find_item:"),
        names: "operation `find_item` removed",
        impact: Breaking,
        semver: Major(&["inherent_method_missing", "struct_missing"]),
    },
    Case {
        rule: "a removed field is breaking",
        edit: Replace("        note: { type: string, doc: A note. }\n", ""),
        names: "NewItem.note` removed",
        impact: Breaking,
        semver: Major(&["inherent_method_missing", "struct_pub_field_missing"]),
    },
    Case {
        rule: "a removed enum value is breaking",
        edit: Replace("        large: Large.\n", ""),
        names: "value `large` removed",
        impact: Breaking,
        semver: Major(&["enum_variant_missing", "inherent_method_missing"]),
    },
    Case {
        rule: "a changed type is breaking",
        edit: Replace(
            "        radius: { type: integer, doc: The radius. }",
            "        radius: { type: string, doc: The radius. }",
        ),
        names: "type `integer` is now `string`",
        impact: Breaking,
        semver: Blind(
            "a public field's type changed (`Option<i64>` to `Option<String>`): no lint compares the types of fields",
        ),
    },
    Case {
        rule: "a rename is breaking: the old name is removed",
        edit: Replace(
            "        note: { type: string",
            "        remark: { type: string",
        ),
        names: "NewItem.note` removed",
        impact: Breaking,
        semver: Major(&["inherent_method_missing", "struct_pub_field_missing"]),
    },
    Case {
        rule: "a rename is breaking: the new name is added",
        edit: Replace(
            "        note: { type: string",
            "        remark: { type: string",
        ),
        names: "NewItem.remark` added",
        impact: Additive,
        semver: Major(&["inherent_method_missing", "struct_pub_field_missing"]),
    },
    Case {
        rule: "a docs change is docs only",
        edit: Replace("doc: Finds an item.", "doc: Finds one item by its code."),
        names: "operation `find_item`: docs changed",
        impact: Docs,
        semver: Nothing,
    },
    // The auth's own doc and its headers' docs say nothing about how the clients behave.
    Case {
        rule: "the auth's doc changed is docs only",
        edit: Replace("      doc: Keys.\n", "      doc: The key pair.\n"),
        names: "authentication",
        impact: Docs,
        semver: Nothing,
    },
    Case {
        rule: "an auth header's doc changed is docs only",
        edit: Replace(
            "key: { doc: The key id. }",
            "key: { doc: The id of the key. }",
        ),
        names: "authentication",
        impact: Docs,
        semver: Nothing,
    },
    Case {
        rule: "another unauthorized status is breaking",
        edit: Replace("unauthorized_status: 401", "unauthorized_status: 403"),
        names: "authentication",
        impact: Breaking,
        semver: Blind(
            "which status means the credentials were refused is behaviour: no signature changes",
        ),
    },
    Case {
        rule: "a changed rate limit is additive",
        edit: Replace(
            "  versioning: None.\n",
            "  versioning: None.\n  rate_limit:\n    requests: 10\n    window_seconds: 1\n    scope: key\n    status: 429\n    doc: Ten a second.\n",
        ),
        names: "rate limit",
        impact: Additive,
        semver: Nothing,
    },
    Case {
        rule: "a response field no longer promised is breaking",
        edit: Replace(
            "        id: { type: string, doc: The id., required: true }",
            "        id: { type: string, doc: The id. }",
        ),
        names: "Item.id` is now optional",
        impact: Breaking,
        semver: Major(&["inherent_method_missing"]),
    },
    Case {
        rule: "a changed method is breaking",
        edit: Replace("    method: POST\n", "    method: PUT\n"),
        names: "method or path changed",
        impact: Breaking,
        semver: Blind("the HTTP method is behaviour: no signature changes"),
    },
    Case {
        rule: "a closed enum is breaking",
        edit: Replace("      open: true\n", "      open: false\n"),
        names: "enum `Kind` closed",
        impact: Breaking,
        semver: Major(&[
            "copy_impl_added",
            "enum_variant_missing",
            "inherent_method_missing",
        ]),
    },
    Case {
        rule: "a new type is additive",
        edit: Replace(
            "types:\n",
            "types:\n  Color:\n    enum:\n      doc: Colors.\n      open: true\n      values:\n        red: Red.\n",
        ),
        names: "type `Color` added",
        impact: Additive,
        semver: Nothing,
    },
];

/// The impact of the changes whose text names `what` (there must be one, and when several
/// name it they must agree).
fn classified(found: &[Change], what: &str) -> Result<Impact, String> {
    let named: Vec<Impact> = found
        .iter()
        .filter(|c| c.what.contains(what))
        .map(|c| c.impact)
        .collect();
    let Some(first) = named.first() else {
        return Err(format!("no change names `{what}`: {found:#?}"));
    };
    if named.iter().any(|i| i != first) {
        return Err(format!("the changes naming `{what}` disagree: {found:#?}"));
    }
    Ok(*first)
}

#[test]
fn an_unchanged_spec_has_no_changes() {
    assert!(diff(&load(&BASE), &load(&BASE)).is_empty());
}

/// Every case runs; the failures are listed together, each under its rule.
#[test]
fn every_rule_classifies_its_change() {
    let base = load(&BASE);
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| {
            let outcome = case.edit.apply(&BASE).and_then(|edited| {
                let found = diff(&base, &load(&edited));
                let impact = classified(&found, case.names)?;
                match impact == case.impact {
                    true => Ok(()),
                    false => Err(format!("{impact:?}, not {:?}: {found:#?}", case.impact)),
                }
            });
            outcome.err().map(|e| format!("{}: {e}", case.rule))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// cargo-semver-checks on the Rust crate that each case's spec generates, against the base
/// spec's crate: where the Rust API shows the change, it must see what the IR report says.
/// Not in CI (cargo-semver-checks took 22 minutes to build here): install it with
/// `cargo install --locked cargo-semver-checks`, then
/// `cargo test -p tests --test changes -- --ignored --nocapture`. docs/maintainers.md
/// has the table this prints, and what each disagreement means.
mod semver {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::*;

    /// What cargo-semver-checks said of a crate against the baseline: the lints that
    /// failed, and the release its summary asks for.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Verdict {
        pub release: &'static str,
        pub lints: Vec<String>,
        /// What it printed.
        pub text: String,
    }

    /// The workspace of one generated crate: the crate under `generated/rust`, the runtime
    /// beside it (the crate's manifest points at `../../runtime`), and the repository's
    /// dependency versions and lockfile.
    pub fn write_crate(work: &Path, api: &Api) -> PathBuf {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let _ = std::fs::remove_dir_all(work);
        for file in codegen::generate(api).unwrap() {
            if file.path.starts_with("generated/rust/") {
                let path = work.join(&file.path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, file.contents).unwrap();
            }
        }
        copy_dir(&root.join("runtime"), &work.join("runtime"));
        std::fs::copy(root.join("Cargo.lock"), work.join("Cargo.lock")).unwrap();
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let manifest: Vec<&str> = manifest
            .split("\n[profile")
            .next()
            .unwrap()
            .lines()
            .map(|l| match l.starts_with("members = ") {
                true => r#"members = ["runtime", "generated/rust"]"#,
                false => l,
            })
            .collect();
        std::fs::write(work.join("Cargo.toml"), manifest.join("\n") + "\n").unwrap();
        work.to_path_buf()
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            match entry.file_type().unwrap().is_dir() {
                true => copy_dir(&entry.path(), &to.join(entry.file_name())),
                false => {
                    std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
                }
            }
        }
    }

    /// `cargo semver-checks` of the crate in `current` against the one in `baseline`
    /// (both at the same version, so every change is judged), all their builds in one
    /// target folder.
    pub fn check(current: &Path, baseline: &Path, target: &Path) -> Verdict {
        let cargo = std::env::var("CARGO").unwrap_or("cargo".into());
        let out = Command::new(cargo)
            .args(["semver-checks", "check-release", "-p", "inspection-client"])
            .arg("--manifest-path")
            .arg(current.join("Cargo.toml"))
            .arg("--baseline-root")
            .arg(baseline)
            .env("CARGO_TARGET_DIR", target)
            .env("CARGO_TERM_COLOR", "never")
            .output()
            .expect("cargo semver-checks runs (cargo install --locked cargo-semver-checks)");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let lints = text
            .lines()
            .filter_map(|l| l.strip_prefix("--- failure "))
            .filter_map(|l| l.split(':').next())
            .map(str::to_string)
            .collect();
        let release = if text.contains("semver requires new major version") {
            "major"
        } else if text.contains("semver requires new minor version") {
            "minor"
        } else if out.status.success() {
            "none"
        } else {
            panic!("cargo semver-checks failed:\n{text}")
        };
        Verdict {
            release,
            lints,
            text,
        }
    }

    /// The spec at version 1.0.0 on both sides: at one version cargo-semver-checks judges
    /// every change as if for a patch release, and a break reads as "major".
    pub fn at_1_0(mut api: Api) -> Api {
        api.version = "1.0.0".to_string();
        api
    }

    pub fn work() -> PathBuf {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("semver")
    }

    /// Every case's verdict, each edit checked once (the two sides of the rename share
    /// one).
    pub fn every_case() -> BTreeMap<&'static str, Verdict> {
        let work = work();
        let target = work.join("target");
        let base = write_crate(&work.join("base"), &at_1_0(load(&BASE)));
        let mut done: Vec<(String, &'static str)> = Vec::new();
        let mut found: BTreeMap<&'static str, Verdict> = BTreeMap::new();
        for (n, case) in CASES.iter().enumerate() {
            let edited = case.edit.apply(&BASE).unwrap();
            if let Some((_, first)) = done.iter().find(|(text, _)| *text == edited) {
                let again: Verdict = found[first].clone();
                found.insert(case.rule, again);
                continue;
            }
            let dir = write_crate(&work.join(format!("case-{n}")), &at_1_0(load(&edited)));
            let verdict = check(&dir, &base, &target);
            done.push((edited, case.rule));
            found.insert(case.rule, verdict);
        }
        found
    }
}

/// The strongest impact among the changes an edit makes (the verdict of cargo-semver-checks
/// is about the whole edit: a rename is a removal and an addition).
fn strongest(found: &[Change]) -> Option<Impact> {
    found.iter().map(|c| c.impact).min()
}

/// The semver column agrees with the classification: cargo-semver-checks fails exactly the
/// edits that break users, or the case says why it cannot see the break.
#[test]
fn the_semver_column_follows_the_impact() {
    let base = load(&BASE);
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| {
            let edited = case.edit.apply(&BASE).ok()?;
            let impact = strongest(&diff(&base, &load(&edited)));
            let consistent = match (&case.semver, impact) {
                (Major(lints), Some(Breaking)) => !lints.is_empty(),
                (Blind(why), Some(Breaking)) => !why.is_empty(),
                (Nothing, Some(Additive | Docs)) => true,
                _ => false,
            };
            (!consistent).then(|| format!("{}: {:?} for {impact:?}", case.rule, case.semver))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs cargo-semver-checks (docs/maintainers.md)"]
fn semver_checks_on_every_case() {
    let found = semver::every_case();
    println!("| Mutation | IR report | cargo-semver-checks |\n|---|---|---|");
    let mut failures = Vec::new();
    for case in CASES {
        let verdict = &found[case.rule];
        let mut lints = verdict.lints.clone();
        lints.sort();
        let shown = match &case.semver {
            Major(_) => format!("major: {}", lints.join(", ")),
            Nothing => "nothing".to_string(),
            Blind(why) => format!("nothing (blind: {why})"),
        };
        println!("| {} | {:?} | {shown} |", case.rule, case.impact);
        let agrees = match &case.semver {
            Major(expected) => verdict.release == "major" && lints == *expected,
            Nothing | Blind(_) => verdict.release == "none" && lints.is_empty(),
        };
        if !agrees {
            failures.push(format!(
                "{}: expected {:?}, found {verdict:?}",
                case.rule, case.semver
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The spec of the last release as today's loader reads it: the spec files of the commit
/// that last wrote `spec/released.json`, less the `keep_unknown` keys (since removed from
/// the format: every record keeps unknown properties now). Not the released IR itself:
/// an IR written by an older generator lacks what today's backends read (the call plans),
/// so today's generator would render it wrong.
fn released_spec(root: &std::path::Path) -> Api {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let rev = git(&["log", "-1", "--format=%H", "--", "spec/released.json"]);
    let rev = rev.trim();
    let interfaces = git(&["ls-tree", "--name-only", rev, "spec/"])
        .lines()
        .filter(|f| f.ends_with(".yaml"))
        .map(|file| {
            let text: String = git(&["show", &format!("{rev}:{file}")])
                .lines()
                .filter(|l| !l.trim_start().starts_with("keep_unknown:"))
                .map(|l| format!("{l}\n"))
                .collect();
            codegen::load_str(file, &text).unwrap_or_else(|d| panic!("{d}"))
        })
        .collect();
    Api::new(interfaces)
}

/// The crate of the last release's spec against today's, both generated by today's
/// generator so that only the spec's changes show: prints what cargo-semver-checks finds
/// beside the IR report's breaking changes (docs/maintainers.md compares them).
#[test]
#[ignore = "needs cargo-semver-checks (docs/maintainers.md)"]
fn semver_checks_from_the_last_release() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let released = released_spec(&root);
    let today = codegen::load_dir(&root, &root.join("spec")).unwrap();
    let breaking: Vec<Change> = diff(&released, &today)
        .into_iter()
        .filter(|c| c.impact == Breaking)
        .collect();
    let work = semver::work();
    let old = semver::write_crate(&work.join("released"), &semver::at_1_0(released));
    let new = semver::write_crate(&work.join("today"), &semver::at_1_0(today));
    let verdict = semver::check(&new, &old, &work.join("target"));
    println!("{}", verdict.text);
    println!("The IR report's breaking changes:");
    for c in &breaking {
        println!("  {}: {}", c.interface, c.what);
    }
    assert!(!breaking.is_empty());
    assert_eq!(verdict.release, "major", "{}", verdict.text);
}
