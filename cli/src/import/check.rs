//! Every row checked before the first request: each read as its columns' types say, then
//! made into the operation's request by the generated client (so every documented limit
//! is the generated validators' own check, not a copy), and no key twice in the file.

use std::collections::{BTreeMap, HashMap};

use inspection_runtime::Error;

use super::cells::{self, Typed};
use super::file::{self, Input, Problem, thousands};
use super::{Options, Source, Target};
use crate::call::{Kept, Mode, taken};
use crate::exit::{Class, Failure};

/// What the check found.
pub struct Checked {
    pub rows: u64,
    pub problems: Vec<Problem>,
    /// The rows that cannot be sent (by line), and why.
    pub invalid: BTreeMap<u64, String>,
    /// The header names a column that feeds nothing: no row is sent, even with
    /// `--skip-invalid` (its values would be lost).
    pub header_bad: bool,
    /// The file's size and hash when it was checked.
    pub size: u64,
    pub hash: String,
}

/// Checks every row of `input` for `target`.
pub async fn check(
    target: &Target,
    input: &Input,
    source: &dyn Source,
) -> Result<Checked, Failure> {
    let (size, hash) = file::fingerprint(&input.path)?;
    let rows = input.rows()?;
    let problems = rows.header_problems(input);
    let mut checked = Checked {
        rows: 0,
        header_bad: !problems.is_empty(),
        problems,
        invalid: BTreeMap::new(),
        size,
        hash,
    };
    let mut keys: HashMap<String, u64> = HashMap::new();
    for row in rows {
        checked.rows += 1;
        let (line, found) = match row {
            Err(problem) => (problem.line, vec![problem]),
            Ok(row) => {
                let line = row.line;
                let (typed, mut found) = cells::read_row(target, row);
                let limits = limits(target, &typed, source).await;
                if found.is_empty() {
                    found = limits;
                    if found.is_empty() {
                        found.extend(duplicate(target, &typed, &mut keys));
                    }
                } else {
                    // Beside the cells that did not read, the limits of the others (a
                    // message about the row as a whole would speak of the cells left out).
                    let bad: Vec<Option<String>> = found.iter().map(|p| p.column.clone()).collect();
                    found.extend(
                        limits
                            .into_iter()
                            .filter(|p| p.column.is_some() && !bad.contains(&p.column)),
                    );
                }
                (line, found)
            }
        };
        if !found.is_empty() {
            let why: Vec<String> = found.iter().map(rule_of).collect();
            checked.invalid.insert(line, why.join("; "));
            checked.problems.extend(found);
        }
    }
    Ok(checked)
}

/// A problem when `typed`'s key is on an earlier line of the file.
fn duplicate(target: &Target, typed: &Typed, keys: &mut HashMap<String, u64>) -> Option<Problem> {
    let first = *keys.entry(typed.key.clone()).or_insert(typed.line);
    (first != typed.line).then(|| Problem {
        line: typed.line,
        column: Some(target.key.join(", ")),
        rule: format!(
            "the key `{}` is already on line {}",
            typed.key,
            thousands(first)
        ),
    })
}

fn rule_of(p: &Problem) -> String {
    match &p.column {
        Some(column) => format!("{column}: {}", p.rule),
        None => p.rule.clone(),
    }
}

/// The row made into its request by the generated client, in check mode: each documented
/// limit it breaks, by column.
async fn limits(target: &Target, typed: &Typed, source: &dyn Source) -> Vec<Problem> {
    let (mode, keep) = Mode {
        check_only: true,
        ..Mode::default()
    }
    .keeping();
    let problem = |column: Option<String>, rule: String| Problem {
        line: typed.line,
        column,
        rule,
    };
    if let Err(message) = source
        .call(target.operation, typed.args(target), mode)
        .await
    {
        let rule = message.replace("the body does not fit the operation: ", "");
        return vec![problem(None, rule)];
    }
    match taken(&keep) {
        Some(Kept::Failed(Error::Validation(violations))) => violations
            .0
            .into_iter()
            .map(|v| {
                let column = match target.row {
                    Some(row) => v
                        .path
                        .strip_prefix(&format!("{row}."))
                        .unwrap_or(&v.path)
                        .to_string(),
                    None => v.path,
                };
                problem(Some(column), v.message)
            })
            .collect(),
        Some(Kept::Failed(other)) => vec![problem(None, other.to_string())],
        _ => Vec::new(),
    }
}

/// Lists every problem on standard error; fails (exit 3, nothing sent) unless
/// `--skip-invalid` lets the valid rows go (never past a header problem).
pub fn report(checked: &Checked, options: &Options) -> Result<(), Failure> {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    for problem in &checked.problems {
        let _ = writeln!(err, "{}: {problem}", options.file.display());
    }
    let bad = checked.invalid.len();
    if checked.header_bad || !options.skip_invalid || options.check {
        let what = if checked.header_bad {
            "its header names columns the target does not take".to_string()
        } else {
            format!(
                "{} of its {} rows are invalid",
                thousands(bad as u64),
                thousands(checked.rows)
            )
        };
        let hint = if checked.header_bad || options.check {
            "fix the rows listed above and run it again"
        } else {
            "fix the rows listed above, or send the valid rows with --skip-invalid"
        };
        return Err(Failure::new(
            Class::Invalid,
            format!("{}: {what}; nothing was sent", options.file.display()),
        )
        .with_hint(hint));
    }
    Ok(())
}

/// `--check` on a file without problems: what it holds.
pub fn summary(checked: &Checked, options: &Options) -> Result<(), Failure> {
    crate::output::Printer::for_stdout().print(&serde_json::json!({
        "file": options.file.display().to_string(),
        "target": options.target,
        "rows": checked.rows,
        "invalid": checked.invalid.len(),
    }))
}
