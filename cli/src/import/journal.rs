//! The import's journal: one JSON Lines file per interface and target, in a folder held
//! by one run at a time (the state module's lock). Appended before each request that may
//! not be repeated (`sending`, flushed to disk first) and after every row's outcome; a
//! finished run is folded into each key's last applied values (`applied`), written whole
//! and atomically. What a killed run leaves is read back exactly: a torn last line (the
//! write the kill cut) is cut off, anything else unreadable is refused by line.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::exit::{Class, Failure};
use crate::state;

/// The journal's format; an older tool refuses a newer one.
pub const FORMAT: u32 = 1;
const NAME: &str = "journal.jsonl";

/// One line of the journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Entry {
    /// The first line: what the journal is of.
    Journal {
        format: u32,
        interface: String,
        target: String,
    },
    /// A key's last applied values (the hash of its row) and its record's id.
    Applied {
        key: String,
        #[serde(flatten)]
        last: Last,
    },
    /// A run began on a file (known by its size and hash).
    Begin(Begin),
    /// A row's request is about to go.
    Sending {
        line: u64,
        key: String,
        hash: String,
    },
    /// A row's outcome.
    Outcome(Outcome),
    /// The run ended: every row has its outcome.
    End { at: DateTime<Utc> },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Begin {
    pub file: String,
    pub size: u64,
    pub hash: String,
    pub at: DateTime<Utc>,
}

/// What became of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum State {
    #[serde(rename = "created")]
    Created,
    #[serde(rename = "updated")]
    Updated,
    #[serde(rename = "unchanged")]
    Unchanged,
    #[serde(rename = "failed")]
    Failed,
    #[serde(rename = "unknown outcome")]
    Unknown,
}

/// A row's outcome, as the results file shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    pub line: u64,
    pub key: String,
    pub outcome: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The service's status, for a failure it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The row's values when it was applied (for `unchanged` next time).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hash: String,
}

/// What the journal knows of a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Last {
    /// The hash of the row last applied (or last sent, when its outcome is unknown).
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its outcome is unknown since the run that began then: it is looked for again
    /// before anything is sent for its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_since: Option<DateTime<Utc>>,
}

/// A run that began and did not end.
#[derive(Debug, Default)]
pub struct Open {
    pub begin: Begin,
    /// Lines whose outcome is known.
    pub done: HashMap<u64, State>,
    /// Lines sent without a known outcome: their key and hash.
    pub in_flight: BTreeMap<u64, (String, String)>,
}

/// What the journal says before a run.
#[derive(Debug, Default)]
pub struct Past {
    /// What is known of each key.
    pub applied: HashMap<String, Last>,
    pub open: Option<Open>,
}

/// The journal, open for appending.
pub struct Journal {
    pub path: PathBuf,
    file: File,
}

impl Journal {
    /// Reads the journal in `dir` (made for `interface`'s `target` when there is none) and
    /// opens it for appending.
    pub fn open(dir: &Path, interface: &str, target: &str) -> Result<(Journal, Past), Failure> {
        let path = dir.join(NAME);
        let past = match File::open(&path) {
            Ok(file) => read(&path, file, interface, target)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let head = Entry::Journal {
                    format: FORMAT,
                    interface: interface.into(),
                    target: target.into(),
                };
                state::write_atomically(&path, &line_of(&head))?;
                Past::default()
            }
            Err(e) => return Err(Failure::io("read", &path, e)),
        };
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Failure::io("open", &path, e))?;
        Ok((Journal { path, file }, past))
    }

    /// Appends `entry`; `durable`: flushed to disk before this returns (before a request
    /// that must not be sent twice goes).
    pub fn append(&mut self, entry: &Entry, durable: bool) -> Result<(), Failure> {
        let before = self.file.metadata().map(|m| m.len());
        let written = self.file.write_all(&line_of(entry)).and_then(|()| {
            if durable {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        written.map_err(|e| {
            // A line the disk refused part-way (full) is cut off now rather than left torn.
            if let Ok(before) = before {
                let _ = self.file.set_len(before);
            }
            Failure::io("write the journal", &self.path, e).with_hint(
                "once it can be written, run the same command again: it goes on after the rows the journal holds",
            )
        })
    }

    /// Replaces the journal by its header and each key's last applied values (after a
    /// finished run, whose outcomes the results file holds).
    pub fn compact(
        &mut self,
        interface: &str,
        target: &str,
        applied: &HashMap<String, Last>,
    ) -> Result<(), Failure> {
        let mut text = line_of(&Entry::Journal {
            format: FORMAT,
            interface: interface.into(),
            target: target.into(),
        });
        let sorted: BTreeMap<_, _> = applied.iter().collect();
        for (key, last) in sorted {
            text.extend(line_of(&Entry::Applied {
                key: key.clone(),
                last: last.clone(),
            }));
        }
        state::write_atomically(&self.path, &text)?;
        self.file = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|e| Failure::io("open", &self.path, e))?;
        Ok(())
    }

    /// Calls `f` with each outcome of the last run, in the order of the file's lines (rows
    /// finish out of order when several are in flight). Holds a line number and an offset
    /// per outcome, not the outcomes.
    pub fn each_outcome(
        &self,
        mut f: impl FnMut(Outcome) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let failed = |e| Failure::io("read", &self.path, e);
        let mut file = BufReader::new(File::open(&self.path).map_err(failed)?);
        let mut found: Vec<(u64, u64)> = Vec::new();
        let (mut at, mut text) = (0u64, String::new());
        loop {
            text.clear();
            let read = file.read_line(&mut text).map_err(failed)?;
            if read == 0 {
                break;
            }
            if text.starts_with("{\"begin\"") {
                found.clear();
            } else if let Ok(Entry::Outcome(o)) = serde_json::from_str::<Entry>(&text) {
                found.push((o.line, at));
            }
            at += read as u64;
        }
        found.sort_by_key(|&(line, _)| line);
        for (_, offset) in found {
            file.seek(SeekFrom::Start(offset)).map_err(failed)?;
            text.clear();
            file.read_line(&mut text).map_err(failed)?;
            if let Ok(Entry::Outcome(o)) = serde_json::from_str::<Entry>(&text) {
                f(o)?;
            }
        }
        Ok(())
    }
}

fn line_of(entry: &Entry) -> Vec<u8> {
    let mut line = serde_json::to_vec(entry).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Reads a journal: its header must be this interface's and target's, of a format this
/// tool reads; a torn last line is cut off (the file truncated to its last whole line).
fn read(path: &Path, file: File, interface: &str, target: &str) -> Result<Past, Failure> {
    let refused = |what: String| {
        Failure::new(
            Class::Failure,
            format!(
                "{} {what}; move it away to start over (the rows it shows in flight then have an unknown outcome)",
                path.display()
            ),
        )
    };
    let mut past = Past::default();
    let mut reader = BufReader::new(file);
    let (mut n, mut whole) = (0u64, 0u64);
    let mut text = String::new();
    loop {
        text.clear();
        let read = reader
            .read_line(&mut text)
            .map_err(|e| Failure::io("read", path, e))?;
        if read == 0 {
            break;
        }
        n += 1;
        if !text.ends_with('\n') {
            // The last write of a killed run, cut short: it never happened.
            let file = OpenOptions::new().write(true).open(path);
            file.and_then(|f| f.set_len(whole).and_then(|()| f.sync_all()))
                .map_err(|e| Failure::io("repair", path, e))?;
            break;
        }
        whole += read as u64;
        let entry: Entry = serde_json::from_str(&text).map_err(|e| {
            refused(format!(
                "line {n} is not a journal line this tool wrote ({e}): it is damaged or foreign"
            ))
        })?;
        if n == 1 {
            header(entry, interface, target).map_err(refused)?;
            continue;
        }
        past.take(entry)
            .map_err(|what| refused(format!("line {n}: {what}")))?;
    }
    if n == 0 {
        return Err(refused("is empty".into()));
    }
    Ok(past)
}

fn header(entry: Entry, interface: &str, target: &str) -> Result<(), String> {
    match entry {
        Entry::Journal { format, .. } if format > FORMAT => Err(format!(
            "is of format {format}, newer than this tool's {FORMAT}: use a newer tool, or"
        )),
        Entry::Journal {
            interface: i,
            target: t,
            ..
        } if i == interface && t == target => Ok(()),
        Entry::Journal {
            interface: i,
            target: t,
            ..
        } => Err(format!(
            "is the journal of {i} {t}, not of {interface} {target}: name another --journal, or"
        )),
        _ => Err("does not begin as a journal".into()),
    }
}

impl Past {
    fn take(&mut self, entry: Entry) -> Result<(), String> {
        match entry {
            Entry::Journal { .. } => return Err("a second header".into()),
            Entry::Applied { key, last } => {
                self.applied.insert(key, last);
            }
            Entry::Begin(begin) => {
                self.open = Some(Open {
                    begin,
                    ..Open::default()
                });
            }
            Entry::Sending { line, key, hash } => {
                self.run()?.in_flight.insert(line, (key, hash));
            }
            Entry::Outcome(o) => {
                let open = self.run()?;
                open.in_flight.remove(&o.line);
                open.done.insert(o.line, o.outcome);
                let since = open.begin.at;
                self.note(o, since);
            }
            Entry::End { .. } => {
                self.run()?;
                self.open = None;
            }
        }
        Ok(())
    }

    /// What `o` tells of its key: applied values, or an outcome still unknown since the
    /// run that began at `since`.
    pub fn note(&mut self, o: Outcome, since: DateTime<Utc>) {
        let last = match o.outcome {
            State::Created | State::Updated | State::Unchanged => Last {
                hash: o.hash,
                id: o.id,
                unknown_since: None,
            },
            State::Unknown => Last {
                hash: o.hash,
                id: None,
                unknown_since: Some(since),
            },
            State::Failed => return,
        };
        self.applied.insert(o.key, last);
    }

    fn run(&mut self) -> Result<&mut Open, String> {
        self.open
            .as_mut()
            .ok_or_else(|| "a row outside any run".to_string())
    }
}

/// FNV-1a, 64 bits: a row's values and a file's bytes, hashed the same on every machine.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("inspection-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_killed_run_reads_back_with_its_rows_in_flight_and_a_torn_line_cut_off() {
        let dir = dir("read");
        let (mut j, past) = Journal::open(&dir, "v3", "tasks").unwrap();
        assert!(past.open.is_none() && past.applied.is_empty());
        let begin = Begin {
            file: "t.csv".into(),
            size: 9,
            hash: "h".into(),
            at: Utc::now(),
        };
        j.append(&Entry::Begin(begin.clone()), false).unwrap();
        for line in [2, 3] {
            j.append(
                &Entry::Sending {
                    line,
                    key: format!("k{line}"),
                    hash: "x".into(),
                },
                true,
            )
            .unwrap();
        }
        let done = Outcome {
            line: 2,
            key: "k2".into(),
            outcome: State::Created,
            id: Some("t-1".into()),
            status: None,
            error: None,
            hash: "x".into(),
        };
        j.append(&Entry::Outcome(done), false).unwrap();
        drop(j);
        let mut file = OpenOptions::new()
            .append(true)
            .open(dir.join(NAME))
            .unwrap();
        file.write_all(b"{\"sending\": {\"line\": 4").unwrap();
        let (_, past) = Journal::open(&dir, "v3", "tasks").unwrap();
        let open = past.open.unwrap();
        assert_eq!(open.begin, begin);
        assert_eq!(open.done.get(&2), Some(&State::Created));
        assert_eq!(open.in_flight.keys().collect::<Vec<_>>(), [&3]);
        assert_eq!(past.applied["k2"].id.as_deref(), Some("t-1"));
        let text = std::fs::read_to_string(dir.join(NAME)).unwrap();
        assert!(text.ends_with("}\n"), "the torn line is cut off: {text}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_last_runs_outcomes_come_back_in_the_files_line_order() {
        let dir = dir("order");
        let (mut j, _) = Journal::open(&dir, "v3", "tasks").unwrap();
        let outcome = |line: u64, outcome: State| {
            Entry::Outcome(Outcome {
                line,
                key: format!("k{line}"),
                outcome,
                id: None,
                status: None,
                error: None,
                hash: String::new(),
            })
        };
        let begin = Entry::Begin(Begin::default());
        let created = State::Created;
        // An earlier run's line 9, then rows finishing out of order; line 3 was sent again
        // after a failure, and its two outcomes keep their order.
        for entry in [
            begin.clone(),
            outcome(9, created),
            begin,
            outcome(4, created),
            outcome(3, State::Failed),
            outcome(2, created),
            outcome(3, created),
        ] {
            j.append(&entry, false).unwrap();
        }
        let mut seen = Vec::new();
        j.each_outcome(|o| {
            seen.push((o.line, o.outcome));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                (2, State::Created),
                (3, State::Failed),
                (3, State::Created),
                (4, State::Created)
            ]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_damaged_foreign_or_newer_journal_is_refused_by_name() {
        let dir = dir("refuse");
        let path = dir.join(NAME);
        for (text, expected) in [
            ("garbage\n", "line 1 is not a journal line"),
            (
                "{\"journal\":{\"format\":1,\"interface\":\"v3\",\"target\":\"units\"}}\n",
                "is the journal of v3 units, not of v3 tasks",
            ),
            (
                "{\"journal\":{\"format\":9,\"interface\":\"v3\",\"target\":\"tasks\"}}\n",
                "is of format 9, newer",
            ),
            (
                "{\"journal\":{\"format\":1,\"interface\":\"v3\",\"target\":\"tasks\"}}\n{\"sending\":{\"line\":1,\"key\":\"k\",\"hash\":\"h\"}}\n",
                "line 2: a row outside any run",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let refused = Journal::open(&dir, "v3", "tasks").err().expect("refused");
            assert!(
                refused.message.contains(expected)
                    && refused.message.contains(&path.display().to_string()),
                "{refused}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
