//! The generator's command (`codegen`, a binary of the codegen crate), which `cargo xtask
//! codegen`, `changelog`, `check-output` and the benchmarks run as a process. xtask itself
//! depends on no crate of the generator: built for xtask alone, the generator and its
//! dependencies got a feature set of their own, built a second time beside the workspace's
//! (the first three minutes of a cold CI run).

use std::path::{Path, PathBuf};
use std::process::Command;

pub enum Generator {
    /// The binary a build has just made (CI: the one the test build made).
    Built(PathBuf),
    /// Built if needed and run by cargo from the workspace of `manifest`.
    Cargo { cargo: String, manifest: PathBuf },
}

impl Generator {
    /// Through cargo, from the workspace of the checkout at `root`; outside a checkout
    /// (`--spec` and `--out` work anywhere), from the one this xtask was built in.
    pub fn cargo(cargo: &str, root: Option<&Path>) -> Generator {
        let manifest = match root {
            Some(root) => root.join("Cargo.toml"),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml"),
        };
        Generator::Cargo {
            cargo: cargo.to_string(),
            manifest,
        }
    }

    /// The generator a dev-profile build made under `target` (the test build's in CI).
    pub fn built(target: &Path) -> Generator {
        Generator::Built(built_path(target))
    }

    /// Runs it in `dir` (where it looks for the checkout) with `args`; its output and
    /// messages go where this process's go.
    pub fn run(&self, dir: &Path, args: &[&str]) -> Result<(), String> {
        let mut command = match self {
            Generator::Built(exe) => Command::new(exe),
            Generator::Cargo { cargo, manifest } => {
                let mut command = Command::new(cargo);
                command.args(["run", "--quiet", "--manifest-path"]);
                command.arg(manifest);
                command.args(["-p", "codegen", "--bin", "codegen", "--"]);
                command
            }
        };
        let status = command
            .args(args)
            .current_dir(dir)
            .status()
            .map_err(|e| format!("cannot run the generator ({}): {e}", self.name()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("the generator failed: codegen {}", args.join(" ")))
        }
    }

    fn name(&self) -> String {
        match self {
            Generator::Built(exe) => exe.display().to_string(),
            Generator::Cargo { cargo, .. } => format!("{cargo} run -p codegen"),
        }
    }
}

/// Where a dev-profile build under `target` puts the generator's binary.
pub fn built_path(target: &Path) -> PathBuf {
    let exe = format!("codegen{}", std::env::consts::EXE_SUFFIX);
    target.join("debug").join(exe)
}
