//! The import's inputs, fuzzed: CSV and JSON Lines files, mapping files and journals made
//! from valid ones by random edits (bytes cut, repeated or inserted: quotes, separators,
//! line breaks, a BOM, invalid UTF-8, JSON punctuation), with a fixed seed. The contract:
//! nothing panics or hangs, every row read or named by a line of the file, and every
//! refusal names the file. `FUZZ_ITERATIONS=N` runs longer, `FUZZ_SEED=S` another seed
//! (docs/tests.md has a long run's figures).

use std::path::Path;
use std::time::{Duration, Instant};

use super::file::{Format, Input};
use super::journal::Journal;
use super::mapping::Mapping;
use super::{CellKind, Column, Place, Target, cells};
use crate::fuzz::{Rng, iterations, mutate, scratch};

const HANG: Duration = Duration::from_secs(5);

static COLUMNS: &[Column] = &[
    Column {
        name: "reference_number",
        place: Place::Path,
        kind: CellKind::Text,
        required: true,
        variant: None,
    },
    Column {
        name: "year",
        place: Place::Body,
        kind: CellKind::Integer,
        required: false,
        variant: None,
    },
    Column {
        name: "due",
        place: Place::Body,
        kind: CellKind::DateOrDateTime,
        required: false,
        variant: None,
    },
    Column {
        name: "active",
        place: Place::Body,
        kind: CellKind::Boolean,
        required: false,
        variant: None,
    },
    Column {
        name: "extended_data",
        place: Place::Body,
        kind: CellKind::Map,
        required: false,
        variant: None,
    },
    Column {
        name: "user",
        place: Place::Body,
        kind: CellKind::Text,
        required: true,
        variant: Some("user"),
    },
    Column {
        name: "group",
        place: Place::Body,
        kind: CellKind::Scalar,
        required: true,
        variant: Some("group"),
    },
];

static TARGET: Target = Target {
    name: "units",
    about: "",
    operation: "upsert",
    idempotent: true,
    creates: false,
    key: &["reference_number"],
    row: None,
    columns: COLUMNS,
    find: None,
};

const CSV: &str = "reference_number,year,due,active,extended_data,extended_data.fleet,user\nA-1,2020,2026-12-01,yes,\"{\"\"a\"\": 1}\",north,dana\n\"B,2\",1999,2026-12-01T08:00:00Z,0,,\"south\nyard\",sam\n";
const JSONL: &str = "{\"reference_number\": \"A-1\", \"year\": 2020, \"extended_data\": {\"a\": [1, 2]}}\n{\"reference_number\": \"B-2\", \"group\": 7, \"active\": true}\n";
const MAP: &str = "# ERP\nAsset No = reference_number\nModel year = year\nFleet = extended_data.fleet\nNotes = -\n";
const JOURNAL: &str = "{\"journal\":{\"format\":1,\"interface\":\"v3\",\"target\":\"units\"}}\n{\"applied\":{\"key\":\"A-1\",\"hash\":\"00ff\",\"id\":\"unt_1\"}}\n{\"begin\":{\"file\":\"u.csv\",\"size\":9,\"hash\":\"ab\",\"at\":\"2026-11-29T08:00:00Z\"}}\n{\"sending\":{\"line\":2,\"key\":\"A-1\",\"hash\":\"01\"}}\n{\"outcome\":{\"line\":2,\"key\":\"A-1\",\"outcome\":\"created\",\"id\":\"unt_1\",\"hash\":\"01\"}}\n";

/// Reads every row of `path`: each row's problems name a line of the file; a refusal
/// names the file.
fn read_all(path: &Path, format: Format, map: Option<&Path>) -> Result<usize, String> {
    let shown = path.display().to_string();
    let input = match Input::open(path, Some(format), map, &TARGET) {
        Ok(input) => input,
        Err(refused) => {
            let named = refused.message.contains(&shown)
                || map.is_some_and(|m| refused.message.contains(&m.display().to_string()));
            return if named {
                Ok(0)
            } else {
                Err(format!("a refusal that names no file: {}", refused.message))
            };
        }
    };
    let lines = std::fs::read(path).unwrap().split(|b| *b == b'\n').count() as u64;
    let rows = match input.rows() {
        Ok(rows) => rows,
        Err(refused) if refused.message.contains(&shown) => return Ok(0),
        Err(refused) => return Err(format!("a refusal that names no file: {}", refused.message)),
    };
    let mut problems = rows.header_problems(&input);
    let mut n = 0;
    for row in rows {
        n += 1;
        match row {
            Ok(row) => problems.extend(cells::read_row(&TARGET, row).1),
            Err(problem) => problems.push(problem),
        }
    }
    match problems
        .iter()
        .find(|p| p.line == 0 || p.line > lines + 1 || p.rule.is_empty())
    {
        Some(p) => Err(format!("a problem at no line of the file: {p}")),
        None => Ok(n),
    }
}

#[test]
fn mutated_import_files_and_mappings_never_panic_and_name_every_refusal() {
    let (n, seed) = iterations();
    let mut rng = Rng(seed);
    let dir = scratch("import");
    let (csv, jsonl, map) = (
        dir.join("rows.csv"),
        dir.join("rows.jsonl"),
        dir.join("erp.map"),
    );
    let mut read = 0;
    for case in 0..n {
        let started = Instant::now();
        let (path, format, base) = if case % 2 == 0 {
            (&csv, Format::Csv, CSV)
        } else {
            (&jsonl, Format::JsonLines, JSONL)
        };
        std::fs::write(path, mutate(&mut rng, base.as_bytes())).unwrap();
        let with_map = case % 5 == 0;
        if with_map {
            std::fs::write(&map, mutate(&mut rng, MAP.as_bytes())).unwrap();
        }
        let result = read_all(path, format, with_map.then_some(map.as_path()));
        match result {
            Ok(rows) => read += rows,
            Err(what) => panic!(
                "case {case} (seed {seed}): {what}\n{:?}",
                String::from_utf8_lossy(&std::fs::read(path).unwrap())
            ),
        }
        assert!(
            started.elapsed() < HANG,
            "case {case} (seed {seed}) took {:?}",
            started.elapsed()
        );
    }
    assert!(
        read > n / 2,
        "the mutations leave most files readable: {read} rows in {n} cases"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mutated_mapping_files_are_read_or_refused_by_line() {
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0x5eed);
    let dir = scratch("map");
    let path = dir.join("erp.map");
    for case in 0..n {
        let text = String::from_utf8_lossy(&mutate(&mut rng, MAP.as_bytes())).into_owned();
        std::fs::write(&path, &text).unwrap();
        let known =
            |f: &str| TARGET.column(f).is_some() || f.starts_with("extended_data.") && f.len() > 14;
        if let Err(refused) = Mapping::read(&path, known) {
            let prefix = format!("{}:", path.display());
            assert!(
                refused.message.contains(&prefix),
                "case {case}: {}",
                refused.message
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mutated_journals_are_read_repaired_or_refused_by_name() {
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0x7a11);
    let dir = scratch("journal");
    let path = dir.join("journal.jsonl");
    for case in 0..n / 3 {
        std::fs::write(&path, mutate(&mut rng, JOURNAL.as_bytes())).unwrap();
        match Journal::open(&dir, "v3", "units") {
            Ok(_) => {
                let text = std::fs::read(&path).unwrap();
                assert!(
                    text.is_empty() || text.ends_with(b"\n"),
                    "case {case}: a torn line was kept"
                );
            }
            Err(refused) => {
                assert!(
                    refused.message.contains(&path.display().to_string()),
                    "case {case}: {}",
                    refused.message
                )
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
