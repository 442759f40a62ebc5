//! Handing out names in one scope of generated code (a module, a class, a parameter list):
//! each distinct, none a word the language reserves. The template backends escape alike,
//! with trailing underscores.

use std::collections::BTreeSet;

/// The names in use in one scope, and what the language reserves.
#[derive(Debug, Clone)]
pub struct Scope {
    used: BTreeSet<String>,
    reserved: fn(&str) -> bool,
}

impl Scope {
    /// A scope where `taken` are already in use and `reserved` names are never handed out.
    pub fn new(taken: &[&str], reserved: fn(&str) -> bool) -> Self {
        Scope {
            used: taken.iter().map(|s| s.to_string()).collect(),
            reserved,
        }
    }

    /// Marks `name` as used, so later claims avoid it.
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    /// Whether `name` is neither used nor reserved.
    pub fn is_free(&self, name: &str) -> bool {
        !self.used.contains(name) && !(self.reserved)(name)
    }

    /// `wanted`, or with trailing underscores until it is free; then marks it used.
    pub fn claim(&mut self, wanted: &str) -> String {
        self.claim_if(wanted, self.reserved)
    }

    /// Like `claim`, for the generated code's own names, which the reserved words may
    /// exclude on purpose (Python's `_`-prefixed constants, kept from spec names).
    pub fn claim_private(&mut self, wanted: &str) -> String {
        self.claim_if(wanted, |_| false)
    }

    fn claim_if(&mut self, wanted: &str, reserved: fn(&str) -> bool) -> String {
        let mut name = wanted.to_string();
        while self.used.contains(&name) || reserved(&name) {
            name.push('_');
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_never_reserved() {
        let mut scope = Scope::new(&["taken"], |n| n == "class");
        assert_eq!(scope.claim("taken"), "taken_");
        assert_eq!(scope.claim("class"), "class_");
        assert_eq!(scope.claim("x"), "x");
        assert_eq!(scope.claim("x"), "x_");
        assert_eq!(scope.claim_private("class"), "class");
    }

    /// A spec type named like the client class of a template backend's modules gets
    /// another name there, and so does a second type of the same name.
    #[test]
    fn a_template_backends_module_keeps_its_client_name() {
        for mut scope in [
            crate::python::names::module_scope(),
            crate::typescript::names::module_scope(),
        ] {
            assert_eq!(scope.claim("Client"), "Client_");
            assert_eq!(scope.claim("Unit"), "Unit");
            assert_eq!(scope.claim("Unit"), "Unit_");
        }
    }
}
