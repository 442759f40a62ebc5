//! What an export shows while it runs: a progress bar on a terminal, a JSON line every
//! few seconds when stderr is a file or a pipe, nothing with `--quiet`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A bar on a terminal, JSON lines otherwise.
    Auto,
    Quiet,
}

/// Counts of a run, and where they are shown.
pub struct Progress {
    shown: Shown,
    started: Instant,
    /// Counts at the start of this run (a resumed export goes on from them).
    base_records: u64,
    pub records: u64,
    pub pages: u64,
    pub documents: u64,
    /// The quota the client keeps to, for the bar's "at the quota" rate.
    quota_per_s: Option<f64>,
}

enum Shown {
    Bar(indicatif::ProgressBar),
    Lines { every: Duration, last: Instant },
    Nothing,
}

impl Progress {
    pub fn new(style: Style, records: u64, pages: u64, quota: Option<(u32, Duration)>) -> Progress {
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
            pages,
            documents: 0,
            quota_per_s: quota.map(|(n, window)| f64::from(n) / window.as_secs_f64()),
        }
    }

    /// Records per second in this run.
    fn rate(&self) -> f64 {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        (self.records - self.base_records) as f64 / secs
    }

    /// After each durable page.
    pub fn page(&mut self, records: u64, documents: u64) {
        self.records += records;
        self.pages += 1;
        self.documents += documents;
        let rate = self.rate();
        match &mut self.shown {
            Shown::Bar(bar) => {
                let quota = self
                    .quota_per_s
                    .map(|q| format!(" (client paced to {q:.0} requests/s)"))
                    .unwrap_or_default();
                bar.set_message(format!(
                    "{} records, {} pages, {} documents, {rate:.1} records/s{quota}",
                    self.records, self.pages, self.documents,
                ));
            }
            Shown::Lines { every, last } => {
                if last.elapsed() >= *every {
                    *last = Instant::now();
                    self.line("progress");
                }
            }
            Shown::Nothing => {}
        }
    }

    fn line(&self, event: &str) {
        let line = serde_json::json!({
            "event": event,
            "records": self.records,
            "pages": self.pages,
            "documents": self.documents,
            "elapsed_s": (self.started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            "records_per_s": (self.rate() * 10.0).round() / 10.0,
        });
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
    }

    /// At the end of a run, whole or not.
    pub fn finish(&self, done: bool) {
        match &self.shown {
            Shown::Bar(bar) => {
                bar.finish_and_clear();
                let what = if done { "exported" } else { "stopped after" };
                let mut err = std::io::stderr().lock();
                let _ = writeln!(
                    err,
                    "{what} {} records, {} pages, {} documents in {:.1} s",
                    self.records,
                    self.pages,
                    self.documents,
                    self.started.elapsed().as_secs_f64()
                );
            }
            Shown::Lines { .. } => self.line(if done { "done" } else { "stopped" }),
            Shown::Nothing => {}
        }
    }
}
