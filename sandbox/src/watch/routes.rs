//! Which operation of the spec a request is: its interface by the path prefix of the
//! interface's base URL (`/v3`; none for the legacy `/api` paths), then the operation whose
//! method and path segments match.

use crate::ir::{Interface, Ir, Operation, Segment};

/// The operation a request names, with its interface.
pub struct Matched<'a> {
    pub interface: &'a Interface,
    pub operation: &'a Operation,
}

/// The path prefix of an interface's base URL (`https://{host}/v3` gives `/v3`).
pub fn prefix(interface: &Interface) -> &str {
    let example = interface.base_url.example.as_str();
    let after_scheme = example.split_once("://").map_or(example, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("", |slash| after_scheme[slash..].trim_end_matches('/'))
}

/// The interface a path belongs to (the longest prefix wins), with the path after it.
pub fn interface<'a, 'p>(ir: &'a Ir, path: &'p str) -> Option<(&'a Interface, &'p str)> {
    ir.interfaces
        .iter()
        .filter_map(|i| {
            let rest = path.strip_prefix(prefix(i))?;
            (rest.is_empty() || rest.starts_with('/')).then_some((i, rest))
        })
        .max_by_key(|(i, _)| prefix(i).len())
}

/// The operation `method` and `path` (percent-encoded, without the query) call.
pub fn operation<'a>(ir: &'a Ir, method: &str, path: &str) -> Option<Matched<'a>> {
    let (interface, rest) = interface(ir, path)?;
    let given: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    // A literal segment beats a parameter (`/units/by_reference_number/{r}` over
    // `/units/{unit_id}/...`): the match with the most literal segments wins.
    let operation = interface
        .operations
        .iter()
        .filter(|op| op.method.as_str() == method)
        .filter(|op| segments_match(&op.call.segments, &given))
        .max_by_key(|op| literal_count(&op.call.segments))?;
    Some(Matched {
        interface,
        operation,
    })
}

fn segments_match(segments: &[Segment], given: &[&str]) -> bool {
    segments.len() == given.len()
        && segments.iter().zip(given).all(|(s, g)| match s {
            Segment::Text { text } => text == g,
            Segment::Param { .. } => !g.is_empty(),
        })
}

fn literal_count(segments: &[Segment]) -> usize {
    segments
        .iter()
        .filter(|s| matches!(s, Segment::Text { .. }))
        .count()
}
