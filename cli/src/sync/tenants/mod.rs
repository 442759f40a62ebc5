//! `inspection sync --tenants FILE`: several companies in one process, each with its own
//! credentials (a profile), database and schema, all under the one quota the service
//! keeps per client address: every tenant's client takes the same pacer (one per base
//! URL), so they take turns and a 429 one meets holds back all. Each tenant's pages and
//! state commit in its own database exactly as a single sync's do; a tenant that fails is
//! reported and the others go on.

pub mod file;
mod report;

use std::path::PathBuf;
use std::time::Duration;

use tracing::Instrument;

use crate::app::{Context, Interface};
use crate::credentials::Vars;
use crate::exit::Failure;
use crate::export::progress::{Label, Style};
use file::Tenant;

pub use report::Format;

/// How to run the tenants file.
#[derive(Clone, Debug)]
pub struct Options {
    pub file: PathBuf,
    pub format: Format,
    pub progress: Style,
    /// `--db-timeout`, for every tenant.
    pub db_timeout: Duration,
    pub tool_version: &'static str,
}

/// Runs every tenant of the file at once, then prints a summary per tenant: `Ok` when
/// every one succeeded, else the failure of class `Tenants`.
pub async fn run(
    interfaces: &'static [Interface],
    cx: &Context,
    options: &Options,
) -> Result<(), Failure> {
    let tenants = file::read(&options.file).map_err(Failure::usage)?;
    let mut runs = Vec::new();
    let bars = indicatif::MultiProgress::new();
    for tenant in &tenants {
        let sync = interfaces
            .iter()
            .find(|i| i.name == tenant.interface)
            .and_then(|i| i.sync.as_ref())
            .ok_or_else(|| Failure::usage(no_sync(interfaces, tenant)))?;
        let label = Label {
            tenant: tenant.name.clone(),
            bars: bars.clone(),
        };
        runs.push((
            sync,
            context(cx, tenant),
            sync_options(tenant, options, label),
        ));
    }
    let outcomes = futures_util::future::join_all(runs.iter().zip(&tenants).map(
        |((sync, cx, sync_options), tenant)| {
            let span =
                tracing::info_span!(target: "inspection_cli", "tenant", tenant = %tenant.name);
            (sync.run)(cx, sync_options).instrument(span)
        },
    ))
    .await;
    report::print(&tenants, outcomes, options.format)
}

/// The tenant's own credentials (its profile first, the environment filling gaps), and
/// the run's pace and shared pacers.
fn context(cx: &Context, tenant: &Tenant) -> Context {
    Context {
        vars: Vars::from_process(Some(&tenant.profile)),
        rate_limit: cx.rate_limit,
        timeout: cx.timeout,
        pacing: cx.pacing.clone(),
    }
}

/// A single sync's options, from the tenant's table and the run's flags.
fn sync_options(tenant: &Tenant, options: &Options, label: Label) -> crate::sync::Options {
    crate::sync::Options {
        target: tenant.target.clone(),
        schema: tenant.schema.clone(),
        only: tenant.only.clone(),
        lookback: tenant.lookback.unwrap_or(crate::sync::LOOKBACK),
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

/// The refusal of a tenant whose interface has no sync (or is no interface).
fn no_sync(interfaces: &[Interface], tenant: &Tenant) -> String {
    let synced: Vec<&str> = (interfaces.iter())
        .filter(|i| i.sync.is_some())
        .map(|i| i.name)
        .collect();
    format!(
        "{}: tenant `{}`: `{}` is no interface with a sync (those with one: {})",
        tenant.interface_at,
        tenant.name,
        tenant.interface,
        synced.join(", ")
    )
}
