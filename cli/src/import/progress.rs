//! What an import shows while it runs: rows done of the file's rows, the rate, and the
//! time left at the client's pace, as a bar on a terminal or a JSON line every few
//! seconds otherwise; nothing with `--quiet`.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use super::journal::State;
use crate::export::progress::Style;

pub struct Progress {
    shown: Shown,
    started: Instant,
    rows: u64,
    done: u64,
    /// Rows done by an earlier attempt of this run.
    skipped: u64,
    failed: u64,
    per_s: Option<f64>,
}

enum Shown {
    Bar(indicatif::ProgressBar),
    Lines { last: Instant },
    Nothing,
}

const EVERY: Duration = Duration::from_secs(5);

impl Progress {
    pub fn new(style: Style, rows: u64, quota: Option<(u32, Duration)>) -> Progress {
        let shown = match style {
            Style::Quiet => Shown::Nothing,
            Style::Auto if std::io::stderr().is_terminal() => {
                let bar = indicatif::ProgressBar::new(rows);
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{bar:30} {pos}/{len} rows, {per_sec}, {msg}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                Shown::Bar(bar)
            }
            Style::Auto => Shown::Lines {
                last: Instant::now(),
            },
        };
        let mut progress = Progress {
            shown,
            started: Instant::now(),
            rows,
            done: 0,
            skipped: 0,
            failed: 0,
            per_s: None,
        };
        progress.quota(quota);
        progress
    }

    /// The pace requests keep to, for the time left.
    pub fn quota(&mut self, quota: Option<(u32, Duration)>) {
        self.per_s = quota.map(|(n, window)| f64::from(n) / window.as_secs_f64());
    }

    /// Rows an earlier attempt did.
    pub fn skip(&mut self, rows: u64) {
        self.skipped += rows;
        self.done += rows;
        if let Shown::Bar(bar) = &self.shown {
            bar.set_position(self.done);
        }
    }

    pub fn row(&mut self, state: State) {
        self.done += 1;
        self.failed += u64::from(matches!(state, State::Failed | State::Unknown));
        let left = self.left();
        match &mut self.shown {
            Shown::Bar(bar) => {
                bar.set_position(self.done);
                bar.set_message(left);
            }
            Shown::Lines { last } if last.elapsed() >= EVERY => {
                *last = Instant::now();
                self.line("progress");
            }
            _ => {}
        }
    }

    /// `N failed, about M s left at 10/s`.
    fn left(&self) -> String {
        let left = self.rows.saturating_sub(self.done);
        let time = match self.per_s {
            Some(per_s) if per_s > 0.0 => {
                format!(", about {:.0} s left at {per_s:.0}/s", left as f64 / per_s)
            }
            _ => String::new(),
        };
        format!("{} failed{time}", self.failed)
    }

    fn line(&self, event: &str) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let line = serde_json::json!({
            "event": event,
            "rows": self.rows,
            "rows_done": self.done,
            "rows_failed": self.failed,
            "elapsed_s": (elapsed * 10.0).round() / 10.0,
            "rows_per_s": ((self.done - self.skipped) as f64 / elapsed.max(1e-3) * 10.0).round() / 10.0,
        });
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }

    pub fn finish(&self) {
        match &self.shown {
            Shown::Bar(bar) => bar.finish_and_clear(),
            Shown::Lines { .. } => self.line("done"),
            Shown::Nothing => {}
        }
    }
}
