//! What an export (or a sync) shows while it runs: a progress line on a terminal that moves with each
//! page received and each document written, a JSON line every few seconds when stderr is
//! a file or a pipe, nothing with `--quiet`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A bar on a terminal, JSON lines otherwise.
    Auto,
    Quiet,
}

/// The way a document came, counted in the progress and the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Link,
    Api,
    /// A link that failed, then the API.
    Fallback,
}

/// Documents written by each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByPath {
    pub link: u64,
    pub api: u64,
    pub fallback: u64,
}

impl ByPath {
    pub fn add(&mut self, way: Way) {
        match way {
            Way::Link => self.link += 1,
            Way::Api => self.api += 1,
            Way::Fallback => self.fallback += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.link + self.api + self.fallback
    }
}

/// The tenant a run of `sync --tenants` is for: its name begins each progress line, and
/// its bar is one of the run's bars.
#[derive(Clone, Debug)]
pub struct Label {
    pub tenant: String,
    pub bars: indicatif::MultiProgress,
}

/// Counts of a run, and where they are shown.
pub struct Progress {
    shown: Shown,
    started: Instant,
    /// Records written at the start of this run (a resumed export goes on from them).
    base_records: u64,
    /// Records durable in the folder, over every run.
    pub records: u64,
    /// Records received in this run (written once their page's documents are).
    pub received: u64,
    pub pages: u64,
    /// Documents written in this run, by the way they came.
    pub documents: ByPath,
    /// Requests sent to the service in this run, as last told, and the client's count
    /// when the run started.
    requests: u64,
    requests_base: u64,
    /// The quota the client keeps to, for the line's "paced to".
    quota_per_s: Option<f64>,
    /// What the last line on a terminal says a finished run did (`exported`, `synced`).
    done: &'static str,
    /// The tenant, in `sync --tenants`.
    tenant: Option<String>,
}

enum Shown {
    Bar(indicatif::ProgressBar),
    Lines { every: Duration, last: Instant },
    Nothing,
}

impl Progress {
    /// `records` and `pages` written before this run; `requests` the client's count of
    /// requests sent so far.
    pub fn new(
        style: Style,
        (records, pages): (u64, u64),
        quota: Option<(u32, Duration)>,
        requests: u64,
    ) -> Progress {
        let shown = match style {
            Style::Quiet => Shown::Nothing,
            Style::Auto if std::io::stderr().is_terminal() => {
                let bar = indicatif::ProgressBar::new_spinner();
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                );
                bar.enable_steady_tick(Duration::from_millis(200));
                Shown::Bar(bar)
            }
            Style::Auto => Shown::Lines {
                every: Duration::from_secs(5),
                last: Instant::now(),
            },
        };
        Progress {
            shown,
            started: Instant::now(),
            base_records: records,
            records,
            received: 0,
            pages,
            documents: ByPath::default(),
            requests: 0,
            requests_base: requests,
            quota_per_s: quota.map(|(n, window)| f64::from(n) / window.as_secs_f64()),
            done: "exported",
            tenant: None,
        }
    }

    /// The same for another tool, whose finished run is `done` (`synced`).
    pub fn for_tool(mut self, done: &'static str) -> Progress {
        self.done = done;
        self
    }

    /// The same for one tenant of several: lines begin with its name (JSON lines carry it
    /// as `tenant`), and a terminal's bar is one of `label`'s bars.
    pub fn for_tenant(mut self, label: Option<&Label>) -> Progress {
        let Some(label) = label else {
            return self;
        };
        if let Shown::Bar(bar) = self.shown {
            self.shown = Shown::Bar(label.bars.add(bar));
        }
        self.tenant = Some(label.tenant.clone());
        self
    }

    /// A page of `records` has arrived; `requests` the client's count of requests sent.
    pub fn received(&mut self, records: u64, requests: u64) {
        self.received += records;
        self.requests(requests);
        self.show();
    }

    /// A document is written, by `way`.
    pub fn document(&mut self, way: Way, requests: u64) {
        self.documents.add(way);
        self.requests(requests);
        self.show();
    }

    /// A page of `records` is durable (its documents, its records, the checkpoint).
    pub fn page(&mut self, records: u64) {
        self.records += records;
        self.pages += 1;
        self.show();
    }

    fn requests(&mut self, sent: u64) {
        self.requests = sent.saturating_sub(self.requests_base);
    }

    /// Per second since this run started.
    fn per_s(&self, count: u64) -> f64 {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        count as f64 / secs
    }

    fn show(&mut self) {
        let message = match &self.shown {
            Shown::Bar(_) => Some(self.message()),
            _ => None,
        };
        match &mut self.shown {
            Shown::Bar(bar) => bar.set_message(message.unwrap_or_default()),
            Shown::Lines { every, last } => {
                if last.elapsed() >= *every {
                    *last = Instant::now();
                    self.line("progress");
                }
            }
            Shown::Nothing => {}
        }
    }

    /// The terminal line: records, documents by way, and the paces.
    fn message(&self) -> String {
        let d = &self.documents;
        let quota = self
            .quota_per_s
            .map(|q| format!(", paced to {q:.0}/s"))
            .unwrap_or_default();
        let tenant = (self.tenant.as_ref())
            .map(|t| format!("{t}: "))
            .unwrap_or_default();
        format!(
            "{tenant}{} records received, {} written, {} pages | {} documents (link {}, API {}, \
             fallback {}), {:.1}/s | API {:.1} requests/s{quota}",
            self.received,
            self.records,
            self.pages,
            d.total(),
            d.link,
            d.api,
            d.fallback,
            self.per_s(d.total()),
            self.per_s(self.requests),
        )
    }

    fn line(&self, event: &str) {
        let tenth = |x: f64| (x * 10.0).round() / 10.0;
        let mut line = serde_json::json!({
            "event": event,
            "records": self.records,
            "records_received": self.received,
            "pages": self.pages,
            "documents": self.documents.total(),
            "documents_by": self.documents,
            "api_requests": self.requests,
            "elapsed_s": tenth(self.started.elapsed().as_secs_f64()),
            "records_per_s": tenth(self.per_s(self.records - self.base_records)),
            "documents_per_s": tenth(self.per_s(self.documents.total())),
            "api_requests_per_s": tenth(self.per_s(self.requests)),
        });
        if let Some(tenant) = &self.tenant {
            line["tenant"] = tenant.clone().into();
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
    }

    /// At the end of a run, whole or not.
    pub fn finish(&self, done: bool) {
        match &self.shown {
            Shown::Bar(bar) => {
                bar.finish_and_clear();
                let what = if done { self.done } else { "stopped after" };
                let mut err = std::io::stderr().lock();
                let _ = writeln!(
                    err,
                    "{what}: {}; {:.1} s",
                    self.message(),
                    self.started.elapsed().as_secs_f64()
                );
            }
            Shown::Lines { .. } => self.line(if done { "done" } else { "stopped" }),
            Shown::Nothing => {}
        }
    }
}
