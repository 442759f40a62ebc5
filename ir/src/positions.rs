//! Where a spec file declares each element, for tools that name the line a maintainer
//! would change (the sandbox's drift watch). Positions are debugging aids: no backend
//! reads them, and a release's change report ignores them.

use std::collections::BTreeMap;

use super::Interface;

/// An element of a spec file that a position can be asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element<'a> {
    /// A declared type.
    Type(&'a str),
    /// A field of an object (or of a union's common fields, or a one-of variant's).
    Field(&'a str, &'a str),
    /// A value of an enum, or a member (tag value) of a union.
    Member(&'a str, &'a str),
    Operation(&'a str),
}

/// The key of `element` in [`Interface::positions`]: `Unit`, `Unit.vin`,
/// `UnitStatus:active`, `operation get_unit`.
pub fn position_key(element: &Element) -> String {
    match element {
        Element::Type(t) => (*t).to_string(),
        Element::Field(t, f) => format!("{t}.{f}"),
        Element::Member(t, m) => format!("{t}:{m}"),
        Element::Operation(o) => format!("operation {o}"),
    }
}

impl Interface {
    /// `file:line:column` of `element` in the interface's spec file, or of the nearest
    /// element that holds it (a field's type, when the field was not found).
    pub fn position(&self, element: &Element) -> Option<String> {
        let found = self
            .positions
            .get(&position_key(element))
            .or_else(|| match element {
                Element::Field(t, _) | Element::Member(t, _) => {
                    self.positions.get(&position_key(&Element::Type(t)))
                }
                _ => None,
            })?;
        Some(format!("{}:{}:{}", self.source_file, found[0], found[1]))
    }
}

/// The table an interface carries (line and column, 1-based, by [`position_key`]).
pub type Positions = BTreeMap<String, [u32; 2]>;
