//! The serde model of `spec/packages.yaml`: the names each language's package is published
//! and imported under, stated once for every backend.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_saphyr::Spanned;

/// The package names of every generated client.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackagesFile {
    pub rust: RustPackage,
    pub typescript: TypeScriptPackage,
    pub python: PythonPackage,
    pub java: JavaPackage,
    pub go: GoPackage,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RustPackage {
    /// The crate's name on crates.io (`inspection-client`); code names it with `_`.
    #[schemars(with = "String")]
    #[serde(rename = "crate")]
    pub krate: Spanned<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeScriptPackage {
    /// The npm package's name (`inspection-client`, or `@scope/name`).
    #[schemars(with = "String")]
    pub package: Spanned<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PythonPackage {
    /// The distribution's name, what `pip install` takes.
    #[schemars(with = "String")]
    pub distribution: Spanned<String>,
    /// The import name (`inspection_client`).
    #[schemars(with = "String")]
    pub module: Spanned<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JavaPackage {
    /// The Maven group id (`dev.inspection`).
    #[schemars(with = "String")]
    pub group: Spanned<String>,
    /// The Maven artifact id (`inspection-client`).
    #[schemars(with = "String")]
    pub artifact: Spanned<String>,
    /// The Java package the interfaces' packages (`….v3`) and the runtime's sit under.
    #[schemars(with = "String")]
    pub package: Spanned<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoPackage {
    /// The Go module path (`inspection.dev/client`); from major version 2 on it ends in
    /// `/vN`, N the major version of `VERSION`.
    #[schemars(with = "String")]
    pub module: Spanned<String>,
}
