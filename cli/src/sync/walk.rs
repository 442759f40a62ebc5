//! A run of the sync over its lists: for each, the pass under way finished or a new one
//! started (from the watermark, or the whole list), page by page, each page's rows (and
//! documents' paths) committed with the list's new state.

use std::time::{Duration, Instant};

use chrono::Utc;
use futures_util::StreamExt;

use super::database::{Database, Owned};
use super::documents::Documents;
use super::rows;
use super::runs::RunRecord;
use super::schema::{Current, List};
use super::state::ListState;
use super::state::time_text;
use super::{ListSummary, Options, Source};
use crate::exit::{Class, Failure};
use crate::export::progress::Progress;

/// What one run holds while it walks its lists.
pub struct Run<'a> {
    pub source: &'a dyn Source,
    pub options: &'a Options,
    pub db: Database,
    pub progress: Progress,
    pub documents: Option<Documents<'a>>,
    /// The run's row, written with each commit.
    pub record: RunRecord,
}

impl Run<'_> {
    /// One list: the pass under way finished, or a new one walked; with `--reconcile`, a
    /// whole walk after a resumed pass that was not one.
    pub async fn sync_list(
        &mut self,
        index: usize,
        list: &'static List,
    ) -> Result<ListSummary, Failure> {
        let schema = self.source.schema();
        let mut summary = ListSummary {
            list: list.list,
            table: schema.tables[list.table].name,
            records: 0,
            marked_deleted: 0,
            whole: false,
            since: None,
            watermark: None,
        };
        loop {
            let mut state = self.db.state(list.list).await?;
            let resumed = state.in_pass;
            if !resumed {
                start_pass(&mut state, list, self.options);
                self.db.save_state(list.list, &state).await?;
            }
            summary.whole |= state.whole;
            summary.since = state.since;
            let mut restarts = 0;
            loop {
                match self.walk(index, list, &mut state).await {
                    Ok(written) => {
                        summary.records += written;
                        break;
                    }
                    Err((written, failure))
                        if restarts < self.options.max_restarts && failure.is_transient() =>
                    {
                        summary.records += written;
                        restarts += 1;
                        tokio::time::sleep(Duration::from_secs(1 << restarts.min(5))).await;
                        state = self.db.state(list.list).await?;
                    }
                    Err((_, failure)) => return Err(failure),
                }
            }
            state.in_pass = false;
            state.resume = None;
            state.finished_at = Some(Utc::now());
            let marked = self.finish_pass(list, &state).await?;
            summary.marked_deleted += marked;
            summary.watermark = state.watermark;
            if !(resumed && self.options.reconcile && !state.whole) {
                return Ok(summary);
            }
        }
    }

    /// Ends the pass (its records not seen marked deleted: how many), the run's row saying
    /// the list is done in the same transaction.
    async fn finish_pass(
        &mut self,
        list: &'static List,
        state: &ListState,
    ) -> Result<u64, Failure> {
        let core = self.source.core();
        self.record
            .count((core.requests_sent(), core.rate_limited()));
        if let Some(l) = self.record.list_mut(list.list) {
            l.finished_at = state.finished_at.as_ref().map(time_text);
            l.watermark = state.watermark.as_ref().map(time_text);
        }
        let schema = self.source.schema();
        let at = rows::Checkpoint::new(schema, list, state, &self.record);
        let finished = self.db.finish_pass(at).await;
        let entry = self.record.list_mut(list.list);
        match (&finished, entry) {
            (Ok(marked), Some(l)) => l.marked_deleted += *marked,
            (Err(_), Some(l)) => l.finished_at = None,
            _ => {}
        }
        finished
    }

    /// Walks the pass under way from its state to its end, committing page by page; the
    /// records written, or those and why it stopped.
    async fn walk(
        &mut self,
        index: usize,
        list: &'static List,
        state: &mut ListState,
    ) -> Result<u64, (u64, Failure)> {
        let (source, schema) = (self.source, self.source.schema());
        let page_size = self.options.page_size;
        let pages = source.pages(index, state.since, state.resume.clone(), page_size);
        let mut pages = Ahead::of(pages);
        let mut written = 0;
        while let Some(page) = pages.next().await {
            let (page, next) = page.map_err(|e| (written, Failure::from(e)))?;
            let received = Instant::now();
            self.progress
                .received(page.len() as u64, source.core().requests_sent());
            let records = page
                .iter()
                .map(|value| rows::record(schema, list, value))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| (written, Failure::new(Class::Failure, e)))?;
            let documents = match &mut self.documents {
                Some(docs) if schema.tables[list.table].document => {
                    let wanted: Vec<(&str, &serde_json::Value)> =
                        records.iter().map(|r| r.id.as_str()).zip(&page).collect();
                    docs.save(&wanted, received, &mut self.progress)
                        .await
                        .map_err(|f| (written, f))?
                }
                _ => Vec::new(),
            };
            for r in &records {
                state.watermark = state.watermark.max(r.watermark);
            }
            state.resume = next.clone();
            let count = records.len() as u64;
            let page = Owned { records, documents };
            self.count_page(list, state, count, true);
            let at = rows::Checkpoint::new(schema, list, state, &self.record);
            let committed = self.db.commit_page(at, page);
            if let Err(f) = committed.await {
                self.count_page(list, state, count, false);
                return Err((written, f));
            }
            written += count;
            self.progress.page(count);
            if next.is_none() {
                break;
            }
        }
        Ok(written)
    }
}

impl Run<'_> {
    /// The run's row with a page of `count` records of `list` added (or, `add` false, taken
    /// back: its commit failed), and the client's counts now.
    fn count_page(&mut self, list: &List, state: &ListState, count: u64, add: bool) {
        let core = self.source.core();
        self.record
            .count((core.requests_sent(), core.rate_limited()));
        if let Some(l) = self.record.list_mut(list.list) {
            l.records = if add {
                l.records + count
            } else {
                l.records.saturating_sub(count)
            };
            l.watermark = state.watermark.as_ref().map(time_text);
        }
    }
}

/// A walk's pages one ahead: the next page is fetched by a task of its own while this one
/// is written (a page fetched ahead and not written is fetched again by the next run,
/// which goes on from the last page committed). The task stops with this.
struct Ahead {
    pages: tokio::sync::mpsc::Receiver<PageOrError>,
    task: tokio::task::JoinHandle<()>,
}

/// What a walk's stream gives: a page of records and where the walk goes after it.
type PageOrError =
    Result<(Vec<serde_json::Value>, Option<inspection_runtime::Resume>), inspection_runtime::Error>;

impl Ahead {
    fn of(mut pages: crate::export::Pages) -> Ahead {
        let (send, receive) = tokio::sync::mpsc::channel(1);
        // In the caller's span: a tenant's log lines name it (`sync --tenants`).
        let walk = async move {
            while let Some(page) = pages.next().await {
                if send.send(page).await.is_err() {
                    return;
                }
            }
        };
        let task = tokio::spawn(tracing::Instrument::in_current_span(walk));
        Ahead {
            pages: receive,
            task,
        }
    }

    async fn next(&mut self) -> Option<PageOrError> {
        self.pages.recv().await
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A new pass: the whole list (a list without a filter, the first run, `--reconcile`),
/// or what the filter lists after the watermark, less the lookback for a list whose
/// filter sees only new records, less a second for one that sees changes (a record
/// written in the watermark's second is read again: the upsert makes that harmless).
fn start_pass(state: &mut ListState, list: &List, options: &Options) {
    state.pass += 1;
    state.in_pass = true;
    state.resume = None;
    state.started_at = Some(Utc::now());
    let back = match list.current {
        Current::Walk => None,
        Current::Filter { changes: true, .. } => Some(Duration::from_secs(1)),
        Current::Filter { changes: false, .. } => Some(options.lookback),
    };
    let since = match (back, state.watermark) {
        (Some(back), Some(mark)) if !options.reconcile => chrono::Duration::from_std(back)
            .ok()
            .and_then(|b| mark.checked_sub_signed(b)),
        _ => None,
    };
    state.whole = since.is_none();
    state.since = since;
}
