//! The mapping file (`--map FILE`): one `File column = field` a line, renaming an ERP's
//! columns to the target's (`Asset No = reference_number`), `= -` to leave a column out,
//! `#` for a comment. Every mistake is named with the mapping file's line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::exit::Failure;

/// What the file's columns are called in the target.
#[derive(Debug, Default)]
pub struct Mapping {
    /// File column → field (`None`: left out), with the mapping file's line.
    renames: BTreeMap<String, (Option<String>, usize)>,
    pub path: std::path::PathBuf,
}

impl Mapping {
    /// Reads the mapping at `path`; `known` says whether a field name is the target's.
    pub fn read(path: &Path, known: impl Fn(&str) -> bool) -> Result<Mapping, Failure> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::usage(format!("--map: cannot read {}: {e}", path.display())))?;
        Mapping::parse(&text, path, known)
    }

    fn parse(text: &str, path: &Path, known: impl Fn(&str) -> bool) -> Result<Mapping, Failure> {
        let mut mapping = Mapping {
            path: path.to_path_buf(),
            ..Mapping::default()
        };
        let mut targets: BTreeMap<String, usize> = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let wrong = |what: String| Failure::usage(format!("{}:{n}: {what}", path.display()));
            let Some((from, to)) = line.rsplit_once('=') else {
                return Err(wrong(format!(
                    "`{line}` is not `File column = field` (or `File column = -` to leave it out)"
                )));
            };
            let (from, to) = (from.trim(), to.trim());
            if from.is_empty() || to.is_empty() {
                return Err(wrong(
                    "a column and a field go on either side of `=`".into(),
                ));
            }
            let to = if to == "-" {
                None
            } else if known(to) {
                if let Some(first) = targets.insert(to.to_string(), n) {
                    return Err(wrong(format!(
                        "`{to}` is already the field of another column (line {first})"
                    )));
                }
                Some(to.to_string())
            } else {
                return Err(wrong(format!("`{to}` is not a field of this target")));
            };
            if let Some((_, first)) = mapping.renames.insert(from.to_string(), (to, n)) {
                return Err(wrong(format!(
                    "`{from}` is mapped twice (first on line {first})"
                )));
            }
        }
        Ok(mapping)
    }

    /// The field a file's column feeds: `Some(None)` when it is left out, `None` when the
    /// mapping does not name it.
    pub fn field(&self, column: &str) -> Option<Option<&str>> {
        self.renames.get(column).map(|(to, _)| to.as_deref())
    }

    /// Fails, naming the mapping's line, when it names a column the file's header lacks.
    pub fn check_header(&self, header: &[String]) -> Result<(), Failure> {
        let mut by_line: Vec<(&String, usize)> = self
            .renames
            .iter()
            .map(|(from, (_, line))| (from, *line))
            .collect();
        by_line.sort_by_key(|(_, line)| *line);
        for (from, line) in by_line {
            if !header.iter().any(|h| h == from) {
                return Err(Failure::usage(format!(
                    "{}:{line}: the file has no column `{from}` (its columns: {})",
                    self.path.display(),
                    header.join(", ")
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Mapping, String> {
        Mapping::parse(text, Path::new("erp.map"), |f| {
            ["reference_number", "vin", "extended_data.fleet"].contains(&f)
        })
        .map_err(|f| f.message)
    }

    #[test]
    fn a_mapping_renames_leaves_out_and_names_each_mistake_by_line() {
        let m = parse("# ERP\nAsset No = reference_number\n\nVIN=vin\nNotes = -\nFleet = extended_data.fleet\n")
            .unwrap();
        assert_eq!(m.field("Asset No"), Some(Some("reference_number")));
        assert_eq!(m.field("Notes"), Some(None));
        assert_eq!(m.field("Other"), None);
        assert!(
            m.check_header(&["Asset No".into()])
                .unwrap_err()
                .message
                .starts_with("erp.map:4: the file has no column `VIN`")
        );
        for (text, expected) in [
            (
                "Asset No reference_number",
                "erp.map:1: `Asset No reference_number` is not",
            ),
            ("A = colour", "erp.map:1: `colour` is not a field"),
            (
                "A = vin\nB = vin",
                "erp.map:2: `vin` is already the field of another column (line 1)",
            ),
            ("A = vin\nA = -", "erp.map:2: `A` is mapped twice"),
            (" = vin", "erp.map:1: a column and a field"),
        ] {
            let message = parse(text).unwrap_err();
            assert!(message.starts_with(expected), "{text:?}: {message}");
        }
    }
}
