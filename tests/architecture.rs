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

/// The rules themselves allow no cycle in codegen, the sandbox, the runtime and the
/// command-line tool: whatever the modules use within them, their imports run one way (the
/// crate roots, which may use everything, aside).
#[test]
fn the_code_map_allows_no_import_cycle() {
    let root = root();
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    for krate in ["codegen", "sandbox", "runtime", "cli"] {
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

/// A crate's files by module path (`export/mod.rs` is `["export"]`, `lib.rs` is `[]`).
fn file_modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut path: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            if matches!(
                path.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                path.pop();
            }
            (path, file)
        })
        .collect()
}

/// The modules of the crate a file's code names by a path (`crate::a::b`, `super::c`,
/// `self::d`, or a child module's name), outside its unit tests: the deepest module each
/// path reaches.
fn file_uses(text: &str, at: &[String], modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let chars: Vec<char> = code.chars().collect();
    let mut found = BTreeSet::new();
    let word = |i: usize| -> String {
        chars[i..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect()
    };
    let mut i = 0;
    while i < chars.len() {
        let boundary =
            i == 0 || !(chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '_' | '$' | ':'));
        let first = if boundary { word(i) } else { String::new() };
        if first.is_empty() {
            i += 1;
            continue;
        }
        let start = match first.as_str() {
            "crate" => Some(Vec::new()),
            "self" => Some(at.to_vec()),
            "super" => at.split_last().map(|(_, parent)| parent.to_vec()),
            child => {
                let mut path = at.to_vec();
                path.push(child.to_string());
                modules.contains(&path).then_some(path)
            }
        };
        let end = i + first.chars().count();
        if let Some(start) = start {
            resolve(&chars[end..], start, modules, &mut found);
        }
        i = end;
    }
    found
}

/// Follows `::name` segments (and `::{a, b::c}` groups) from `module` while they name
/// modules, recording the deepest reached.
fn resolve(
    rest: &[char],
    mut module: Vec<String>,
    modules: &BTreeSet<Vec<String>>,
    found: &mut BTreeSet<Vec<String>>,
) {
    let mut i = 0;
    while let Some(after) = rest
        .get(i..i + 2)
        .filter(|s| *s == [':', ':'])
        .map(|_| i + 2)
    {
        if rest.get(after) == Some(&'{') {
            // Each item of the group at its own depth, from this module.
            let (mut depth, mut item) = (0, true);
            for j in after + 1..rest.len() {
                match rest[j] {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item = true,
                    c if item && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                        item = false;
                        resolve(&rest[j..], module.clone(), modules, found);
                    }
                    _ => {}
                }
            }
            // The group's items name what is used, not the module before it.
            return;
        }
        let name: String = rest[after..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        let name = match name.as_str() {
            "super" => {
                module.pop();
                i = after + name.len();
                continue;
            }
            "self" => {
                i = after + name.len();
                continue;
            }
            _ => name,
        };
        let mut deeper = module.clone();
        deeper.push(name.clone());
        if name.is_empty() || !modules.contains(&deeper) {
            break;
        }
        module = deeper;
        i = after + name.len();
    }
    // A group's item starts with a name, not `::`: take it as a segment.
    let lead: String = rest
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect();
    if i == 0 && !lead.is_empty() {
        let mut deeper = module.clone();
        deeper.push(lead.clone());
        if modules.contains(&deeper) {
            resolve(&rest[lead.len()..], deeper, modules, found);
            return;
        }
    }
    found.insert(module);
}

/// Within every folder of the hand-written crates, the files and subfolders use each
/// other one way only: no import circle between two files of a folder (nor between a
/// file and a subfolder, or two subfolders). The folder's own root (`mod.rs`, `lib.rs`,
/// `main.rs`) declares the rest and may use them, as the crate roots may, so it is left
/// out, as in the code map's rule.
#[test]
fn no_import_circle_between_the_files_of_a_folder() {
    let root = root();
    let mut circles = Vec::new();
    for krate in [
        "codegen", "sandbox", "runtime", "cli", "ir", "xtask", "bench",
    ] {
        let src = root.join(krate).join("src");
        let files = file_modules(&src);
        let modules: BTreeSet<Vec<String>> = files.keys().cloned().collect();
        let folders: BTreeSet<Vec<String>> = files
            .iter()
            .filter(|(_, file)| {
                file.file_name()
                    .is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs")
            })
            .map(|(m, _)| m.clone())
            .collect();
        for folder in &folders {
            // Each file below the folder is the node of its first segment below it.
            let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (module, file) in &files {
                let Some(from) = module
                    .strip_prefix(folder.as_slice())
                    .and_then(|m| m.first())
                else {
                    continue;
                };
                let text = fs::read_to_string(file).unwrap();
                for used in file_uses(&text, module, &modules) {
                    let Some(to) = used.strip_prefix(folder.as_slice()).and_then(|m| m.first())
                    else {
                        continue;
                    };
                    if to != from {
                        edges.entry(from.clone()).or_default().insert(to.clone());
                    }
                }
            }
            if let Some(circle) = cycle(&edges) {
                circles.push(format!(
                    "{krate}/src/{}: {}",
                    folder.join("/"),
                    circle.join(" -> ")
                ));
            }
        }
    }
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

/// The file reader finds what it must: paths from the crate, a parent, itself or a child,
/// groups, and the deepest module a path reaches (an item's name is not a module).
#[test]
fn the_file_reader_resolves_paths_to_modules() {
    let m = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let modules: BTreeSet<Vec<String>> = [
        "",
        "model",
        "model/kept",
        "model/union",
        "model/text",
        "error",
    ]
    .map(m)
    .into();
    let kept = m("model/kept");
    let text = "use super::union::without_position;\nuse crate::{error::Error, model::{text, x}};\n\
                fn f() { self::g(); super::super::error::h(); }\n\
                #[cfg(test)]\nmod tests {\n    use super::super::text::y;\n}\n";
    assert_eq!(
        file_uses(text, &kept, &modules),
        ["model/union", "error", "model/text", "model", "model/kept"]
            .map(m)
            .into()
    );
    // From the folder's root, a child's name is a path too.
    let model = m("model");
    assert_eq!(
        file_uses("use union::UnknownMember; kept::read();", &model, &modules),
        ["model/union", "model/kept"].map(m).into()
    );
}

/// The functions (and methods) of a Rust file over `max` lines, counted from the line
/// that names the function to its closing brace, comments and blank lines included:
/// `(name, first line, lines)`. A declaration without a body (a trait's) is no function.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let Some(name) = fn_name(code) else {
            continue;
        };
        // The signature ends at the first `{` (a body) or `;` (a declaration).
        let signature_end = lines[i..]
            .iter()
            .map(|l| l.trim_end())
            .find(|l| l.ends_with('{') || l.ends_with(';'));
        if signature_end.is_none_or(|l| l.ends_with(';')) {
            continue;
        }
        let closing = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| *l == closing) else {
            continue;
        };
        let count = end + 2;
        if count > max {
            long.push((name.to_string(), i + 1, count));
        }
    }
    long
}

/// The name of the function a line of code starts (`pub(crate) async fn name(`).
fn fn_name(code: &str) -> Option<&str> {
    let mut rest = code;
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    (end > 0).then(|| &rest[..end])
}

/// No hand-written function of the generator, the runtime, the command-line tool or the
/// sandbox is over 80 lines: a longer one does several things, each of which has a name.
#[test]
fn no_hand_written_function_is_over_80_lines() {
    let root = root();
    let mut long = Vec::new();
    for krate in ["codegen", "runtime", "cli", "sandbox"] {
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        for file in files {
            let text = fs::read_to_string(&file).unwrap();
            for (name, line, count) in long_functions(&text, 80) {
                let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                long.push(format!("{shown}:{line}: `{name}` is {count} lines"));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The same rule for the hand-written Java: the runtime under `templates/java/runtime`,
/// the tests, the conformance runner, the quickstart and the benchmark of `tests/java`.
#[test]
fn no_hand_written_java_method_is_over_80_lines() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["templates/java/runtime", "tests/java"] {
        files_with(&root.join(dir), "java", &mut files);
    }
    assert!(files.len() > 40, "the Java files were not found");
    let mut long = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for (name, line, count) in long_java_methods(&text, 80) {
            let shown = file.strip_prefix(&root).unwrap_or(&file).display();
            long.push(format!("{shown}:{line}: `{name}` is {count} lines"));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The Java counter finds a long method (its parameters on lines of their own too) and
/// takes no statement for a method.
#[test]
fn the_java_counter_counts_method_bodies() {
    let body = |n: usize| "        x();\n".repeat(n);
    let text = format!(
        "class A {{\n    public static int longOne(\n            int a) {{\n{}    }}\n\n    void short() {{\n{}    }}\n\n    void call() {{\n        return helper(x, {{\n{}        }});\n    }}\n}}\n",
        body(85),
        body(3),
        body(2)
    );
    assert_eq!(
        long_java_methods(&text, 80),
        vec![("longOne".to_string(), 2, 88)]
    );
}

/// The files under `path` whose name ends in `.<ext>`.
fn files_with(path: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            files_with(&entry.unwrap().path(), ext, out);
        }
    } else if path.extension().is_some_and(|e| e == ext) {
        out.push(path.to_path_buf());
    }
}

/// Java methods (and constructors) over `max` lines: a declaration (modifiers, a type, a
/// name and `(`) whose body ends at a `}` of its own indentation.
fn long_java_methods(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let Some(name) = java_method_name(code) else {
            continue;
        };
        let opens = lines[i..]
            .iter()
            .map(|l| l.trim_end())
            .find(|l| l.ends_with('{') || l.ends_with(';'));
        if opens.is_none_or(|l| l.ends_with(';')) {
            continue;
        }
        let closing = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| *l == closing) else {
            continue;
        };
        if end + 2 > max {
            long.push((name.to_string(), i + 1, end + 2));
        }
    }
    long
}

/// The name a line declaring a Java method starts with, if it declares one.
fn java_method_name(code: &str) -> Option<&str> {
    const NOT_A_TYPE: &[&str] = &[
        "return",
        "new",
        "throw",
        "else",
        "case",
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "try",
        "do",
        "assert",
        "yield",
        "synchronized(",
    ];
    if code.starts_with('/') || code.starts_with('*') {
        return None;
    }
    let head = &code[..code.find('(')?];
    if head.contains('=') || head.contains('.') && !head.contains('<') {
        return None;
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    let first = *words.first()?;
    if words.len() < 2 || NOT_A_TYPE.contains(&first) || first.starts_with('@') {
        return None;
    }
    let name = *words.last()?;
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then_some(name)
}

/// The counter above finds a long function, method and test, and no trait declaration.
#[test]
fn the_function_counter_counts_bodies_only() {
    let body = |n: usize| "    x();\n".repeat(n);
    let text = format!(
        "pub fn short() {{\n{}}}\n\nasync fn long() {{\n{}}}\n\ntrait T {{\n    fn declared(&self);\n}}\n\nimpl T {{\n    pub(crate) fn method(&self) {{\n    {}    }}\n}}\n",
        body(3),
        body(79),
        body(80),
    );
    let found: Vec<(String, usize)> = long_functions(&text, 80)
        .into_iter()
        .map(|(name, _, count)| (name, count))
        .collect();
    assert_eq!(
        found,
        [("long".to_string(), 81), ("method".to_string(), 82)]
    );
}

/// The same rule for the hand-written Go, TypeScript and Python: each runtime under
/// `templates/`, and each language's tests, runners and quick start (generated code such
/// as the benchmark peers' types is left out).
#[test]
fn no_hand_written_go_typescript_or_python_function_is_over_80_lines() {
    let root = root();
    let mut long = Vec::new();
    type Counter = fn(&str, usize) -> Vec<(String, usize, usize)>;
    let languages: [(&str, &[&str], Counter); 3] = [
        (
            "go",
            &["templates/go/runtime", "tests/go"],
            long_go_functions,
        ),
        (
            "ts",
            &["templates/typescript/runtime", "tests/typescript"],
            long_ts_functions,
        ),
        (
            "py",
            &["templates/python/runtime", "tests/python"],
            long_python_functions,
        ),
    ];
    for (ext, dirs, counter) in languages {
        let mut files = Vec::new();
        for dir in dirs {
            files_with(&root.join(dir), ext, &mut files);
        }
        files.retain(|f| {
            let f = f.to_string_lossy();
            !f.contains("/node_modules/") && !f.contains("/peers/oapiv3/") && !f.ends_with(".d.ts")
        });
        assert!(files.len() > 10, "the .{ext} files were not found");
        for file in files {
            let text = fs::read_to_string(&file).unwrap();
            for (name, line, count) in counter(&text, 80) {
                let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                long.push(format!("{shown}:{line}: `{name}` is {count} lines"));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The lines from a declaration at line `i` (indented by `indent`) to the `}` of its own
/// indentation that closes its body, if its body opens (a `{` ends a line before any `;`).
fn braced_length(lines: &[&str], i: usize, indent: &str) -> Option<usize> {
    let opens = lines[i..]
        .iter()
        .map(|l| l.trim_end())
        .find(|l| l.ends_with('{') || l.ends_with(';'))?;
    if opens.ends_with(';') {
        return None;
    }
    // `}`, or `});`, `};`, `},` closing an expression the function is part of.
    let closing = format!("{indent}}}");
    let end = lines[i + 1..].iter().position(|l| {
        l.trim_end()
            .strip_prefix(&closing)
            .is_some_and(|rest| rest.chars().all(|c| matches!(c, ')' | ';' | ',')))
    })?;
    Some(end + 2)
}

/// Go functions and methods (gofmt puts each at the line's start) over `max` lines.
fn long_go_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("func ") else {
            continue;
        };
        // `func (r T) Name(`: the receiver first.
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(") ").map_or(r, |(_, name)| name),
            None => rest,
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        match braced_length(&lines, i, "") {
            Some(n) if n > max => long.push((name, i + 1, n)),
            _ => {}
        }
    }
    long
}

/// TypeScript functions, methods and arrow functions declared with `const` over `max` lines.
fn long_ts_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    const NOT_A_NAME: &[&str] = &[
        "if", "for", "while", "switch", "catch", "return", "await", "new", "throw", "else",
        "function", "super", "typeof",
    ];
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let mut words = code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
        let mut name = words.find(|w| {
            !w.is_empty()
                && ![
                    "export",
                    "async",
                    "function",
                    "static",
                    "private",
                    "public",
                    "protected",
                    "readonly",
                    "get",
                    "set",
                    "const",
                    "let",
                    "default",
                    "override",
                ]
                .contains(w)
        });
        let arrow = code.contains("=>")
            && (code.starts_with("const ") || code.starts_with("export const "));
        let declares = code.contains('(')
            && !code.starts_with("//")
            && !code.starts_with('*')
            && (arrow || !code[..code.find('(').unwrap_or(0)].contains('='));
        if !declares || name.is_some_and(|n| NOT_A_NAME.contains(&n)) {
            name = None;
        }
        let Some(name) = name else { continue };
        if !arrow
            && !code[..code.find('(').unwrap_or(0)]
                .trim_end()
                .ends_with(name)
        {
            continue; // a call, not a declaration
        }
        // A declaration's parameters close before its body or its return type (or wrap
        // onto lines of their own); a call's close on `;`, or before a callback's `=>`.
        let after = code.rfind(')').map(|at| code[at + 1..].trim());
        let declared = arrow
            || code.ends_with('(')
            || after.is_some_and(|a| a == "{" || a.starts_with(':') && a.ends_with('{'));
        if !declared {
            continue;
        }
        match braced_length(&lines, i, indent) {
            Some(n) if n > max => long.push((name.to_string(), i + 1, n)),
            _ => {}
        }
    }
    long
}

/// Python functions and methods over `max` lines: from `def` to the last line indented
/// deeper than it before the next line that is not.
fn long_python_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let Some(rest) = code
            .strip_prefix("def ")
            .or_else(|| code.strip_prefix("async def "))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let own = indent(line);
        let mut last = i;
        for (j, l) in lines.iter().enumerate().skip(i + 1) {
            if l.trim().is_empty() {
                continue;
            }
            // A signature's closing line `) -> T:` sits at the def's own indentation.
            if indent(l) <= own && !(j == last + 1 && l.trim_start().starts_with(')')) {
                break;
            }
            last = j;
        }
        if last + 1 - i > max {
            long.push((name, i + 1, last + 1 - i));
        }
    }
    long
}

/// The Go, TypeScript and Python counters find a long function and pass a short one.
#[test]
fn the_other_counters_count_function_bodies() {
    let body = |n: usize, pad: &str| format!("{pad}x()\n").repeat(n);
    let go = format!(
        "func (c *Client) Long(\n\tctx context.Context,\n) error {{\n{}}}\n\nfunc short() {{\n{}}}\n",
        body(80, "\t"),
        body(3, "\t")
    );
    assert_eq!(
        long_go_functions(&go, 80),
        vec![("Long".to_string(), 1, 84)]
    );
    let ts = format!(
        "export async function long(a: number): Promise<void> {{\n{}}}\n\nclass A {{\n  method(): void {{\n{}  }}\n  other(): void {{\n    call(x, () => {{\n{}    }});\n  }}\n}}\nconst arrow = (a: number) => {{\n{}}};\n",
        body(81, "  "),
        body(81, "    "),
        body(81, "      "),
        body(2, "  ")
    );
    let found: Vec<(String, usize)> = long_ts_functions(&ts, 80)
        .into_iter()
        .map(|(n, _, c)| (n, c))
        .collect();
    assert_eq!(
        found,
        [
            ("long".to_string(), 83),
            ("method".to_string(), 83),
            ("other".to_string(), 85)
        ]
    );
    let py = format!(
        "def long(\n    a,\n) -> None:\n{}\n\nclass A:\n    async def short(self):\n{}    x = 1\n",
        body(79, "    "),
        body(3, "        ")
    );
    assert_eq!(
        long_python_functions(&py, 80),
        vec![("long".to_string(), 1, 82)]
    );
}

/// No file of `codegen/src` is over 650 lines: a longer one holds several things, each of
/// which can be a module named after it.
#[test]
fn no_codegen_file_is_over_650_lines() {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("codegen/src"), &mut files);
    assert!(files.len() > 50, "the codegen files were not found");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = fs::read_to_string(f).unwrap().lines().count();
            let shown = f.strip_prefix(&root).unwrap_or(f).display().to_string();
            (lines > 650).then(|| format!("{shown}: {lines} lines"))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}
