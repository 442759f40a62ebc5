//! The code map of ARCHITECTURE.md holds: each module of `codegen/src` has a row, and uses
//! (`crate::<module>`) only what its row's "May use" column names. The document is the one
//! statement of the rules; this test reads it, so the two cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The top-level modules of `codegen/src` (a folder or a file), `lib` left out: it is the
/// crate's root and may use everything.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&path, &mut files);
        modules.insert(name, files);
    }
    modules
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The modules a file names as `crate::<module>`, outside its unit tests (which may reach
/// further, as `ir`'s load a spec) and macro paths (`$crate::`).
fn uses(text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$')
            || code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if known.contains(&name) {
            found.insert(name);
        } else if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a, b::{c, d}}`: the first name of each item at the group's own
            // depth (a nested group's names are not modules of the crate).
            let (mut depth, mut item_start) = (0, true);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        item_start = false;
                        let first: String = group[i..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if known.contains(&first) {
                            found.insert(first);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    found
}

/// The code map's rows for `codegen/src`: each module the first cell names, with the
/// modules its "May use" cell names (in backticks; "everything in codegen" is all).
fn rules(doc: &str, known: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(|s| s.trim_end_matches('/').to_string())
            .collect()
    };
    let mut rules = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `codegen/src/")) {
        let cells: Vec<&str> = line.split('|').collect();
        let (held, may) = (cells[1], cells[cells.len() - 2]);
        let allowed: BTreeSet<String> = if may.contains("everything in codegen") {
            known.clone()
        } else {
            ticked(may)
                .into_iter()
                .filter(|m| known.contains(m))
                .collect()
        };
        for module in ticked(held) {
            let module = module
                .trim_start_matches("codegen/src/")
                .trim_end_matches(".rs")
                .to_string();
            rules.insert(module, allowed.clone());
        }
    }
    rules
}

#[test]
fn codegen_modules_use_only_what_the_code_map_allows() {
    let root = root();
    let modules = modules(&root.join("codegen/src"));
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let rules = rules(&doc, &known);
    let mut problems = Vec::new();
    for (module, files) in &modules {
        let Some(allowed) = rules.get(module) else {
            problems.push(format!(
                "`codegen/src/{module}` has no row in ARCHITECTURE.md's code map"
            ));
            continue;
        };
        for file in files {
            let text = fs::read_to_string(file).unwrap();
            for used in uses(&text, &known) {
                if used != *module && !allowed.contains(&used) {
                    problems.push(format!(
                        "{} uses `crate::{used}`, which the code map's row for `{module}` does not allow",
                        file.strip_prefix(&root).unwrap_or(file).display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rules themselves allow no cycle: whatever the modules use within them, codegen's
/// imports run one way (the crate root, which may use everything, aside).
#[test]
fn the_code_map_allows_no_import_cycle() {
    let root = root();
    let known: BTreeSet<String> = modules(&root.join("codegen/src")).keys().cloned().collect();
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut rules = rules(&doc, &known);
    rules.remove("lib");
    assert_eq!(cycle(&rules), None);
}

/// A cycle of `rules` (module -> the modules it may use), as the path that closes it.
fn cycle(rules: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        rules: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut found = path[start..].to_vec();
            found.push(at.to_string());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in rules.get(at).into_iter().flatten().filter(|m| *m != at) {
            if let Some(found) = visit(next, rules, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    rules
        .keys()
        .find_map(|m| visit(m, rules, &mut Vec::new(), &mut done))
}

/// The reader above finds what it must (a rule it cannot see would hold vacuously).
#[test]
fn the_reader_sees_uses_and_rows() {
    let known: BTreeSet<String> = ["ir", "spec", "output", "templates"]
        .map(String::from)
        .into();
    let text = "use crate::ir::Api;\nuse crate::{output::OutputFile, templates};\n\
                $crate::spec::x\n#[cfg(test)]\nmod tests {\n    use crate::spec;\n}\n";
    assert_eq!(
        uses(text, &known),
        ["ir", "output", "templates"].map(String::from).into()
    );
    // A nested group counts by its own first name and hides nothing after it; an item
    // inside it is not a module of the crate, whatever its name.
    let nested = "use crate::{\n    ir::{Api, spec},\n    output,\n};\n\
                  #[cfg(test)]\nfn helper() {}\nuse crate::templates;\n";
    assert_eq!(
        uses(nested, &known),
        ["ir", "output", "templates"].map(String::from).into()
    );
    let doc = "| `codegen/src/a/`, `templates.rs` | Holds `spec`. | `ir`, serde |\n\
               | `codegen/src/lib.rs` | Root. | everything in codegen |\n";
    let rules = rules(doc, &known);
    assert_eq!(rules["a"], ["ir"].map(String::from).into());
    assert_eq!(rules["templates"], ["ir"].map(String::from).into());
    assert_eq!(rules["lib"], known);
    let mut looped = rules.clone();
    looped.remove("lib");
    assert_eq!(cycle(&looped), None);
    looped.insert("ir".into(), ["templates"].map(String::from).into());
    assert_eq!(
        cycle(&looped),
        Some(["ir", "templates", "ir"].map(String::from).to_vec())
    );
}
