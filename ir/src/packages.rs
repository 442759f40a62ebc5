//! The names every generated package is published and imported under, stated once in
//! `spec/packages.yaml` for every backend (a backend never spells its package's name).

use serde::{Deserialize, Serialize};

/// Each language's package names. The defaults are the project's own names, which a spec
/// folder without `packages.yaml` (the construct specs of the tests) gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
// An IR written before a setting existed reads the project's own name for it.
#[serde(default)]
pub struct Packages {
    /// The Rust crate (`inspection-client`); code names it with `-` as `_`.
    pub rust_crate: String,
    /// The npm package.
    pub typescript_package: String,
    /// The Python distribution (what `pip install` takes).
    pub python_distribution: String,
    /// The Python import name.
    pub python_module: String,
    /// The Maven group id.
    pub java_group: String,
    /// The Maven artifact id.
    pub java_artifact: String,
    /// The Java package the interfaces' packages and the runtime's live under.
    pub java_package: String,
    /// The Go module path (`inspection.dev/client`); a major version of 2 or more ends it
    /// in `/vN`, as Go modules require.
    pub go_module: String,
}

impl Default for Packages {
    fn default() -> Self {
        Packages {
            rust_crate: "inspection-client".to_string(),
            typescript_package: "inspection-client".to_string(),
            python_distribution: "inspection-client".to_string(),
            python_module: "inspection_client".to_string(),
            java_group: "dev.inspection".to_string(),
            java_artifact: "inspection-client".to_string(),
            java_package: "dev.inspection.client".to_string(),
            go_module: "inspection.dev/client".to_string(),
        }
    }
}

impl Packages {
    /// The crate as Rust code names it (`inspection_client`).
    pub fn rust_path(&self) -> String {
        self.rust_crate.replace('-', "_")
    }

    /// The Java package as a folder (`dev/inspection/client`).
    pub fn java_dir(&self) -> String {
        self.java_package.replace('.', "/")
    }
}
