//! What `sync --tenants` prints when every tenant has ended: a summary per tenant (text
//! lines, or one JSON document with `--format json`), and the run's outcome.

use std::io::Write;

use serde::Serialize;

use super::file::Tenant;
use crate::exit::{Class, Failure};
use crate::sync::Summary;

/// One tenant's outcome, as the JSON summary gives it.
#[derive(Serialize)]
struct Report<'a> {
    tenant: &'a str,
    interface: &'a str,
    /// `synced` or `failed`.
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Refusal<'a>>,
}

/// Why a tenant failed: its class and code as a single sync would exit with.
#[derive(Serialize)]
struct Refusal<'a> {
    class: &'static str,
    exit_code: u8,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

/// Prints each tenant's summary; `Ok` when every one succeeded.
pub fn print(
    tenants: &[Tenant],
    outcomes: Vec<Result<Summary, Failure>>,
    json: bool,
) -> Result<(), Failure> {
    let reports: Vec<Report> = tenants.iter().zip(&outcomes).map(report).collect();
    for r in &reports {
        if let Some(e) = &r.error {
            // A log collector sees each failure, its tenant named (`--log-format json`).
            tracing::error!(
                target: "inspection_cli",
                {
                    inspection.event = "tenant_failed",
                    inspection.tenant = r.tenant,
                    inspection.class = e.class,
                    inspection.exit_code = e.exit_code
                },
                "{}",
                e.message
            );
        }
    }
    if json {
        let failed = reports.iter().filter(|r| r.error.is_some()).count();
        let all = serde_json::json!({
            "tenants": reports,
            "succeeded": reports.len() - failed,
            "failed": failed,
        });
        crate::output::Printer::for_stdout().print(&all)?;
    } else {
        let lines: Vec<String> = (tenants.iter().zip(&outcomes))
            .map(|(t, outcome)| line(&t.name, outcome))
            .collect();
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", lines.join("\n")).map_err(|e| {
            Failure::new(
                Class::Failure,
                format!("cannot write to standard output: {e}"),
            )
        })?;
    }
    outcome(&reports)
}

fn report<'a>((tenant, outcome): (&'a Tenant, &'a Result<Summary, Failure>)) -> Report<'a> {
    let (summary, error) = match outcome {
        Ok(summary) => (Some(summary), None),
        Err(failure) => (
            None,
            Some(Refusal {
                class: failure.class.name(),
                exit_code: failure.class.code(),
                message: &failure.message,
                hint: failure.hint.as_deref(),
            }),
        ),
    };
    Report {
        tenant: &tenant.name,
        interface: &tenant.interface,
        outcome: if error.is_some() { "failed" } else { "synced" },
        summary,
        error,
    }
}

/// One tenant's text line.
fn line(tenant: &str, outcome: &Result<Summary, Failure>) -> String {
    let s = match outcome {
        Ok(summary) => summary,
        Err(f) => {
            let (class, code) = (f.class.name(), f.class.code());
            return format!("{tenant}: failed ({class}, exit {code}): {}", f.message);
        }
    };
    let lists: Vec<String> = (s.lists.iter())
        .map(|l| format!("{} {}", l.table, l.records))
        .collect();
    let schema = s
        .schema
        .as_ref()
        .map(|name| format!(", schema {name}"))
        .unwrap_or_default();
    let documents = match s.documents.total() {
        0 => String::new(),
        n => format!(", {n} documents saved"),
    };
    format!(
        "{tenant}: synced into {}{schema} (run {}): {} records written{documents}; {} API requests, {} rate limited",
        s.database,
        s.run,
        lists.join(", "),
        s.api_requests,
        s.rate_limited
    )
}

/// Success when no tenant failed; else the `Tenants` failure naming those that did.
fn outcome(reports: &[Report]) -> Result<(), Failure> {
    let failed: Vec<&str> = (reports.iter())
        .filter(|r| r.error.is_some())
        .map(|r| r.tenant)
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(Failure::new(
        Class::Tenants,
        format!(
            "{} of {} tenants failed: {}",
            failed.len(),
            reports.len(),
            failed.join(", ")
        ),
    )
    .with_hint("each one's error is in its summary; run the same command again: every tenant goes on from the last page its database holds"))
}
