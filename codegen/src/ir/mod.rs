//! The checked, language-neutral model every backend renders from: the `inspection-ir`
//! crate (`ir/`, the model itself, which the sandbox reads too), re-exported, and what the
//! generator does with it: [`resolve`] decides what is about the service's meaning (each
//! operation's answer plan, paging and call plan, the error message field, openness),
//! and `version` the release. The change report (`diff`, which classifies a change for
//! the users of the clients) is the IR crate's, so that the command-line tool's sync
//! classifies a database's migration by it too.

mod resolve;
pub mod version;

pub use inspection_ir::*;
pub use resolve::resolve;

#[cfg(test)]
mod tests {
    /// The small specs of `tests/specs/`: one logs in with a token, one uses a key pair.
    fn load(name: &str, text: &str) -> super::Interface {
        crate::load_str(name, text).unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn the_login_is_found_or_its_absence_named() {
        let mut links = load(
            "links.yaml",
            include_str!("../../../tests/specs/links.yaml"),
        );
        let login = links.token_login().unwrap();
        assert_eq!((login.index, login.op.name.as_str()), (0, "login"));
        // A login no backend could build (check refuses it in a spec) is an error that
        // names the operation, never a client without its login.
        links.operations[0].body = None;
        let refused = links.token_login().unwrap_err();
        assert!(refused.contains("`login` must take a body"), "{refused}");
        let keys = load(
            "constructs.yaml",
            include_str!("../../../tests/specs/constructs.yaml"),
        );
        let refused = keys.token_login().unwrap_err();
        assert!(
            refused.contains("does not log in with a token"),
            "{refused}"
        );
    }
}
