//! `checkpoint.json`: how far an export got, written atomically after the page it covers
//! is durable, so a run that dies at any moment resumes exactly where its last checkpoint
//! says (docs/cli.md shows the format).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::exit::Failure;
use crate::state::{self, Versioned};

/// The format written today; an older tool refuses a newer one.
pub const FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub format: u32,
    /// The interface and list operation exported (`v3`, `list_inspections`).
    pub interface: String,
    pub list: String,
    /// Whether each record's document is saved too.
    pub documents: bool,
    /// The length of `records.jsonl` that holds whole, covered pages.
    pub records_bytes: u64,
    /// Records and pages written, over every pass.
    pub records: u64,
    pub pages: u64,
    /// The latest value of the records' watermark field seen, over every pass.
    pub watermark: Option<DateTime<Utc>>,
    /// Ids of the records whose watermark is within [`OVERLAP`] of `watermark`, with it:
    /// the next `--since last` asks from a little before the mark, and skips these.
    pub recent_ids: BTreeMap<String, DateTime<Utc>>,
    /// The pass under way, if one is: started, not finished.
    pub pass: Option<Pass>,
    /// Every finished pass, oldest first.
    pub completed: Vec<Completed>,
}

/// One run of the list, from its first page to its last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pass {
    /// What `--since` said (`last`, a time, or nothing), to refuse other arguments.
    pub requested: Option<String>,
    /// The time sent as the list's "after" filter.
    pub since: Option<DateTime<Utc>>,
    /// Where the next page starts (`cursor:...`, `link:...`); `None` before the first.
    pub resume: Option<String>,
    /// Ids already exported at the previous watermark, skipped in this pass.
    pub skip_ids: BTreeSet<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Completed {
    pub finished_at: DateTime<Utc>,
    pub since: Option<DateTime<Utc>>,
    pub records: u64,
}

impl Versioned for Checkpoint {
    const WHAT: &'static str = "an export checkpoint";
    const FORMAT: u32 = FORMAT;
}

/// What to do with a checkpoint this tool cannot trust: nothing here is removed for it.
const WAY_OUT: &str = "`--restart` starts the export over in this folder (its records and \
checkpoint are set aside, renamed, not deleted), or export into a new folder";

/// How far before the last watermark `--since last` asks again: a record made in the
/// same second as the last one exported is found whether the service's filter is
/// "after" or "at or after", and its id tells whether it was exported already.
pub const OVERLAP: chrono::TimeDelta = chrono::TimeDelta::seconds(1);

impl Checkpoint {
    pub fn new(interface: &str, list: &str, documents: bool) -> Checkpoint {
        Checkpoint {
            format: FORMAT,
            interface: interface.to_string(),
            list: list.to_string(),
            documents,
            records_bytes: 0,
            records: 0,
            pages: 0,
            watermark: None,
            recent_ids: BTreeMap::new(),
            pass: None,
            completed: Vec::new(),
        }
    }

    /// The checkpoint at `path`, `None` when there is none; one that is damaged, foreign
    /// or newer is refused, naming the file and the way out.
    pub fn read(path: &Path) -> Result<Option<Checkpoint>, Failure> {
        state::read(path, WAY_OUT)
    }

    /// Writes the checkpoint atomically (see [`state::write_atomically`]).
    pub fn write(&self, path: &Path) -> Result<(), Failure> {
        state::write(path, self)
    }

    /// Takes a record's watermark and id into account.
    pub fn saw(&mut self, id: &str, at: Option<DateTime<Utc>>) {
        let Some(at) = at else {
            return;
        };
        let mark = self.watermark.map_or(at, |mark| mark.max(at));
        self.watermark = Some(mark);
        if at >= mark - OVERLAP {
            self.recent_ids.insert(id.to_string(), at);
        }
        // Only ids within the overlap of the mark stay: the set stays small.
        self.recent_ids.retain(|_, seen| *seen >= mark - OVERLAP);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn the_watermark_keeps_the_ids_of_its_last_second() {
        let mut c = Checkpoint::new("v3", "list", false);
        c.saw("a", Some(t("2026-01-01T00:00:00Z")));
        c.saw("b", Some(t("2026-01-01T00:00:05Z")));
        c.saw("c", Some(t("2026-01-01T00:00:04.5Z")));
        c.saw("d", Some(t("2026-01-01T00:00:01Z")));
        c.saw("e", None);
        assert_eq!(c.watermark, Some(t("2026-01-01T00:00:05Z")));
        assert_eq!(
            c.recent_ids.keys().map(String::as_str).collect::<Vec<_>>(),
            ["b", "c"]
        );
    }

    #[test]
    fn a_checkpoint_reads_back_what_was_written_and_refuses_a_stranger() {
        let dir = std::env::temp_dir().join(format!("inspection-cli-cp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(super::super::folder::CHECKPOINT);
        let mut c = Checkpoint::new("v3", "list_inspections", true);
        c.pass = Some(Pass {
            requested: Some("last".into()),
            since: Some(t("2026-01-01T00:00:00Z")),
            resume: Some("cursor:abc".into()),
            skip_ids: BTreeSet::from(["x".to_string()]),
        });
        c.write(&path).unwrap();
        assert_eq!(Checkpoint::read(&path).unwrap(), Some(c));
        std::fs::write(&path, "{\"format\": 1}").unwrap();
        let refused = Checkpoint::read(&path).unwrap_err();
        assert!(
            refused
                .message
                .contains("is not an export checkpoint this tool wrote"),
            "{refused}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
