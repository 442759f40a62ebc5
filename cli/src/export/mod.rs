//! `inspection export`: every record of an interface's export list (and each one's
//! document) into a folder, resumable after the process dies at any moment.
//!
//! The order of writes is what makes it safe: a page's documents are written whole
//! (`.part`, synced, renamed), then its records are appended and synced, and only then
//! does the checkpoint move past the page (written to a temporary file, synced, renamed).
//! A run that starts again cuts `records.jsonl` back to the length its checkpoint covers
//! and fetches the page after it, so nothing is missing, nothing is written twice, and no
//! line is torn. The generated crate says which list and document each interface
//! exports ([`Source`]); nothing here knows a record of the service.

pub mod checkpoint;
pub mod documents;
pub mod folder;
pub mod progress;

use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use inspection_runtime::{BoxStream, Core, Error, Pacer, Resume};
use serde::Serialize;
use serde_json::Value;

use crate::exit::{Class, Failure};
use checkpoint::{Checkpoint, Completed, Pass};
use documents::{LinkOptions, Saver, Wanted};
use folder::Folder;
use progress::{ByPath, Progress};

/// A page of records as JSON, with where the walk goes after it.
pub type Pages = BoxStream<(Vec<Value>, Option<Resume>)>;

/// A document being written.
pub type Writing<'a> = Pin<Box<dyn Future<Output = Result<u64, Error>> + 'a>>;

/// The file a document is written to (keeping its first error, so that a full disk is
/// not taken for a broken download).
pub type File = crate::output::Watched<tokio::fs::File>;

/// A walk's typed pages as [`Pages`]: `items` takes a page's records out of it.
pub fn pages_of<P: Send + 'static, T: Serialize + 'static>(
    pages: BoxStream<(P, Option<Resume>)>,
    items: fn(P) -> Vec<T>,
) -> Pages {
    Box::pin(pages.map(move |page| {
        let (page, next) = page?;
        Ok((to_values(items(page))?, next))
    }))
}

/// A walk that could not start: the filter for `--since` could not be made.
pub fn failed(e: serde_json::Error) -> Pages {
    refused(Error::Config(format!(
        "the export's since filter cannot be made: {e}"
    )))
}

/// A walk that gives `error` and ends.
pub fn refused(error: Error) -> Pages {
    Box::pin(futures_util::stream::once(async move { Err(error) }))
}

/// What an interface exports, as the spec's `export` says.
pub trait Source {
    /// What is exported: the interface, the list, the records' fields, the document.
    fn about(&self) -> About;
    /// The client's pace, `(requests, window)`, for the progress line.
    fn quota(&self) -> Option<(u32, Duration)>;
    /// Every page from `resume` (or the first), of records after `since` when given,
    /// `page_size` records a page (the largest the list takes when `None`).
    fn pages(
        &self,
        since: Option<DateTime<Utc>>,
        resume: Option<Resume>,
        page_size: Option<u32>,
    ) -> Pages;
    /// Writes the document of the record `id` to `out`.
    fn document<'a>(&'a self, id: &'a str, out: &'a mut File) -> Writing<'a>;
    /// The client's core: pre-signed links are fetched through it (with no credential),
    /// and it counts the requests sent to the service.
    fn core(&self) -> &Core;
}

/// What an export walks, as the spec's `export` says.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// The interface (`v3`) and list operation (`list_inspections`).
    pub interface: &'static str,
    pub list: &'static str,
    /// The records' id property, and the date-time property `--since last` follows.
    pub id_field: &'static str,
    pub watermark_field: &'static str,
    /// The file extension of a record's document, when the interface has one.
    pub document_extension: Option<&'static str>,
    /// The records' pre-signed link to their document, when they carry one.
    pub document_link: Option<Link>,
}

/// A records' field holding a pre-signed link to its document (the spec's
/// `export.document_link`): fetched with no credential while it lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub field: &'static str,
    /// How long a link lives from the answer that carried it.
    pub lifetime: Duration,
    /// What the link must answer (`application/pdf`).
    pub media_type: &'static str,
}

/// A typed page as JSON records, for [`Source::pages`].
pub fn to_values<T: Serialize>(items: Vec<T>) -> Result<Vec<Value>, Error> {
    items
        .into_iter()
        .map(|item| {
            serde_json::to_value(item).map_err(|e| Error::Decode {
                status: 200,
                path: String::new(),
                message: format!("a record could not be written as JSON: {e}"),
            })
        })
        .collect()
}

/// What to export, where.
#[derive(Clone, Debug)]
pub struct Options {
    pub folder: PathBuf,
    /// Each record's document too.
    pub documents: bool,
    pub since: Since,
    pub progress: progress::Style,
    /// Records a page (`--page-size`); the largest the list takes when `None`.
    pub page_size: Option<u32>,
    /// Walks resumed in this run after a page could not be fetched, before giving up.
    pub max_restarts: u32,
    /// `--restart`: the folder's records and checkpoint set aside, the export started over.
    pub restart: bool,
    /// Where documents come from, and how links are fetched.
    pub links: LinkOptions,
}

/// Which records: all, those after a time, or those after the last finished export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Since {
    All,
    At(DateTime<Utc>),
    Last,
}

impl Since {
    /// `last`, or a date or date-time in ISO 8601 (a date is its midnight, UTC).
    pub fn parse(text: &str) -> Result<Since, String> {
        if text == "last" {
            return Ok(Since::Last);
        }
        crate::command::date_time(text)
            .map(Since::At)
            .map_err(|e| format!("{e}, or `last`"))
    }

    fn requested(&self) -> Option<String> {
        match self {
            Since::All => None,
            Since::Last => Some("last".into()),
            Since::At(t) => Some(t.to_rfc3339()),
        }
    }
}

/// What a finished export did.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub folder: PathBuf,
    /// Records and documents written by this run.
    pub records: u64,
    pub documents: u64,
    /// Those documents by the way they came: a link, the API, a link then the API.
    pub documents_by: ByPath,
    /// Requests this run sent to the service (the list's pages, the API's documents,
    /// retries); links are not counted.
    pub api_requests: u64,
    /// 429 answers from the links' host (waited out, or then taken through the API).
    pub link_rate_limited: u64,
    /// Records in the folder, over every run.
    pub total_records: u64,
    pub watermark: Option<DateTime<Utc>>,
    /// With `--restart`: where the folder's earlier records and checkpoint went.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<PathBuf>,
}

/// Runs (or resumes) the export described by `options` from `source`.
pub async fn run(source: &dyn Source, options: &Options) -> Result<Summary, Failure> {
    if options.documents && source.about().document_extension.is_none() {
        return Err(Failure::usage(format!(
            "--documents: the {} export has no document per record",
            source.about().interface
        )));
    }
    let folder = Folder::lock(&options.folder)?;
    folder.remove_partial()?;
    let set_aside = if options.restart {
        folder.set_aside()?
    } else {
        Vec::new()
    };
    let checkpoint_path = folder.file(folder::CHECKPOINT);
    let records_path = folder.file(folder::RECORDS);
    let mut checkpoint = checkpoint_of(&folder, source.about(), options.documents)?;
    start_pass(source, options, &mut checkpoint)?;
    checkpoint.write(&checkpoint_path)?;
    if options.documents {
        let dir = folder.file(folder::DOCUMENTS);
        std::fs::create_dir_all(&dir).map_err(|e| Failure::io("create", &dir, e))?;
    }
    let mut records = folder::open_records(&records_path, checkpoint.records_bytes)?;
    let requests_before = source.core().requests_sent();
    let mut progress = Progress::new(
        options.progress,
        (checkpoint.records, checkpoint.pages),
        source.quota(),
        requests_before,
    );
    let pacer = Pacer::new(options.links.rate);
    let saver = Saver {
        source,
        folder: &folder,
        options: &options.links,
        pacer: &pacer,
        link_rate_limited: Default::default(),
    };
    let records_before = checkpoint.records;
    let mut restarts = 0;
    let outcome = loop {
        let walked = walk(
            &saver,
            &mut checkpoint,
            &mut records,
            &mut progress,
            options.page_size,
        );
        match walked.await {
            Ok(()) => break Ok(()),
            // A page that failed after the client's own retries: the checkpoint is at it,
            // so start the walk there again, a few times, waiting longer each time.
            Err(failure) if restarts < options.max_restarts && failure.is_transient() => {
                restarts += 1;
                tokio::time::sleep(Duration::from_secs(1 << restarts.min(5))).await;
            }
            Err(failure) => break Err(failure),
        }
    };
    progress.finish(outcome.is_ok());
    outcome.map_err(|f| {
        f.with_hint("run the same command again: it resumes from the last checkpoint")
    })?;
    Ok(Summary {
        folder: folder.path.clone(),
        records: checkpoint.records - records_before,
        documents: progress.documents.total(),
        documents_by: progress.documents,
        api_requests: source.core().requests_sent() - requests_before,
        link_rate_limited: saver.link_rate_limited.into_inner(),
        total_records: checkpoint.records,
        watermark: checkpoint.watermark,
        set_aside,
    })
}

/// The folder's checkpoint, or a new one where the folder holds no export yet; a folder
/// with records but no checkpoint was not made by this tool, so it is refused.
fn checkpoint_of(folder: &Folder, about: About, documents: bool) -> Result<Checkpoint, Failure> {
    match Checkpoint::read(&folder.file(folder::CHECKPOINT))? {
        Some(c) => Ok(c),
        None if folder.file(folder::RECORDS).exists() => Err(Failure::usage(format!(
            "{} holds {} but no {}: it is not an export folder this tool made; use a new folder",
            folder.path.display(),
            folder::RECORDS,
            folder::CHECKPOINT
        ))),
        None => Ok(Checkpoint::new(about.interface, about.list, documents)),
    }
}

/// Starts a pass, or checks that the arguments are those of the pass under way.
fn start_pass(
    source: &dyn Source,
    options: &Options,
    checkpoint: &mut Checkpoint,
) -> Result<(), Failure> {
    if checkpoint.interface != source.about().interface || checkpoint.list != source.about().list {
        return Err(Failure::usage(format!(
            "this folder holds an export of `{} {}`, not of `{} {}`; use another folder, or \
             `--restart` to start over here (its records and checkpoint are set aside)",
            checkpoint.interface,
            checkpoint.list,
            source.about().interface,
            source.about().list
        )));
    }
    let requested = options.since.requested();
    if let Some(pass) = &checkpoint.pass {
        if pass.requested != requested || checkpoint.documents != options.documents {
            let shown = |since: &Option<String>, documents: bool| {
                let mut s = match since {
                    Some(s) => format!("--since {s}"),
                    None => "no --since".to_string(),
                };
                if documents {
                    s.push_str(" --documents");
                }
                s
            };
            return Err(Failure::usage(format!(
                "this folder holds an unfinished export run with {}; run it again with those \
                 arguments to finish it (now: {})",
                shown(&pass.requested, checkpoint.documents),
                shown(&requested, options.documents)
            )));
        }
        return Ok(());
    }
    let (since, skip_ids) = match &options.since {
        // The same command again after it finished: nothing to resume, nothing to add
        // (a full export again would write every record twice).
        Since::All if !checkpoint.completed.is_empty() => {
            if options.progress != progress::Style::Quiet {
                eprintln!(
                    "the export in {} is finished; nothing to do (`--since last` fetches what \
                     came after it)",
                    options.folder.display()
                );
            }
            return Ok(());
        }
        Since::All => (None, Default::default()),
        Since::At(t) => (Some(*t), Default::default()),
        Since::Last => {
            let Some(mark) = checkpoint
                .watermark
                .filter(|_| !checkpoint.completed.is_empty())
            else {
                return Err(Failure::usage(
                    "--since last: this folder holds no finished export with a record to go on \
                     from; run the export once without --since",
                ));
            };
            (
                Some(mark - checkpoint::OVERLAP),
                checkpoint.recent_ids.keys().cloned().collect(),
            )
        }
    };
    checkpoint.documents = options.documents;
    checkpoint.pass = Some(Pass {
        requested,
        since,
        resume: None,
        skip_ids,
    });
    Ok(())
}

/// Walks the pass under way from its checkpoint to its end.
async fn walk(
    saver: &Saver<'_>,
    checkpoint: &mut Checkpoint,
    records: &mut std::fs::File,
    progress: &mut Progress,
    page_size: Option<u32>,
) -> Result<(), Failure> {
    let Some(pass) = checkpoint.pass.clone() else {
        return Ok(());
    };
    let resume = match &pass.resume {
        Some(text) => Some(text.parse::<Resume>().map_err(Failure::from)?),
        None => None,
    };
    let (source, folder) = (saver.source, saver.folder);
    let about = source.about();
    let mut pages = source.pages(pass.since, resume, page_size);
    let checkpoint_path = folder.file(folder::CHECKPOINT);
    while let Some(page) = pages.next().await {
        let (page, next) = page.map_err(Failure::from)?;
        let received = Instant::now();
        let mut lines = Vec::new();
        let mut kept = Vec::new();
        let mut wanted = Vec::new();
        for record in &page {
            let id = id_of(record, about.id_field)?;
            if pass.skip_ids.contains(&id) {
                continue;
            }
            serde_json::to_writer(&mut lines, record).map_err(|e| {
                Failure::new(Class::Failure, format!("cannot write record {id}: {e}"))
            })?;
            lines.push(b'\n');
            if checkpoint.documents {
                wanted.push(Wanted::of(id.clone(), record, about.document_link.as_ref()));
            }
            kept.push((id, watermark_of(record, about.watermark_field)));
        }
        progress.received(kept.len() as u64, source.core().requests_sent());
        saver.page(wanted, received, progress).await?;
        let resume = next.as_ref().map(ToString::to_string);
        commit(folder, records, checkpoint, (&lines, &kept), resume)?;
        progress.page(kept.len() as u64);
        if next.is_none() {
            return Ok(());
        }
    }
    // The walk ended without a page saying it was the last (an empty first page).
    if let Some(pass) = checkpoint.pass.take() {
        checkpoint.completed.push(Completed {
            finished_at: Utc::now(),
            since: pass.since,
            records: checkpoint.records,
        });
        checkpoint.write(&checkpoint_path)?;
    }
    Ok(())
}

/// A record of a page: its id and its watermark field's date-time.
type Seen = (String, Option<DateTime<Utc>>);

/// Makes a page durable: its records appended and synced, then the checkpoint covering
/// them (`resume`: where the pass goes on, `None` when this page was its last). A page the
/// disk refused (full, read-only) is cut off at once, so a reader of the folder never
/// meets a torn record; the next run would cut it off anyway.
fn commit(
    folder: &Folder,
    records: &mut std::fs::File,
    checkpoint: &mut Checkpoint,
    (lines, kept): (&[u8], &[Seen]),
    resume: Option<String>,
) -> Result<(), Failure> {
    let covered = checkpoint.records_bytes;
    let cut_back = |records: &mut std::fs::File, e: Failure| {
        let _ = records.set_len(covered);
        e
    };
    let written = records.write_all(lines).and_then(|()| records.sync_data());
    if let Err(e) = written {
        let path = folder.file(folder::RECORDS);
        return Err(cut_back(records, Failure::io("write", &path, e)));
    }
    checkpoint.records_bytes += lines.len() as u64;
    checkpoint.records += kept.len() as u64;
    checkpoint.pages += 1;
    for (id, at) in kept {
        checkpoint.saw(id, *at);
    }
    match (resume, checkpoint.pass.as_mut()) {
        (Some(at), Some(current)) => current.resume = Some(at),
        _ => {
            let since = checkpoint.pass.take().and_then(|p| p.since);
            checkpoint.completed.push(Completed {
                finished_at: Utc::now(),
                since,
                records: checkpoint.records,
            });
        }
    }
    checkpoint
        .write(&folder.file(folder::CHECKPOINT))
        .map_err(|e| cut_back(records, e))
}

/// A record's id as text (a number is its digits); a record without one cannot be
/// exported exactly once.
fn id_of(record: &Value, field: &str) -> Result<String, Failure> {
    match record.get(field).and_then(id_text) {
        Some(id) => Ok(id),
        None => Err(Failure::new(
            Class::Failure,
            format!("a record has no `{field}`, so the export cannot tell it apart: {record}"),
        )),
    }
}

fn watermark_of(record: &Value, field: &str) -> Option<DateTime<Utc>> {
    record.get(field).and_then(time_of)
}

/// An id as text: a string, or a number's digits (the legacy interface answers either).
pub fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An RFC 3339 date-time, in UTC.
pub fn time_of(value: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_last_a_date_or_a_date_time() {
        assert_eq!(Since::parse("last"), Ok(Since::Last));
        assert_eq!(
            Since::parse("2026-01-31"),
            Ok(Since::At("2026-01-31T00:00:00Z".parse().unwrap()))
        );
        assert_eq!(
            Since::parse("2026-01-31T08:00:00+01:00"),
            Ok(Since::At("2026-01-31T07:00:00Z".parse().unwrap()))
        );
        let refused = Since::parse("yesterday").unwrap_err();
        assert!(refused.contains("`yesterday`"), "{refused}");
    }

    #[test]
    fn an_id_is_text_or_a_number_and_required() {
        assert_eq!(id_of(&serde_json::json!({"id": "a"}), "id").unwrap(), "a");
        assert_eq!(id_of(&serde_json::json!({"id": 7}), "id").unwrap(), "7");
        assert!(id_of(&serde_json::json!({"name": "x"}), "id").is_err());
    }
}
