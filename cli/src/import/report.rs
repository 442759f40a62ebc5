//! What an import leaves for the program that feeds it: a results file with one line per
//! row of the input (line, key, outcome, the record's id, the service's error for a
//! failure), a rejects file in the input's own format (the failed rows as they were, plus
//! the error) to fix and import again, the summary on standard output and the exit code.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file::{Format, Input, thousands};
use super::journal::{Outcome, State};
use super::send::Run;
use crate::exit::{Class, Failure};
use crate::output::part_path;

/// The results file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultsFormat {
    #[default]
    JsonLines,
    Csv,
}

impl ResultsFormat {
    pub fn parse(text: &str) -> Result<ResultsFormat, String> {
        match text {
            "jsonl" => Ok(ResultsFormat::JsonLines),
            "csv" => Ok(ResultsFormat::Csv),
            other => Err(format!("`{other}` is not a results format: jsonl or csv")),
        }
    }
}

/// The column of a rejected row that says why.
pub const ERROR_COLUMN: &str = "import_error";

/// `units.csv` → `units.results.jsonl` (or `.csv`) beside it.
pub fn results_path(file: &Path, format: ResultsFormat) -> PathBuf {
    let ext = match format {
        ResultsFormat::JsonLines => "jsonl",
        ResultsFormat::Csv => "csv",
    };
    beside(file, &format!("results.{ext}"))
}

/// `units.csv` → `units.rejects.csv` beside it (the input's own format).
pub fn rejects_path(file: &Path, format: Format) -> PathBuf {
    beside(file, &format!("rejects.{}", format.extension()))
}

fn beside(file: &Path, suffix: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or("import".into(), |s| s.to_string_lossy());
    file.with_file_name(format!("{stem}.{suffix}"))
}

/// Writes the results and rejects, folds the run into the journal's applied values,
/// prints the summary, and fails when rows did.
pub fn write(run: &mut Run<'_>) -> Result<(), Failure> {
    let options = run.options;
    let results = results_path(&options.file, options.results_format);
    let failed = results_file(run, &results)?;
    let rejects = rejects_path(&options.file, run.input.format);
    let rejects = if failed.is_empty() {
        // A rejects file of an earlier run would speak of rows that are now done.
        let _ = std::fs::remove_file(&rejects);
        None
    } else {
        rejects_file(run.input, &failed, &rejects)?;
        Some(rejects)
    };
    run.journal
        .compact(run.interface, run.target.name, &run.past.applied)?;
    let t = &run.tally;
    crate::output::Printer::for_stdout().print(&serde_json::json!({
        "file": options.file.display().to_string(),
        "target": run.target.name,
        "rows": run.checked.rows,
        "created": t.created,
        "updated": t.updated,
        "unchanged": t.unchanged,
        "failed": t.failed,
        "unknown_outcome": t.unknown_outcome,
        "done_before": t.resumed,
        "results": results.display().to_string(),
        "rejects": rejects.map(|r| r.display().to_string()),
    }))?;
    outcome(run, &results)
}

/// The exit: rows that failed for a reason that may pass (no answer, 5xx, 429) say so
/// first, then rows of unknown outcome, then rows the service or the check refused.
fn outcome(run: &Run<'_>, results: &Path) -> Result<(), Failure> {
    let t = &run.tally;
    let bad = t.failed + t.unknown_outcome;
    if bad == 0 {
        return Ok(());
    }
    let (class, hint) = if t.transient > 0 {
        let class = Class::Network;
        (
            class,
            "run the same command again to send the rows that failed for want of an answer",
        )
    } else if t.unknown_outcome > 0 {
        (
            Class::Failure,
            "look the rows of unknown outcome up in the service, or send them again with --resend-unknown",
        )
    } else {
        (
            Class::Invalid,
            "fix the rows of the rejects file and import it",
        )
    };
    Err(Failure::new(
        class,
        format!(
            "{} of {} rows failed and {} have an unknown outcome (each named in {})",
            thousands(t.failed),
            thousands(run.checked.rows),
            thousands(t.unknown_outcome),
            results.display()
        ),
    )
    .with_hint(hint))
}

/// The results file from the journal's outcomes of this run, replaced whole; the failed
/// rows' lines and errors, for the rejects file.
fn results_file(run: &Run<'_>, path: &Path) -> Result<BTreeMap<u64, String>, Failure> {
    let part = part_path(path);
    let file = File::create(&part).map_err(|e| Failure::io("create", &part, e))?;
    let mut out = Results::new(BufWriter::new(file), run.options.results_format)
        .map_err(|e| Failure::io("write", &part, e))?;
    let mut failed = BTreeMap::new();
    run.journal.each_outcome(|o| {
        if o.outcome == State::Failed {
            failed.insert(o.line, o.error.clone().unwrap_or_default());
        }
        out.write(&o).map_err(|e| Failure::io("write", &part, e))
    })?;
    out.finish().map_err(|e| Failure::io("write", &part, e))?;
    std::fs::rename(&part, path).map_err(|e| Failure::io("replace", path, e))?;
    Ok(failed)
}

enum Results {
    Lines(BufWriter<File>),
    Csv(Box<csv::Writer<BufWriter<File>>>),
}

impl Results {
    fn new(out: BufWriter<File>, format: ResultsFormat) -> std::io::Result<Results> {
        Ok(match format {
            ResultsFormat::JsonLines => Results::Lines(out),
            ResultsFormat::Csv => {
                let mut out = csv::Writer::from_writer(out);
                out.write_record(["line", "key", "outcome", "id", "status", "error"])?;
                Results::Csv(Box::new(out))
            }
        })
    }

    fn write(&mut self, o: &Outcome) -> std::io::Result<()> {
        match self {
            Results::Lines(out) => {
                let line = serde_json::json!({
                    "line": o.line,
                    "key": o.key,
                    "outcome": o.outcome,
                    "id": o.id,
                    "status": o.status,
                    "error": o.error,
                });
                serde_json::to_writer(&mut *out, &line)?;
                out.write_all(b"\n")
            }
            Results::Csv(out) => {
                let outcome = serde_json::to_value(o.outcome).unwrap_or(Value::Null);
                out.write_record([
                    o.line.to_string(),
                    o.key.clone(),
                    outcome.as_str().unwrap_or_default().to_string(),
                    o.id.clone().unwrap_or_default(),
                    o.status.map(|s| s.to_string()).unwrap_or_default(),
                    o.error.clone().unwrap_or_default(),
                ])
                .map_err(std::io::Error::other)
            }
        }
    }

    fn finish(self) -> std::io::Result<()> {
        let file = match self {
            Results::Lines(out) => out.into_inner().map_err(|e| e.into_error())?,
            Results::Csv(out) => out
                .into_inner()
                .map_err(|e| std::io::Error::other(e.to_string()))?
                .into_inner()
                .map_err(|e| e.into_error())?,
        };
        file.sync_all()
    }
}

/// The failed rows of `input` as they were, in its format, each with its error.
fn rejects_file(input: &Input, failed: &BTreeMap<u64, String>, path: &Path) -> Result<(), Failure> {
    let part = part_path(path);
    let written = match input.format {
        Format::Csv => csv_rejects(&input.path, input.line_shift()?, failed, &part),
        Format::JsonLines => line_rejects(&input.path, failed, &part),
    };
    written.map_err(|e| Failure::io("write", &part, e))?;
    std::fs::rename(&part, path).map_err(|e| Failure::io("replace", path, e))
}

fn csv_rejects(
    input: &Path,
    shift: u64,
    failed: &BTreeMap<u64, String>,
    part: &Path,
) -> std::io::Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(input)
        .map_err(std::io::Error::other)?;
    let mut out = csv::Writer::from_path(part).map_err(std::io::Error::other)?;
    let mut header = reader
        .byte_headers()
        .map_err(std::io::Error::other)?
        .clone();
    header.push_field(ERROR_COLUMN.as_bytes());
    out.write_byte_record(&header)
        .map_err(std::io::Error::other)?;
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(std::io::Error::other)?
    {
        let line = record.position().map_or(0, |p| p.line()) + shift;
        if let Some(error) = failed.get(&line) {
            record.push_field(error.as_bytes());
            out.write_byte_record(&record)
                .map_err(std::io::Error::other)?;
        }
    }
    out.flush()
}

fn line_rejects(input: &Path, failed: &BTreeMap<u64, String>, part: &Path) -> std::io::Result<()> {
    let reader = BufReader::new(File::open(input)?);
    let mut out = BufWriter::new(File::create(part)?);
    for (n, line) in reader.lines().enumerate() {
        let line = line?;
        let Some(error) = failed.get(&(n as u64 + 1)) else {
            continue;
        };
        let mut object = match serde_json::from_str::<Value>(&line) {
            Ok(Value::Object(object)) => object,
            _ => serde_json::Map::from_iter([("import_original".to_string(), Value::from(line))]),
        };
        object.insert(ERROR_COLUMN.into(), Value::from(error.as_str()));
        serde_json::to_writer(&mut out, &object)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
