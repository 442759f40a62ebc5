//! The code map of ARCHITECTURE.md holds: each module of `codegen/src`, `sandbox/src` and
//! `runtime/src` has a row, and uses (`crate::<module>`) only what its row's "May use"
//! column names. The document is the one statement of the rules; this test reads it, so
//! the two cannot drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The top-level modules of a crate's `src` (a folder or a file), `lib` and `main` left
/// out: they are the crate's roots and may use everything.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" || name == "main" {
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

/// The code map's rows for `<krate>/src`: each module the first cell names, with the
/// modules its "May use" cell names (in backticks; "everything in the crate" is all).
fn rules(doc: &str, krate: &str, known: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let row = format!("| `{krate}/src/");
    let prefix = format!("{krate}/src/");
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(|s| s.trim_end_matches('/').to_string())
            .collect()
    };
    let mut rules = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with(&row)) {
        let cells: Vec<&str> = line.split('|').collect();
        let (held, may) = (cells[1], cells[cells.len() - 2]);
        let allowed: BTreeSet<String> = if may.contains("everything in the crate") {
            known.clone()
        } else {
            ticked(may)
                .into_iter()
                .filter(|m| known.contains(m))
                .collect()
        };
        for module in ticked(held) {
            let module = module
                .trim_start_matches(prefix.as_str())
                .trim_end_matches(".rs")
                .to_string();
            rules.insert(module, allowed.clone());
        }
    }
    rules
}

/// Every file of `<krate>/src` against its module's row: the problems, named.
fn code_map_problems(krate: &str) -> Vec<String> {
    let root = root();
    let modules = modules(&root.join(krate).join("src"));
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let rules = rules(&doc, krate, &known);
    let mut problems = Vec::new();
    for (module, files) in &modules {
        let Some(allowed) = rules.get(module) else {
            problems.push(format!(
                "`{krate}/src/{module}` has no row in ARCHITECTURE.md's code map"
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
    problems
}

#[test]
fn codegen_modules_use_only_what_the_code_map_allows() {
    let problems = code_map_problems("codegen");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn sandbox_runtime_and_cli_modules_use_only_what_the_code_map_allows() {
    let mut problems = code_map_problems("sandbox");
    problems.extend(code_map_problems("runtime"));
    problems.extend(code_map_problems("cli"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rules themselves allow no cycle in codegen, the sandbox and the command-line tool:
/// whatever the modules use within them, their imports run one way (the crate roots, which
/// may use everything, aside). The runtime's transport and paging use each other, as its
/// rows say.
#[test]
fn the_code_map_allows_no_import_cycle() {
    let root = root();
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    for krate in ["codegen", "sandbox", "cli"] {
        let known: BTreeSet<String> = modules(&root.join(krate).join("src"))
            .keys()
            .cloned()
            .collect();
        let mut rules = rules(&doc, krate, &known);
        rules.remove("lib");
        rules.remove("main");
        assert_eq!(cycle(&rules), None, "{krate}");
    }
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
               | `codegen/src/lib.rs` | Root. | everything in the crate |\n\
               | `sandbox/src/b.rs` | Elsewhere. | `spec` |\n";
    let rules = rules(doc, "codegen", &known);
    assert!(
        !rules.contains_key("b"),
        "another crate's row is not codegen's"
    );
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
