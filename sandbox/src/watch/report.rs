//! What the watch found: each departure once per (operation, spec element, kind), with a
//! count, a first example, the spec position to change and the class that change has in
//! the maintainer's change table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

/// The kinds of departure, each with the class its spec edit has and what that edit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A property the spec does not list.
    UnlistedProperty,
    /// An enum value the spec does not know.
    UnknownValue,
    /// A union member (tag value) the spec does not know.
    UnknownMember,
    /// A field the spec promises (required) is absent.
    MissingField,
    /// `null` where the spec allows none.
    UnexpectedNull,
    /// A value of another JSON type (or not of its format, such as a date).
    WrongType,
    /// A status the operation (and its interface) does not list.
    UnlistedStatus,
    /// A header the clients rely on is absent (`Retry-After` on a 429).
    MissingHeader,
    /// An answer of another media type than the spec's (or JSON that does not parse).
    WrongContentType,
    /// A request no operation of the spec matches, which the service answered with success.
    UnknownRoute,
    /// A request the spec refuses, which the service accepted.
    RequestAccepted,
    /// A property of a record whose fields the spec says are not shown: no departure (the
    /// spec admits the gap), but what fills it.
    FillsGap,
}

/// The class of the spec edit, as the change report names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Breaking,
    Additive,
    Docs,
}

impl Kind {
    /// The class of the spec edit that would agree with the service.
    pub fn class(self) -> Class {
        match self {
            Kind::UnlistedProperty
            | Kind::UnknownValue
            | Kind::UnknownMember
            | Kind::UnknownRoute
            | Kind::RequestAccepted
            | Kind::FillsGap => Class::Additive,
            Kind::MissingField
            | Kind::UnexpectedNull
            | Kind::WrongType
            | Kind::MissingHeader
            | Kind::WrongContentType => Class::Breaking,
            Kind::UnlistedStatus => Class::Docs,
        }
    }

    /// The spec edit, in words (the element is named beside it).
    pub fn edit(self) -> &'static str {
        match self {
            Kind::UnlistedProperty => "add the property",
            Kind::UnknownValue => "add the value",
            Kind::UnknownMember => "add the member",
            Kind::MissingField => "make the field optional",
            Kind::UnexpectedNull => "make the field nullable",
            Kind::WrongType => "change the field's type",
            Kind::UnlistedStatus => "list the status under the operation's errors",
            Kind::MissingHeader => "stop promising the header (the clients rely on it)",
            Kind::WrongContentType => "change the answer's media type",
            Kind::UnknownRoute => "add the operation",
            Kind::RequestAccepted => "loosen the request's rule",
            Kind::FillsGap => "add the property (the spec says the record's fields are not shown)",
        }
    }
}

/// One departure as first seen.
#[derive(Debug, Clone, Serialize)]
pub struct Departure {
    pub kind: Kind,
    pub class: Class,
    pub edit: &'static str,
    pub interface: String,
    /// The operation's name, or none for a request that matched none.
    pub operation: Option<String>,
    /// The spec element: `Unit.vin`, `UnitStatus:archived`, `operation get_unit`.
    pub element: String,
    /// `spec/v3.yaml:381:9`: where that element (or the type holding it) is declared.
    pub position: Option<String>,
    /// What was seen, in words.
    pub detail: String,
    /// The first example: the request and what was found where (secrets redacted).
    pub example: Value,
    pub count: u64,
}

/// Every departure seen, in the order first seen; apart, what fills a gap the spec admits.
#[derive(Debug, Default)]
pub struct Report {
    seen: BTreeMap<(Option<String>, String, Kind), usize>,
    pub departures: Vec<Departure>,
    pub gaps: Vec<Departure>,
    /// Exchanges checked, and those passed on unchecked (and why).
    pub exchanges: u64,
    pub unchecked: BTreeMap<String, u64>,
    /// Exchanges the upstream failed (no answer, timed out, broke off), by how: passed to
    /// the caller as the failure they were, never checked.
    pub upstream_failed: BTreeMap<String, u64>,
}

impl Report {
    /// Counts `departure`; `true` when it is the first of its (operation, element, kind).
    pub fn add(&mut self, departure: Departure) -> bool {
        let key = (
            departure.operation.clone(),
            departure.element.clone(),
            departure.kind,
        );
        let list = match departure.kind {
            Kind::FillsGap => &mut self.gaps,
            _ => &mut self.departures,
        };
        if let Some(&i) = self.seen.get(&key) {
            list[i].count += 1;
            return false;
        }
        self.seen.insert(key, list.len());
        list.push(departure);
        true
    }

    /// The summary as a table a maintainer reads on exit.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "drift watch: {} exchange(s), {} departure(s), {} gap(s) filled",
            self.exchanges,
            self.departures.len(),
            self.gaps.len()
        );
        for (why, n) in &self.unchecked {
            let _ = writeln!(out, "  not checked: {n} answer(s), {why}");
        }
        for (how, n) in &self.upstream_failed {
            let _ = writeln!(out, "  upstream failed: {n} exchange(s), {how}");
        }
        for (title, list) in [
            ("departures", &self.departures),
            ("gaps filled", &self.gaps),
        ] {
            if !list.is_empty() {
                let _ = writeln!(out, "\n{title}:");
                rows(&mut out, list);
            }
        }
        out
    }

    /// The whole report as JSON (`--report FILE`, and `GET /_watch/report`).
    pub fn json(&self) -> Value {
        serde_json::json!({
            "exchanges": self.exchanges,
            "unchecked": self.unchecked,
            "upstream_failed": self.upstream_failed,
            "departures": self.departures,
            "gaps": self.gaps,
        })
    }
}

/// The table's rows: class, count, element, spec position, kind, edit.
fn rows(out: &mut String, list: &[Departure]) {
    let _ = writeln!(
        out,
        "{:<9} {:>6}  {:<34} {:<30} {:<18} edit",
        "class", "count", "element", "where", "kind"
    );
    for d in list {
        let class = serde_json::to_value(d.class).unwrap_or_default();
        let kind = serde_json::to_value(d.kind).unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<9} {:>6}  {:<34} {:<30} {:<18} {}",
            class.as_str().unwrap_or(""),
            d.count,
            d.element,
            d.position.as_deref().unwrap_or("-"),
            kind.as_str().unwrap_or(""),
            d.edit,
        );
    }
}
