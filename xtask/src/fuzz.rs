//! `cargo xtask fuzz [--cases N] [--seed S] [--compile K]`: the long fuzz run. The
//! mutation fuzzer of `tests/fuzz.rs` (release build) over N cases, writing K accepted
//! specs spread over the run, each then generated and compiled in every language
//! (`check-output`): nothing may panic or hang, and no accepted spec may give code that
//! does not compile.

use std::path::Path;
use std::process::Command;

pub fn run(root: &Path, cargo: &str, args: &[&str]) -> Result<(), String> {
    let mut cases = "1000000".to_string();
    let mut seed = "7".to_string();
    let mut compile = "10".to_string();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("fuzz: `{flag}` needs a value"))?;
        if value.parse::<u64>().is_err() {
            return Err(format!(
                "fuzz: `{flag} {value}`: a whole number is expected"
            ));
        }
        match *flag {
            "--cases" => cases = value.to_string(),
            "--seed" => seed = value.to_string(),
            "--compile" => compile = value.to_string(),
            other => return Err(format!("fuzz: unknown flag `{other}`")),
        }
    }
    let samples = root.join("target/fuzz-sample");
    let _ = std::fs::remove_dir_all(&samples);
    println!("==> fuzz: {cases} cases, seed {seed}, {compile} accepted specs compiled");
    let status = Command::new(cargo)
        .args([
            "test",
            "--release",
            "-p",
            "tests",
            "--test",
            "fuzz",
            "--",
            "--nocapture",
        ])
        .env("FUZZ_ITERATIONS", &cases)
        .env("FUZZ_SEED", &seed)
        .env("FUZZ_SAMPLE_DIR", &samples)
        .env("FUZZ_SAMPLE", &compile)
        .current_dir(root)
        .status()
        .map_err(|e| format!("fuzz: cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("fuzz: the fuzz run failed ({status})"));
    }
    let mut cases: Vec<_> = std::fs::read_dir(&samples)
        .map_err(|e| format!("fuzz: no sample in {}: {e}", samples.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "out"))
        .collect();
    cases.sort();
    let out = samples.join("out");
    let generator = super::generator::Generator::cargo(cargo, Some(root));
    for case in &cases {
        println!("==> fuzz: compiling the output of {}", case.display());
        super::output_check::run(root, cargo, &generator, case, &out)
            .map_err(|e| format!("fuzz: {}: {e}", case.display()))?;
    }
    println!(
        "fuzz: {} accepted specs compiled in every language",
        cases.len()
    );
    Ok(())
}
