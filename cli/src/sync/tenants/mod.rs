//! `inspection sync --tenants FILE`: several companies in one process, each with its own
//! credentials (a profile), database and schema, all under the one quota the service
//! keeps per client address: every tenant's client takes the same pacer (one per base
//! URL), so they take turns and a 429 one meets holds back all. Each tenant's pages and
//! state commit in its own database exactly as a single sync's do; a tenant that fails is
//! reported and the others go on.

pub mod file;
mod report;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use clap::ArgMatches;
use tracing::Instrument;

use super::Summary;
use crate::exit::Failure;
use crate::export::progress::{Label, Style};
use file::Tenant;

/// How to run the tenants file.
#[derive(Clone, Debug)]
pub struct Options {
    pub file: PathBuf,
    /// `--format json`: the summaries as one JSON document, else a text line each.
    pub json: bool,
    pub progress: Style,
    /// `--db-timeout`, for every tenant.
    pub db_timeout: Duration,
    pub tool_version: &'static str,
}

/// One tenant's sync under way.
pub type Running = Pin<Box<dyn Future<Output = Result<Summary, Failure>>>>;

/// Starts one tenant's sync with these options (the tool's entry knows the interfaces and
/// makes the tenant's client from its profile, on the run's shared pacers); a tenant it
/// cannot start (no such interface) refuses the whole file before any starts.
pub type Start<'a> = dyn Fn(&Tenant, super::Options) -> Result<Running, Failure> + 'a;

/// Runs every tenant of the file at once, then prints a summary per tenant: `Ok` when
/// every one succeeded, else the failure of class `Tenants`.
pub async fn run(options: &Options, start: &Start<'_>) -> Result<(), Failure> {
    let tenants = file::read(&options.file).map_err(Failure::usage)?;
    let bars = indicatif::MultiProgress::new();
    let mut runs = Vec::new();
    for tenant in &tenants {
        let label = Label {
            tenant: tenant.name.clone(),
            bars: bars.clone(),
        };
        let span = tracing::info_span!(target: "inspection_cli", "tenant", tenant = %tenant.name);
        runs.push(start(tenant, sync_options(tenant, options, label))?.instrument(span));
    }
    let outcomes = futures_util::future::join_all(runs).await;
    report::print(&tenants, outcomes, options.json)
}

/// A single sync's options, from the tenant's table and the run's flags.
fn sync_options(tenant: &Tenant, options: &Options, label: Label) -> super::Options {
    super::Options {
        target: tenant.target.clone(),
        schema: tenant.schema.clone(),
        only: tenant.only.clone(),
        lookback: tenant.lookback.unwrap_or(super::LOOKBACK),
        reconcile: false,
        rebuild: false,
        db_timeout: options.db_timeout,
        page_size: tenant.page_size,
        progress: options.progress,
        max_restarts: 5,
        documents: tenant.documents.clone(),
        links: Default::default(),
        tool_version: options.tool_version,
        label: Some(label),
    }
}

/// The options of `sync --tenants FILE`, when it is given.
pub fn options(
    m: &ArgMatches,
    quiet: bool,
    tool_version: &'static str,
) -> Result<Option<Options>, Failure> {
    let Some(file) = m.get_one::<std::path::PathBuf>("tenants") else {
        return Ok(None);
    };
    Ok(Some(Options {
        file: file.clone(),
        json: m.get_one::<String>("format").is_some_and(|f| f == "json"),
        progress: if quiet { Style::Quiet } else { Style::Auto },
        db_timeout: super::command::db_timeout(m)?,
        tool_version,
    }))
}
