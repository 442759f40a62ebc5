//! The input file, streamed row by row: CSV with a header row (RFC 4180, by the csv
//! crate) or JSON Lines (one object a line). Each cell is named by the target's column it
//! feeds (through the mapping file), a `column.KEY` cell folded into a map column, or
//! left out; a name that is none of these is a problem of the file, never dropped.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::mapping::Mapping;
use super::{CellKind, Column, Target};
use crate::exit::Failure;

/// The input's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    JsonLines,
}

impl Format {
    pub fn parse(text: &str) -> Result<Format, String> {
        match text {
            "csv" => Ok(Format::Csv),
            "jsonl" | "ndjson" => Ok(Format::JsonLines),
            other => Err(format!("`{other}` is not a format: csv or jsonl")),
        }
    }

    /// By the file's extension (`.csv`, `.jsonl`, `.ndjson`).
    fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Format::parse(&ext).ok()
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::JsonLines => "jsonl",
        }
    }
}

/// What a cell feeds.
#[derive(Debug, Clone)]
pub enum Name {
    Column(&'static Column),
    /// A key of a map column (`extended_data.fleet_id`).
    Folded(&'static Column, String),
    /// Left out by the mapping file.
    Ignored,
}

/// A cell's value as the file holds it.
#[derive(Debug, Clone)]
pub enum Cell {
    Text(String),
    Json(Value),
}

/// One row: its line in the file (where it starts), and its named cells.
#[derive(Debug)]
pub struct Row {
    pub line: u64,
    pub cells: Vec<(Name, Cell)>,
}

/// Something wrong with a row (or the file), for the list the check prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: u64,
    pub column: Option<String>,
    pub rule: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}", thousands(self.line))?;
        if let Some(column) = &self.column {
            write!(f, ", column {column}")?;
        }
        write!(f, ": {}", self.rule)
    }
}

/// `1204` as `1,204`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The file to import, its format and how its columns are named.
pub struct Input {
    pub path: PathBuf,
    pub format: Format,
    pub mapping: Option<Mapping>,
    pub target: &'static Target,
}

impl Input {
    /// The file at `path` (refused, naming it, when it cannot be read or its format is
    /// not known), its mapping read and held to the file's header.
    pub fn open(
        path: &Path,
        format: Option<Format>,
        map: Option<&Path>,
        target: &'static Target,
    ) -> Result<Input, Failure> {
        let format = format.or_else(|| Format::of(path)).ok_or_else(|| {
            Failure::usage(format!(
                "{}: say its format with --format csv|jsonl (its name ends in neither .csv nor .jsonl)",
                path.display()
            ))
        })?;
        File::open(path)
            .map_err(|e| Failure::usage(format!("cannot read {}: {e}", path.display())))?;
        let mapping = map
            .map(|m| Mapping::read(m, |name| known(target, name)))
            .transpose()?;
        let input = Input {
            path: path.to_path_buf(),
            format,
            mapping,
            target,
        };
        if let (Format::Csv, Some(mapping)) = (format, &input.mapping) {
            mapping.check_header(&input.csv()?.header)?;
        }
        Ok(input)
    }

    /// The rows, streamed; each is a row or the problem that kept it from being read.
    pub fn rows(&self) -> Result<Rows<'_>, Failure> {
        Ok(match self.format {
            Format::Csv => Rows::Csv(self.csv()?),
            Format::JsonLines => Rows::Lines {
                input: self,
                lines: BufReader::new(self.open_file()?),
                line: 0,
            },
        })
    }

    fn open_file(&self) -> Result<File, Failure> {
        File::open(&self.path)
            .map_err(|e| Failure::usage(format!("cannot read {}: {e}", self.path.display())))
    }

    fn csv(&self) -> Result<CsvRows, Failure> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(self.open_file()?);
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| {
                Failure::usage(format!("{}: no CSV header row: {e}", self.path.display()))
            })?
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
            .collect();
        let names = header.iter().map(|h| self.name(h)).collect();
        Ok(CsvRows {
            reader,
            header,
            names,
            record: csv::StringRecord::new(),
            shift: u64::from(self.crlf()?),
        })
    }

    /// Whether the header row ends in CR LF. The csv crate then counts a record as
    /// starting on the line before its own (at the LF that ends the previous record), so
    /// every line it gives is one short.
    pub fn line_shift(&self) -> Result<u64, Failure> {
        self.crlf().map(u64::from)
    }

    fn crlf(&self) -> Result<bool, Failure> {
        let mut first = Vec::new();
        let mut reader = BufReader::new(self.open_file()?);
        reader
            .read_until(b'\n', &mut first)
            .map_err(|e| Failure::io("read", &self.path, e))?;
        Ok(first.ends_with(b"\r\n"))
    }

    /// What the file's column `column` feeds; `None`: nothing of the target.
    pub fn name(&self, column: &str) -> Option<Name> {
        let field = match self.mapping.as_ref().and_then(|m| m.field(column)) {
            Some(None) => return Some(Name::Ignored),
            Some(Some(field)) => field,
            None => column,
        };
        if let Some(c) = self.target.column(field) {
            return Some(Name::Column(c));
        }
        let (map, key) = field.split_once('.')?;
        let c = self.target.column(map)?;
        (c.kind == CellKind::Map && !key.is_empty()).then(|| Name::Folded(c, key.to_string()))
    }

    /// A problem naming a column that feeds nothing.
    pub fn unknown(&self, line: u64, column: &str) -> Problem {
        Problem {
            line,
            column: Some(column.to_string()),
            rule: format!(
                "not a column of {} ({}); rename it with --map, or leave it out (`{column} = -`)",
                self.target.name, self.target.operation
            ),
        }
    }
}

/// Whether `name` is a field of `target` (a column, or `map.KEY` of a map column).
fn known(target: &Target, name: &str) -> bool {
    target.column(name).is_some()
        || name.split_once('.').is_some_and(|(map, key)| {
            !key.is_empty() && target.column(map).is_some_and(|c| c.kind == CellKind::Map)
        })
}

/// A CSV file's rows after its header.
pub struct CsvRows {
    reader: csv::Reader<File>,
    pub header: Vec<String>,
    names: Vec<Option<Name>>,
    record: csv::StringRecord,
    /// Added to the csv crate's line numbers (see [`Input::crlf`]).
    shift: u64,
}

/// The rows of the file, streamed.
pub enum Rows<'a> {
    Csv(CsvRows),
    Lines {
        input: &'a Input,
        lines: BufReader<File>,
        line: u64,
    },
}

impl Rows<'_> {
    /// The problems of the header row (CSV): the columns that feed nothing, and the
    /// columns every row needs that the file lacks.
    pub fn header_problems(&self, input: &Input) -> Vec<Problem> {
        let Rows::Csv(csv) = self else {
            return Vec::new();
        };
        let mut problems: Vec<Problem> = csv
            .header
            .iter()
            .zip(&csv.names)
            .filter(|(_, name)| name.is_none())
            .map(|(h, _)| input.unknown(1, h))
            .collect();
        let given = |c: &Column| {
            csv.names
                .iter()
                .any(|n| matches!(n, Some(Name::Column(given)) if given.name == c.name))
        };
        problems.extend(
            input
                .target
                .columns
                .iter()
                .filter(|c| c.required && c.variant.is_none() && !given(c))
                .map(|c| Problem {
                    line: 1,
                    column: Some(c.name.to_string()),
                    rule: "the file has no such column, and every row needs it (rename one to it with --map)".into(),
                }),
        );
        problems
    }
}

impl Iterator for Rows<'_> {
    type Item = Result<Row, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Rows::Csv(csv) => csv.next_row(),
            Rows::Lines { input, lines, line } => next_line(input, lines, line),
        }
    }
}

impl CsvRows {
    fn next_row(&mut self) -> Option<Result<Row, Problem>> {
        let read = self.reader.read_record(&mut self.record);
        let line = self.record.position().map_or(0, |p| p.line()) + self.shift;
        match read {
            Ok(false) => None,
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line() + self.shift);
                let rule = match e.kind() {
                    csv::ErrorKind::UnequalLengths { len, .. } => {
                        format!("{len} cells where the header has {}", self.header.len())
                    }
                    csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_string(),
                    csv::ErrorKind::Io(e) => return Some(Err(io_problem(line, e))),
                    _ => format!("not CSV: {e}"),
                };
                Some(Err(Problem {
                    line,
                    column: None,
                    rule,
                }))
            }
            Ok(true) => {
                let cells = self
                    .record
                    .iter()
                    .zip(&self.names)
                    .filter(|(text, _)| !text.is_empty())
                    .filter_map(|(text, name)| Some((name.clone()?, Cell::Text(text.to_string()))))
                    .collect();
                Some(Ok(Row { line, cells }))
            }
        }
    }
}

fn io_problem(line: u64, e: &std::io::Error) -> Problem {
    Problem {
        line,
        column: None,
        rule: format!("cannot be read: {e}"),
    }
}

fn next_line(
    input: &Input,
    lines: &mut BufReader<File>,
    line: &mut u64,
) -> Option<Result<Row, Problem>> {
    let mut text = String::new();
    loop {
        text.clear();
        *line += 1;
        match lines.read_line(&mut text) {
            Ok(0) => return None,
            Ok(_) if text.trim().is_empty() => continue,
            Ok(_) => break,
            Err(e) => return Some(Err(io_problem(*line, &e))),
        }
    }
    let problem = |rule: String| Problem {
        line: *line,
        column: None,
        rule,
    };
    let object = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Some(Err(problem("not a JSON object".into()))),
        Err(e) => return Some(Err(problem(format!("not JSON: {e}")))),
    };
    let mut cells = Vec::new();
    for (key, value) in object {
        match input.name(&key) {
            None => return Some(Err(input.unknown(*line, &key))),
            Some(_) if value.is_null() => {}
            Some(name) => cells.push((name, Cell::Json(value))),
        }
    }
    Some(Ok(Row { line: *line, cells }))
}

/// The file's size and a hash of its bytes: its identity in the journal.
pub fn fingerprint(path: &Path) -> Result<(u64, String), Failure> {
    let mut file = File::open(path).map_err(|e| Failure::io("read", path, e))?;
    let mut hash = super::journal::Fnv::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| Failure::io("read", path, e))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hash.write(&buf[..n]);
    }
    Ok((size, hash.hex()))
}
