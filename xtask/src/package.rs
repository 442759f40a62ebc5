//! `cargo xtask package`: the Rust crates as a registry would get them. `cargo package`
//! packs the runtime and the client together (the client's path dependency on the runtime
//! resolved to its version), then each `.crate` is unpacked outside the workspace and
//! built from there, as a user's build would: its doctests run and its documentation builds
//! with the features docs.rs will use, without a warning. The registry metadata of both is
//! checked first.

use std::path::Path;
use std::process::Command;

use super::tools;

/// The crates published, the runtime first: the client depends on it.
pub const CRATES: [&str; 2] = ["inspection-runtime", "inspection-client"];

/// Packages the crates into `target/package/` and checks each `.crate`.
pub fn run(root: &Path, cargo: &str) -> Result<(), String> {
    let target = tools::target_dir(root, cargo)?;
    let mut args = vec!["package", "--no-verify", "--allow-dirty", "--quiet"];
    for name in CRATES {
        args.extend(["-p", name]);
    }
    tools::step(root, "package: cargo package", cargo, &args)?;
    // Outside the workspace: inside it, cargo takes an unpacked crate for a member that
    // is not listed. One folder per checkout, so checkouts sharing a machine do not meet,
    // and the same one each run: a crate's build is keyed by its path, so a new folder
    // each run (as before) rebuilt both crates even when neither had changed.
    let work = std::env::temp_dir().join(format!("inspection-package-{}", checkout_key(root)));
    check_packages(root, cargo, &target, &work)?;
    println!(
        "package: {} checked in {}",
        CRATES.join(", "),
        target.join("package").display()
    );
    Ok(())
}

/// A name for the checkout at `root`, the same on every run.
fn checkout_key(root: &Path) -> String {
    use std::hash::{Hash, Hasher};
    // DefaultHasher::new() has fixed keys: the same path gives the same name each run.
    let mut hasher = std::hash::DefaultHasher::new();
    root.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

fn check_packages(root: &Path, cargo: &str, target: &Path, work: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work.join(".cargo"))
        .map_err(|e| format!("package: cannot make {}: {e}", work.display()))?;
    let versions = versions(root, cargo)?;
    let mut unpacked = Vec::new();
    for (name, version) in CRATES.iter().zip(&versions) {
        let file = target
            .join("package")
            .join(format!("{name}-{version}.crate"));
        tools::step(
            root,
            &format!("package: unpack {name}"),
            "tar",
            &[
                "-xzf",
                &file.to_string_lossy(),
                "-C",
                &work.to_string_lossy(),
            ],
        )?;
        unpacked.push(work.join(format!("{name}-{version}")));
    }
    // The runtime is not on crates.io yet: the client's dependency on it is patched to the
    // unpacked runtime, as a registry would serve it. The workspace's profiles are kept,
    // so the dependencies the workspace built are used again.
    std::fs::write(
        work.join(".cargo/config.toml"),
        build_config(root, &unpacked[0])?,
    )
    .map_err(|e| format!("package: cannot write the build settings: {e}"))?;
    for (name, dir) in CRATES.iter().zip(&unpacked) {
        let package = packages(dir, cargo)?
            .into_iter()
            .find(|p| p["name"] == *name)
            .ok_or_else(|| format!("package: {} holds no {name}", dir.display()))?;
        let features = registry_metadata(&package)?;
        let target = target.to_string_lossy();
        let in_dir = |label: &str, args: &[&str], env: &[(&str, &str)]| {
            tools::step_with_env(dir, &format!("package: {name}: {label}"), cargo, args, env)
        };
        in_dir("doctests", &["test", "--doc", "--target-dir", &target], &[])?;
        in_dir(
            &format!("docs as docs.rs builds them (features {features:?})"),
            &[
                "doc",
                "--no-deps",
                "--features",
                &features.join(","),
                "--target-dir",
                &target,
            ],
            &[("RUSTDOCFLAGS", "-D warnings")],
        )?;
    }
    Ok(())
}

/// The versions of [`CRATES`], from `cargo metadata`.
fn versions(root: &Path, cargo: &str) -> Result<Vec<String>, String> {
    let packages = packages(root, cargo)?;
    CRATES
        .iter()
        .map(|name| {
            packages
                .iter()
                .find(|p| p["name"] == *name)
                .and_then(|p| p["version"].as_str())
                .map(str::to_string)
                .ok_or_else(|| format!("package: the workspace has no crate {name}"))
        })
        .collect()
}

/// The packages `cargo metadata --no-deps` shows in `dir`, as JSON.
fn packages(dir: &Path, cargo: &str) -> Result<Vec<serde_json::Value>, String> {
    let out = Command::new(cargo)
        .current_dir(dir)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata: not JSON: {e}"))?;
    Ok(meta["packages"].as_array().cloned().unwrap_or_default())
}

/// `.cargo/config.toml` for the unpacked crates: the runtime patched in, and the
/// workspace's profiles.
fn build_config(root: &Path, runtime: &Path) -> Result<String, String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    let profiles = manifest
        .find("\n[profile")
        .map(|at| &manifest[at..])
        .unwrap_or_default();
    let path = runtime.to_string_lossy().replace('\\', "/");
    Ok(format!(
        "[patch.crates-io]\ninspection-runtime = {{ path = \"{path}\" }}\n{profiles}"
    ))
}

/// What crates.io and docs.rs read from a packaged crate (its package as `cargo metadata`
/// shows it), checked: a description, a license, a readme that is in the package,
/// keywords, categories, where the documentation or the source is, and the features
/// docs.rs builds with (returned).
pub fn registry_metadata(package: &serde_json::Value) -> Result<Vec<String>, String> {
    let name = package["name"].as_str().unwrap_or("a crate");
    let given = |key: &str| match &package[key] {
        serde_json::Value::String(s) => !s.is_empty(),
        serde_json::Value::Array(items) => !items.is_empty(),
        _ => false,
    };
    let mut missing: Vec<&str> = ["description", "license", "readme", "keywords", "categories"]
        .into_iter()
        .filter(|key| !given(key))
        .collect();
    if !["documentation", "homepage", "repository"]
        .iter()
        .any(|key| given(key))
    {
        missing.push("documentation, homepage or repository");
    }
    // `readme` is relative to the manifest, which `manifest_path` names.
    let manifest = Path::new(package["manifest_path"].as_str().unwrap_or_default());
    if let (Some(readme), Some(dir)) = (package["readme"].as_str(), manifest.parent())
        && !dir.join(readme).is_file()
    {
        missing.push("the readme's file");
    }
    let features: Option<Vec<String>> = package["metadata"]["docs"]["rs"]["features"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        });
    if features.is_none() {
        missing.push("[package.metadata.docs.rs] features");
    }
    match missing.is_empty() {
        true => Ok(features.unwrap_or_default()),
        false => Err(format!(
            "package: the packaged manifest of {name} lacks what a registry or docs.rs reads: {}",
            missing.join("; ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A package as `cargo metadata` shows it, its manifest in `dir`.
    fn package(dir: &Path) -> serde_json::Value {
        serde_json::json!({
            "name": "demo",
            "description": "A demo.",
            "license": "MIT OR Apache-2.0",
            "readme": "README.md",
            "documentation": "https://docs.rs/demo",
            "keywords": ["a", "b"],
            "categories": ["api-bindings"],
            "manifest_path": dir.join("Cargo.toml"),
            "metadata": { "docs": { "rs": { "features": ["secrecy", "x"] } } },
        })
    }

    fn folder(name: &str, readme: bool) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        if readme {
            std::fs::write(dir.join("README.md"), "# demo\n").unwrap();
        }
        dir
    }

    #[test]
    fn complete_metadata_gives_the_docs_rs_features() {
        let dir = folder("complete", true);
        assert_eq!(registry_metadata(&package(&dir)).unwrap(), ["secrecy", "x"]);
    }

    #[test]
    fn each_missing_field_is_named() {
        let dir = folder("lacking", true);
        let mut lacking = package(&dir);
        lacking["keywords"] = serde_json::json!([]);
        lacking["categories"] = serde_json::Value::Null;
        lacking["documentation"] = serde_json::Value::Null;
        lacking["metadata"] = serde_json::Value::Null;
        let err = registry_metadata(&lacking).unwrap_err();
        assert!(err.ends_with(": keywords; categories; documentation, homepage or repository; [package.metadata.docs.rs] features"), "{err}");
        lacking["repository"] = serde_json::json!("https://example.test/demo");
        let err = registry_metadata(&lacking).unwrap_err();
        assert!(!err.contains("repository"), "{err}");
    }

    #[test]
    fn a_readme_left_out_of_the_package_is_named() {
        let dir = folder("no-readme", false);
        let err = registry_metadata(&package(&dir)).unwrap_err();
        assert!(err.ends_with(": the readme's file"), "{err}");
    }

    /// The config the unpacked crates build with patches the runtime in and keeps the
    /// workspace's profiles (so the workspace's built dependencies are used again).
    #[test]
    fn the_build_config_patches_the_runtime_and_keeps_the_profiles() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let config = build_config(root, Path::new("/x/inspection-runtime-0.1.0")).unwrap();
        assert!(config.starts_with(
            "[patch.crates-io]\ninspection-runtime = { path = \"/x/inspection-runtime-0.1.0\" }\n"
        ));
        assert!(config.contains("\n[profile.dev]\n"), "{config}");
        assert!(!config.contains("[workspace"), "{config}");
    }
}
