//! The built wheel on every Python the package promises: for each version, a virtual
//! environment with only the wheel and the conformance runner's needs
//! (`tests/python/requirements-wheel.txt`; made anew when they change, the wheel
//! installed afresh each run), then every conformance scenario with the blocking and the
//! async client, imported from that environment (the runner refuses a package found
//! anywhere else).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::tools;

/// The Python versions the wheel is tested on; `requires-python` and the classifiers of
/// `templates/python/pyproject.toml.jinja` say the same.
pub const VERSIONS: [&str; 4] = ["3.10", "3.11", "3.12", "3.13"];

/// What the conformance runner needs beside the wheel, pinned with hashes.
const REQUIREMENTS: &str = "tests/python/requirements-wheel.txt";

/// Runs the conformance suite from the wheel on each of [`VERSIONS`], two versions at a
/// time (a run mostly waits on its sandboxes, so the two cores hold two); fails, saying how
/// to get it, when one is missing, and with the first failure otherwise.
pub fn run(root: &Path, wheel: &Path, target: &str) -> Result<(), String> {
    let pythons: Vec<(&str, PathBuf)> = VERSIONS
        .iter()
        .map(|version| find(version).map(|python| (*version, python)))
        .collect::<Result<_, _>>()?;
    let (first, second): (Vec<_>, Vec<_>) =
        pythons.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let each = |half: Vec<(usize, &(&str, PathBuf))>| {
        half.into_iter().try_for_each(|(_, (version, python))| {
            conformance(root, version, python, wheel, target)
        })
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| each(second));
        let mine = each(first);
        let other = other
            .join()
            .unwrap_or_else(|_| Err("python: a conformance run panicked".into()));
        mine.and(other)
    })
}

fn conformance(
    root: &Path,
    version: &str,
    python: &Path,
    wheel: &Path,
    target: &str,
) -> Result<(), String> {
    let venv = root.join(format!("target/python-wheel/{version}"));
    let label = |what: &str| format!("python {version}: {what}");
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let pip = tools::python_bin(root)
        .join("pip")
        .to_string_lossy()
        .into_owned();
    let target_python = bin.join("python").to_string_lossy().into_owned();
    let quiet = [
        "--python",
        target_python.as_str(),
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ];
    // The environment holds the runner's needs and the wheel only. It is made anew when
    // the pinned needs or the interpreter changed (installing them took 13 to 21 s a
    // version beside the other checks); the wheel is installed afresh every run.
    let needs = std::fs::read_to_string(root.join(REQUIREMENTS))
        .map_err(|e| format!("python {version}: cannot read {REQUIREMENTS}: {e}"))?;
    let made_for = format!("{}\n{needs}", python.display());
    tools::unless_installed(&venv.join(".runner-needs"), made_for.as_bytes(), || {
        let _ = std::fs::remove_dir_all(&venv);
        // Without a pip of its own (installing one took 9 to 25 s a version): the dev
        // environment's pip installs into it (`--python`), so it holds only what is
        // installed.
        tools::step(
            root,
            &label("fresh virtual environment"),
            &python.to_string_lossy(),
            &["-m", "venv", "--without-pip", &venv.to_string_lossy()],
        )?;
        tools::step(
            root,
            &label("the runner's needs"),
            &pip,
            &[&quiet[..], &["--require-hashes", "-r", REQUIREMENTS]].concat(),
        )
    })?;
    tools::step(
        root,
        &label("the wheel"),
        &pip,
        &[
            &quiet[..],
            &["--force-reinstall", "--no-deps", &wheel.to_string_lossy()],
        ]
        .concat(),
    )?;
    let venv_text = venv.to_string_lossy();
    tools::step_with_env(
        root,
        &label("conformance, blocking and async, from the wheel"),
        &bin.join("python").to_string_lossy(),
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/python/test_conformance.py",
        ],
        &[
            ("CARGO_TARGET_DIR", target),
            ("INSPECTION_CLIENT_INSTALLED_IN", &venv_text),
        ],
    )
}

/// The interpreter of `version` (`3.12`): `python3.12` on the PATH, else the newest
/// `3.12.*` pyenv installed (`$PYENV_ROOT`, or `~/.pyenv`), whichever answers with that
/// version (a pyenv shim of a version not selected does not).
pub fn find(version: &str) -> Result<PathBuf, String> {
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
    candidates(version, pyenv.as_deref())
        .into_iter()
        .find(|python| answers_as(python, version))
        .ok_or_else(|| missing(version, pyenv.as_deref()))
}

/// Where `version` may be: the PATH's `python3.X`, then pyenv's versions, newest first.
fn candidates(version: &str, pyenv: Option<&Path>) -> Vec<PathBuf> {
    let exe = format!("python{version}");
    let mut found = vec![PathBuf::from(&exe)];
    let Some(versions) = pyenv.map(|root| root.join("versions")) else {
        return found;
    };
    let mut installed: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(&versions)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let patch = name.strip_prefix(version)?.strip_prefix('.')?;
            let patch: u32 = patch.parse().ok()?;
            let numbers = version
                .split('.')
                .filter_map(|n| n.parse().ok())
                .chain([patch])
                .collect();
            Some((numbers, versions.join(&name).join("bin").join(&exe)))
        })
        .collect();
    installed.sort();
    found.extend(installed.into_iter().rev().map(|(_, path)| path));
    found
}

fn answers_as(python: &Path, version: &str) -> bool {
    Command::new(python)
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .is_ok_and(|out| {
            out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == version
        })
}

fn missing(version: &str, pyenv: Option<&Path>) -> String {
    let looked = match pyenv {
        Some(root) => format!(
            "neither `python{version}` on the PATH nor {}/versions/{version}.*",
            root.display()
        ),
        None => format!("no `python{version}` on the PATH"),
    };
    format!(
        "python {version}: not found ({looked}). The wheel is tested on Python {}; \
         install this one, e.g. `pyenv install {version}` \
         or your system's `python{version}` and `python{version}-venv` packages, \
         then run again",
        VERSIONS.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pyenv's folders are read newest patch first, numerically (3.12.10 before 3.12.9),
    /// after the PATH; other minor versions and stray names are left out.
    #[test]
    fn pyenv_versions_follow_the_path_newest_first() {
        let root = std::env::temp_dir().join(format!("xtask-pyenv-{}", std::process::id()));
        for name in ["3.12.9", "3.12.10", "3.1.2", "3.13.0", "3.12-dev", "3.12.1"] {
            std::fs::create_dir_all(root.join("versions").join(name)).unwrap();
        }
        let found = candidates("3.12", Some(&root));
        let bin = |v: &str| root.join("versions").join(v).join("bin/python3.12");
        assert_eq!(
            found,
            [
                PathBuf::from("python3.12"),
                bin("3.12.10"),
                bin("3.12.9"),
                bin("3.12.1")
            ]
        );
        assert_eq!(candidates("3.12", None), [PathBuf::from("python3.12")]);
    }

    /// A version nowhere to be found is an error saying how to get it.
    #[test]
    fn a_missing_version_says_how_to_get_it() {
        let message = missing("3.99", Some(Path::new("/nowhere/.pyenv")));
        assert!(
            message.starts_with(
                "python 3.99: not found (neither `python3.99` on the PATH nor /nowhere/.pyenv/versions/3.99.*)"
            ),
            "{message}"
        );
        assert!(message.contains("pyenv install 3.99"), "{message}");
        assert!(!answers_as(Path::new("/nowhere/python3.99"), "3.99"));
    }
}
