//! `cargo xtask bench [--quick]`: every benchmark behind the performance table in
//! docs/performance.md, then that table. `--quick` (CI) only checks that each one runs: debug builds, one
//! iteration, no figures.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::generator::Generator;
use super::test_run::BenchPrograms;
use super::tools;

/// One row of the table: what was measured, the figure, what it is compared with.
struct Row {
    what: String,
    figure: String,
    against: String,
}

/// `tools_ready`: `cargo xtask ci` has just installed the TypeScript and Python tools and
/// compiled the TypeScript benchmark, so that is not done again.
pub fn run(
    root: &Path,
    quick: bool,
    tools_ready: bool,
    built: Option<&BenchPrograms>,
) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = root.join("target/bench");
    std::fs::create_dir_all(&out)
        .map_err(|e| format!("bench: cannot create {}: {e}", out.display()))?;
    let profile: &[&str] = if quick { &[] } else { &["--release"] };
    let mut rows = Vec::new();

    // Rust: criterion (in test mode under --quick: each benchmark once).
    if let (true, Some(built)) = (quick, built) {
        for bench in &built.benches {
            let name = bench.file_name().unwrap_or_default().to_string_lossy();
            let program = bench.to_string_lossy();
            tools::step(
                root,
                &format!("bench: rust: {name} (one run each)"),
                &program,
                &[],
            )?;
        }
    } else if quick {
        tools::step(
            root,
            "bench: rust (one run each)",
            &cargo,
            &["test", "-p", "bench", "--benches"],
        )?;
    } else {
        tools::step(root, "bench: rust", &cargo, &["bench", "-p", "bench"])?;
        rows.extend(rust_rows(&root.join("target/criterion"))?);
        rows.push(codegen_row(root, &cargo)?);
    }

    // The page every language's parse benchmark reads.
    let page = out.join("page.json");
    let page_arg = page.to_string_lossy().into_owned();
    let programs = Programs {
        cargo: &cargo,
        profile,
        built,
    };
    programs.run(
        root,
        "bench: the page of 100 inspections",
        "page",
        &[&page_arg],
    )?;

    // The export at a raised quota, 1,000 and 10,000 records, each in its own process, by
    // the library and by the command-line tool (built first, in the same profile).
    // With PostgreSQL, for the sync's rows, as the workspace's tests build it.
    // In `cargo xtask ci` (`tools_ready`) the tests' build has just made it.
    if !tools_ready {
        let mut build = vec!["build", "--quiet", "-p", "inspection-cli"];
        build.extend(["--features", tools::TOOL_FEATURES]);
        build.extend(profile);
        tools::step(root, "bench: the command-line tool", &cargo, &build)?;
        // The sandbox binary, which the dlt row's program starts.
        let sandbox = [&["build", "--quiet", "-p", "sandbox"][..], profile].concat();
        tools::step(root, "bench: the sandbox", &cargo, &sandbox)?;
    }
    let counts: &[&str] = if quick { &["300"] } else { &["1000", "10000"] };
    let mut exports = Vec::new();
    for count in counts {
        let name = format!("bench: export of {count}");
        exports.push(last_json_line(&programs.run(
            root,
            &name,
            "export",
            &[count],
        )?)?);
    }
    if !quick {
        rows.extend(export_rows(&exports)?);
    }

    // The export's PDFs at the documented quota: through the API, then from each record's
    // pre-signed link; and from links at 10,000 records, for the memory.
    let runs: &[&[&str]] = if quick {
        &[&["30"]]
    } else {
        &[&["1000"], &["10000", "auto"]]
    };
    let mut documents = Vec::new();
    for run in runs {
        let name = format!("bench: export with PDFs, {}", run.join(" "));
        documents.push(last_json_line(&programs.run(
            root,
            &name,
            "documents",
            run,
        )?)?);
    }
    if !quick {
        rows.extend(documents_rows(&documents)?);
    }

    // The sync: at the documented quota against the export (three quota windows), and
    // unpaced into SQLite (1,000 and 10,000, for the memory) and PostgreSQL.
    let runs: &[&[&str]] = if quick {
        &[&["300", "sqlite"]]
    } else {
        &[
            &["30000", "quota"],
            &["1000", "sqlite"],
            &["10000", "sqlite"],
            &["10000", "postgres"],
        ]
    };
    let mut syncs = Vec::new();
    for run in runs {
        let name = format!("bench: sync, {}", run.join(" "));
        syncs.push(last_json_line(&programs.run(root, &name, "sync", run)?)?);
    }
    if !quick {
        rows.extend(sync_rows(&syncs)?);
    }

    // Issue 60: three tenants under one quota: the documented one over six windows, or
    // (quick) a window of a second.
    let tenants: &[&str] = if quick {
        &["300", "1"]
    } else {
        &["1000", "10"]
    };
    let tenants = last_json_line(&programs.run(
        root,
        "bench: sync --tenants, three companies under one quota",
        "tenants",
        tenants,
    )?)?;
    if !quick {
        rows.push(tenants_row(&tenants)?);
    }

    // The import: at the documented quota (three quota windows), and checking 100,000 rows.
    let runs: &[&[&str]] = if quick {
        &[&["2000", "check"]]
    } else {
        &[&["300", "quota"], &["100000", "check"]]
    };
    let mut imports = Vec::new();
    for run in runs {
        let name = format!("bench: import, {}", run.join(" "));
        imports.push(last_json_line(&programs.run(root, &name, "import", run)?)?);
    }
    if !quick {
        rows.extend(import_rows(&imports)?);
    }

    // TypeScript and Python: the same page against each language's own JSON parser.
    // In `cargo xtask ci`, `npm test` has just compiled the benchmark with the tests.
    if !tools_ready {
        tools::typescript_tools(root, Some(&cargo))?;
        tools::typescript_compile_tests(root)?;
    }
    let mut node = vec!["tests/typescript/bench/parse_speed.js", &page_arg];
    if quick {
        node.push("--quick");
    }
    let ts = last_json_line(&capture(root, "bench: typescript parse", "node", &node)?)?;
    let python = if tools_ready {
        tools::python_bin(root)
            .join("python")
            .to_string_lossy()
            .into_owned()
    } else {
        tools::python_env(root)?.python
    };
    let mut py = vec!["tests/python/bench/parse_speed.py", &page_arg];
    if quick {
        py.push("--quick");
    }
    let py = last_json_line(&capture(root, "bench: python parse", &python, &py)?)?;
    // Issue 61: the generated dlt source beside dlt's rest_api source and the sync.
    let profile_dir =
        tools::target_dir(root, &cargo)?.join(if quick { "debug" } else { "release" });
    let dlt = super::dlt_bench::args(&profile_dir, quick);
    let dlt: Vec<&str> = dlt.iter().map(String::as_str).collect();
    let dlt = last_json_line(&capture(root, "bench: dlt loads", &python, &dlt)?)?;
    let java = super::java_bench::run(root, &page_arg, &out, quick)?;
    let go = super::go_bench::run(root, &page_arg, quick)?;
    if !quick {
        rows.push(java_row(&java)?);
        rows.push(go_row(&go)?);
        // Issue 35: generated decoders, at most 1.25 times `JSON.parse`.
        rows.push(parse_row(
            "TypeScript: typed decode of the page",
            "JSON.parse",
            &ts,
            1.25,
        )?);
        // Issue 35: pure Python (httpx the only dependency), at most twice `json.loads`.
        let mut row = parse_row("Python: typed decode of the page", "json.loads", &py, 2.0)?;
        if let (Some(records), Some(construct)) =
            (py["records"].as_u64(), py["construct_ms"].as_f64())
        {
            row.against.push_str(&format!(
                "; building its {records} dataclasses alone {construct:.2} ms"
            ));
        }
        rows.push(row);
        let [what, figure, against] = super::dlt_bench::row(&dlt)?;
        rows.push(Row {
            what,
            figure,
            against,
        });
        rows.extend(build_rows(root, &cargo)?);
        print_table(&rows);
    } else {
        println!("bench --quick: every benchmark ran (no figures in quick mode)");
    }
    Ok(())
}

/// How a benchmark program is started: the executable `cargo xtask ci`'s test build made
/// (the workspace's features, nothing built again), else `cargo run` in the profile asked.
struct Programs<'a> {
    cargo: &'a str,
    profile: &'a [&'a str],
    built: Option<&'a BenchPrograms>,
}

impl Programs<'_> {
    /// Runs the program `name` with `args`, its output shown; its standard output.
    fn run(&self, root: &Path, label: &str, name: &str, args: &[&str]) -> Result<String, String> {
        if let Some(built) = self.built {
            let path = built.bins.get(name).ok_or_else(|| {
                format!("bench: the test build made no program `{name}` of the bench package")
            })?;
            return capture(root, label, &path.to_string_lossy(), args);
        }
        let mut cargo_args = vec!["run", "--quiet", "-p", "bench", "--bin", name];
        cargo_args.extend(self.profile);
        cargo_args.push("--");
        cargo_args.extend(args);
        capture(root, label, self.cargo, &cargo_args)
    }
}

/// `cargo xtask bench --builds`: only the build rows (a cold build of the generated crate
/// with its dependencies, and a one-line spec change), to compare generators quickly.
pub fn builds(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    print_table(&build_rows(root, &cargo)?);
    Ok(())
}

/// `cargo xtask bench --codegen`: only the codegen row (`codegen --check` as a process,
/// beside progenitor).
pub fn codegen(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    print_table(&[codegen_row(root, &cargo)?]);
    Ok(())
}

/// The figures criterion kept (median of each benchmark, in nanoseconds).
fn rust_rows(criterion: &Path) -> Result<Vec<Row>, String> {
    let median = |id: &str| criterion_median(&criterion.join(id));
    let mut rows = Vec::new();
    let one = median("codegen/spec/x1")?;
    for copies in [1u32, 10, 50] {
        let ns = median(&format!("codegen/spec/x{copies}"))?;
        rows.push(Row {
            what: format!("codegen, every output, spec ×{copies} (in memory)"),
            figure: format!("{:.1} ms", ns / 1e6),
            against: format!(
                "{:.2}× the ×1 time per copy{}",
                ns / f64::from(copies) / one,
                if copies == 1 { "; target < 100 ms" } else { "" }
            ),
        });
    }
    for (suffix, what) in [
        ("", "Rust: typed parse of the page (as the client decodes)"),
        (
            "_sorted_keys",
            "Rust: the same, every object's keys sorted (each union's tag after `data`)",
        ),
    ] {
        let typed = median(&format!("parse_page/typed{suffix}"))?;
        let value = median(&format!("parse_page/value{suffix}"))?;
        rows.push(Row {
            what: what.into(),
            figure: format!("{:.2} ms", typed / 1e6),
            against: format!(
                "serde_json::Value {:.2} ms: {:.2}× its speed (target ≥ 2×)",
                value / 1e6,
                value / typed
            ),
        });
    }
    for (label, n) in [("sequential", 1.0), ("concurrent8", 8.0)] {
        let client = median(&format!("requests/client_{label}"))?;
        let bare = median(&format!("requests/bare_{label}"))?;
        rows.push(Row {
            what: format!("requests through the client, {label} (GET a unit, in-process sandbox)"),
            figure: format!("{:.0} requests/s", n * 1e9 / client),
            against: format!(
                "bare reqwest {:.0} requests/s ({:+.1} µs wall per request)",
                n * 1e9 / bare,
                (client - bare) / n / 1e3
            ),
        });
    }
    let client = median("requests_cpu/client_sequential")?;
    let bare = median("requests_cpu/bare_sequential")?;
    rows.push(Row {
        what:
            "the client's own CPU per request (the calling thread's CPU, client minus bare reqwest)"
                .into(),
        figure: format!("{:.1} µs", (client - bare) / 1e3),
        against: format!(
            "{:.1} µs with the client, {:.1} µs bare (target < 20 µs)",
            client / 1e3,
            bare / 1e3
        ),
    });
    Ok(rows)
}

/// The generator's binary, built first in the dev profile (as `cargo xtask codegen`
/// builds it).
fn built_generator(root: &Path, cargo: &str) -> Result<PathBuf, String> {
    tools::step(
        root,
        "bench: the generator",
        cargo,
        &["build", "--quiet", "-p", "codegen", "--bin", "codegen"],
    )?;
    Ok(super::generator::built_path(&tools::target_dir(
        root, cargo,
    )?))
}

/// `codegen --check` as `cargo xtask codegen --check` runs it: a process of the generator
/// (built first, in the dev profile, which optimises the generator and the crates it spends
/// its time in), beside progenitor generating a client for the v3 interface alone from its
/// OpenAPI export (`bench/progenitor`, a release build in a workspace of its own): seven
/// runs of each, alternated so that other work on the machine weighs on both alike, after
/// one of each to warm the file cache.
fn codegen_row(root: &Path, cargo: &str) -> Result<Row, String> {
    let manifest = root.join("bench/progenitor/Cargo.toml");
    let target = root.join("target/progenitor");
    let (manifest, target) = (manifest.to_string_lossy(), target.to_string_lossy());
    tools::step(
        root,
        "bench: progenitor, for the side-by-side codegen row",
        cargo,
        &[
            "build",
            "--release",
            "--quiet",
            "--manifest-path",
            &manifest,
            "--target-dir",
            &target,
        ],
    )?;
    let ours = built_generator(root, cargo)?;
    let theirs = root.join("target/progenitor/release/progenitor-side");
    let spec = root.join("generated/openapi/v3.yaml");
    let out = root.join("target/bench/progenitor-v3.rs");
    let time = |program: &Path, args: &[&std::ffi::OsStr]| -> Result<f64, String> {
        let start = Instant::now();
        let status = Command::new(program)
            .args(args)
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("bench: cannot run {}: {e}", program.display()))?;
        let elapsed = start.elapsed().as_secs_f64();
        match status.success() {
            true => Ok(elapsed),
            false => Err(format!("bench: {} failed ({status})", program.display())),
        }
    };
    let check = ["--check".as_ref()];
    let generate = [spec.as_os_str(), out.as_os_str()];
    let (mut ours_times, mut theirs_times) = (Vec::new(), Vec::new());
    for round in 0..8 {
        let (a, b) = (time(&ours, &check)?, time(&theirs, &generate)?);
        if round > 0 {
            ours_times.push(a);
            theirs_times.push(b);
        }
    }
    let (ours_ms, theirs_ms) = (median(&ours_times) * 1e3, median(&theirs_times) * 1e3);
    Ok(Row {
        what: "`cargo xtask codegen --check` as a process (both interfaces, every output), \
               beside progenitor generating a Rust client for the v3 interface alone"
            .into(),
        figure: format!("{ours_ms:.0} ms"),
        against: format!(
            "progenitor {theirs_ms:.0} ms: {:.2}× its speed (target ≥ 3×); medians of 7 \
             alternated runs",
            theirs_ms / ours_ms
        ),
    })
}

fn criterion_median(dir: &Path) -> Result<f64, String> {
    let path = dir.join("new/estimates.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("bench: cannot read {}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("bench: {} is not JSON: {e}", path.display()))?;
    value["median"]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("bench: {} has no median", path.display()))
}

fn export_rows(exports: &[serde_json::Value]) -> Result<Vec<Row>, String> {
    let [small, large] = exports else {
        return Err("bench: expected two export runs".into());
    };
    let number = |v: &serde_json::Value, key: &str| {
        v[key]
            .as_f64()
            .ok_or_else(|| format!("bench: the export printed no `{key}`: {v}"))
    };
    let (tool_small, tool_large) = (&small["tool"], &large["tool"]);
    // The peak RSS of `who` over 10,000 records, against that over 1,000.
    let rss = |who: &str, small: &serde_json::Value, large: &serde_json::Value, target: &str| {
        let (small, large) = (
            number(small, "peak_rss_kib")?,
            number(large, "peak_rss_kib")?,
        );
        Ok::<Row, String>(Row {
            what: format!("{who} peak RSS, 10,000 records"),
            figure: format!("{:.1} MiB", large / 1024.0),
            against: format!(
                "1,000 records {:.1} MiB: {:+.1} % ({target})",
                small / 1024.0,
                100.0 * (large / small - 1.0)
            ),
        })
    };
    Ok(vec![
        Row {
            what: format!(
                "export of {} records at {} ({} requests, 20 per page)",
                number(large, "records")?,
                large["quota"].as_str().unwrap_or("?"),
                number(large, "requests")?
            ),
            figure: format!(
                "{:.1} % of the quota's ceiling, {} × 429",
                100.0 * number(large, "share_of_ceiling")?,
                number(large, "rate_limited")?
            ),
            against: format!(
                "{} ms against the least possible {} ms (target ≥ 99 %, 0 × 429)",
                number(large, "elapsed_ms")?,
                number(large, "ideal_ms")?
            ),
        },
        rss("export: the client's", small, large, "target within 10 %")?,
        Row {
            what: format!(
                "`inspection export v3` of {} records, the same quota and page size, written to a folder",
                number(tool_large, "records")?
            ),
            figure: format!(
                "{:.1} % of the library's rate, {} × 429",
                100.0 * number(large, "elapsed_ms")? / number(tool_large, "elapsed_ms")?,
                number(tool_large, "rate_limited")?
            ),
            against: format!(
                "{} ms against the library's {} ms (target ≥ 99 %)",
                number(tool_large, "elapsed_ms")?,
                number(large, "elapsed_ms")?
            ),
        },
        rss(
            "`inspection export v3`: the tool's",
            tool_small,
            tool_large,
            "flat in the number of records",
        )?,
    ])
}

/// The documents rows: the export with PDFs of 1,000 inspections through the API and from
/// links (issue 48: at least ten times faster, the API's requests down to the pages), and
/// the tool's peak memory from 1,000 to 10,000 documents.
fn documents_rows(runs: &[serde_json::Value]) -> Result<Vec<Row>, String> {
    let [both, large] = runs else {
        return Err("bench: expected two documents runs".into());
    };
    let number = |v: &serde_json::Value, key: &str| {
        v[key]
            .as_f64()
            .ok_or_else(|| format!("bench: the documents run printed no `{key}`: {v}"))
    };
    let (api, auto, many) = (&both["api"], &both["auto"], &large["auto"]);
    let records = number(both, "records")?;
    let (small_rss, large_rss) = (number(auto, "peak_rss_kib")?, number(many, "peak_rss_kib")?);
    Ok(vec![
        Row {
            what: format!(
                "`inspection export v3 --pdf` of {records} inspections at the documented quota \
                 (100 per 10 s), documents from links (`auto`)"
            ),
            figure: format!(
                "{:.1}× faster, {} API requests",
                number(both, "speedup")?,
                number(auto, "api_requests")?
            ),
            against: format!(
                "{} ms ({} records/s) against {} ms through the API ({} records/s, {} API \
                 requests) (target ≥ 10×, the API's requests down to the pages)",
                number(auto, "elapsed_ms")?,
                number(auto, "records_per_s")?,
                number(api, "elapsed_ms")?,
                number(api, "records_per_s")?,
                number(api, "api_requests")?
            ),
        },
        Row {
            what: "`inspection export v3 --pdf`: the tool's peak RSS, 10,000 documents from links"
                .into(),
            figure: format!("{:.1} MiB", large_rss / 1024.0),
            against: format!(
                "1,000 documents {:.1} MiB: {:+.1} % (flat in the number of documents)",
                small_rss / 1024.0,
                100.0 * (large_rss / small_rss - 1.0)
            ),
        },
    ])
}

/// The sync's rows (issue 46): its share of the export's rate at the documented quota,
/// inspections a second into SQLite and PostgreSQL with the rate limit off, and the tool's
/// peak memory from 1,000 to 10,000 inspections.
fn sync_rows(runs: &[serde_json::Value]) -> Result<Vec<Row>, String> {
    let [quota, small, large, pg] = runs else {
        return Err("bench: expected four sync runs".into());
    };
    let number = |v: &serde_json::Value, key: &str| {
        v[key]
            .as_f64()
            .ok_or_else(|| format!("bench: the sync run printed no `{key}`: {v}"))
    };
    let (small_rss, large_rss) = (
        number(&small["sync"], "peak_rss_kib")?,
        number(&large["sync"], "peak_rss_kib")?,
    );
    Ok(vec![
        Row {
            what: format!(
                "`inspection sync v3 --only inspections` of {} inspections into SQLite at the \
                 documented quota (100 per 10 s)",
                number(quota, "records")?
            ),
            figure: format!(
                "{:.1} % of the export's rate",
                100.0 * number(quota, "share_of_export_rate")?
            ),
            against: format!(
                "{} ms against the export's {} ms (target ≥ 99 %)",
                number(&quota["sync"], "elapsed_ms")?,
                number(&quota["export"], "elapsed_ms")?
            ),
        },
        Row {
            what: format!(
                "`inspection sync v3` of {} inspections into SQLite, rate limit off (every list \
                 and child row)",
                number(large, "records")?
            ),
            figure: format!(
                "{:.0} inspections/s",
                number(&large["sync"], "records_per_s")?
            ),
            against: "target ≥ 2,000/s".into(),
        },
        Row {
            what: format!(
                "`inspection sync v3` of {} inspections into PostgreSQL, rate limit off",
                number(pg, "records")?
            ),
            figure: format!("{:.0} inspections/s", number(&pg["sync"], "records_per_s")?),
            against: "target ≥ 1,000/s".into(),
        },
        Row {
            what: "`inspection sync v3` into SQLite: the tool's peak RSS, 10,000 inspections"
                .into(),
            figure: format!("{:.1} MiB", large_rss / 1024.0),
            against: format!(
                "1,000 inspections {:.1} MiB: {:+.1} % (flat in the number of records)",
                small_rss / 1024.0,
                100.0 * (large_rss / small_rss - 1.0)
            ),
        },
    ])
}

/// The tenants' row (issue 60): the share of the quota three tenants keep together, and
/// their 429s.
fn tenants_row(run: &serde_json::Value) -> Result<Row, String> {
    let number = |key: &str| {
        run[key]
            .as_f64()
            .ok_or_else(|| format!("bench: the tenants run printed no `{key}`: {run}"))
    };
    Ok(Row {
        what: format!(
            "`inspection sync --tenants` of three companies ({} inspections each, 5 a page) \
             into SQLite under one quota ({})",
            number("records_each")?,
            run["quota"].as_str().unwrap_or("?")
        ),
        figure: format!(
            "{:.1} % of the quota, {} 429s",
            100.0 * number("share_of_quota")?,
            number("rate_limited")?
        ),
        against: format!(
            "{} requests in {:.1} s, {} windows (the quota's least for them: {} s); \
             target ≥ 98 %, no 429",
            number("requests")?,
            number("elapsed_ms")? / 1000.0,
            number("windows")?,
            number("least_s")?
        ),
    })
}

/// The import's rows (issue 47): its pace against the quota's best, and the time to check
/// 100,000 rows before the first request.
fn import_rows(runs: &[serde_json::Value]) -> Result<Vec<Row>, String> {
    let [quota, check] = runs else {
        return Err("bench: expected two import runs".into());
    };
    let number = |v: &serde_json::Value, key: &str| {
        v[key]
            .as_f64()
            .ok_or_else(|| format!("bench: the import run printed no `{key}`: {v}"))
    };
    Ok(vec![
        Row {
            what: format!(
                "`inspection import v3 units` of {} rows at the documented quota (100 per 10 s)",
                number(quota, "rows")?
            ),
            figure: format!(
                "{:.1} % of the quota's ceiling",
                100.0 * number(quota, "share_of_ceiling")?
            ),
            against: format!(
                "{} requests in {} ms, the quota's best {} ms; {} × 429 (target ≥ 99 %, 0 × 429)",
                number(quota, "requests")?,
                number(&quota["run"], "elapsed_ms")?,
                number(quota, "ceiling_ms")?,
                number(quota, "rate_limited")?
            ),
        },
        Row {
            what: format!(
                "`inspection import v3 units --check` of {} rows (every row through the \
                 generated validators)",
                number(check, "rows")?
            ),
            figure: format!("{:.2} s", number(&check["check"], "elapsed_ms")? / 1000.0),
            against: format!(
                "target < 2 s; the tool's peak RSS {:.1} MiB",
                number(&check["check"], "peak_rss_kib")? / 1024.0
            ),
        },
    ])
}

fn parse_row(
    what: &str,
    plain: &str,
    figures: &serde_json::Value,
    target: f64,
) -> Result<Row, String> {
    let typed = figures["typed_ms"].as_f64();
    let base = figures["plain_ms"].as_f64();
    let (Some(typed), Some(base)) = (typed, base) else {
        return Err(format!("bench: {what}: no figures in {figures}"));
    };
    Ok(Row {
        what: what.into(),
        figure: format!("{typed:.2} ms"),
        against: format!(
            "{plain} alone {base:.2} ms: {:.2}× (target ≤ {target}×)",
            typed / base
        ),
    })
}

/// The Java row: the generated client against Jackson databind into a `Map` (issue 58:
/// within 1.5 times) and against openapi-generator's classes for the same spec (ahead).
fn java_row(figures: &serde_json::Value) -> Result<Row, String> {
    let (Some(typed), Some(map), Some(openapi)) = (
        figures["typed_ms"].as_f64(),
        figures["map_ms"].as_f64(),
        figures["openapi_ms"].as_f64(),
    ) else {
        return Err(format!("bench: java: no figures in {figures}"));
    };
    Ok(Row {
        what: "Java: typed decode of the page (JMH)".into(),
        figure: format!("{typed:.2} ms"),
        against: format!(
            "Jackson databind into a Map {map:.2} ms: {:.2}× (target ≤ 1.5×); openapi-generator's \
             classes {openapi:.2} ms: {:.2}× (target < 1×; they drop unknown members)",
            typed / map,
            typed / openapi
        ),
    })
}

/// The Go row: the generated types against encoding/json into `map[string]any` (issue 59:
/// no slower) and into oapi-codegen's types (ahead of them), and what ogen made of the
/// description.
fn go_row(figures: &serde_json::Value) -> Result<Row, String> {
    let (Some(typed), Some(through), Some(map), Some(oapi)) = (
        figures["typed_ms"].as_f64(),
        figures["through_json_ms"].as_f64(),
        figures["map_ms"].as_f64(),
        figures["oapi_codegen_ms"].as_f64(),
    ) else {
        return Err(format!("bench: go: no figures in {figures}"));
    };
    let said = |key: &str| figures[key].as_str().unwrap_or("?").to_string();
    Ok(Row {
        what: "Go: typed decode of the page (go test -bench)".into(),
        figure: format!("{typed:.2} ms"),
        against: format!(
            "encoding/json into map[string]any {map:.2} ms: {:.2}× (target ≤ 1×); \
             oapi-codegen v2.8.2's types (from the description rendered as 3.0; unions left \
             unread) {oapi:.2} ms: {:.2}× (target < 1×); the same types through \
             json.Unmarshal {through:.2} ms; ogen v1.25.0 {}, and given the 3.0 rendering {}",
            typed / map,
            typed / oapi,
            said("ogen_31"),
            said("ogen_30"),
        ),
    })
}

/// Cold builds per lockfile: this machine's build times move by a quarter from one run to
/// the next (28-40 s for the same build on one day), so one build says little.
const BUILD_ROUNDS: usize = 3;

/// The generated crate's cold debug build with its dependencies (TLS included), in a
/// workspace of its own under `target/bench-build` with cargo's default dev profile, as a
/// user's project builds it: with the lockfile cargo resolves, and with one holding
/// `idna_adapter` to 1.1, alternately, `BUILD_ROUNDS` times each; then a one-line spec
/// change, regenerated and rebuilt.
fn build_rows(root: &Path, cargo: &str) -> Result<Vec<Row>, String> {
    let work = root.join("target/bench-build");
    let _ = std::fs::remove_dir_all(&work);
    let spec = work.join("spec");
    tools::copy_dir(&root.join("spec"), &spec)
        .map_err(|e| format!("bench: cannot prepare {}: {e}", work.display()))?;
    super::output_check::scratch_workspace(root, &work).map_err(|e| format!("bench: {e}"))?;
    let generator = Generator::Built(built_generator(root, cargo)?);
    super::output_check::generate(root, &generator, &spec, &work)?;

    let fail = |e: std::io::Error| format!("bench: {}: {e}", work.display());
    let lock = work.join("Cargo.lock");
    let step = |what: &str, args: &[&str]| tools::step(&work, what, cargo, args);
    step(
        "bench: the lockfile",
        &["generate-lockfile", "--quiet", "--offline"],
    )?;
    let resolved = std::fs::read(&lock).map_err(fail)?;
    // An application may hold url's IDNA back end to the unicode-rs crates (idna_adapter's
    // 1.1 stream, as that crate documents) instead of ICU4X: the README's faster build.
    step(
        "bench: the lockfile holding idna_adapter to 1.1",
        &[
            "update",
            "--quiet",
            "--offline",
            "-p",
            "idna_adapter",
            "--precise",
            "1.1.0",
        ],
    )?;
    let pinned_lock = std::fs::read(&lock).map_err(fail)?;

    let build = |what: &str| -> Result<f64, String> {
        let start = Instant::now();
        step(
            what,
            &["build", "--quiet", "--offline", "-p", "inspection-client"],
        )?;
        Ok(start.elapsed().as_secs_f64())
    };
    // Each cold build's wall time and CPU time: the CPU (the work done) moves less with the
    // machine's load than the wall time, so it tells a change in the work from noise.
    let cold = |locked: &[u8], what: &str| -> Result<(f64, f64), String> {
        std::fs::write(&lock, locked).map_err(fail)?;
        let _ = std::fs::remove_dir_all(work.join("target"));
        let cpu = children_cpu_seconds();
        let wall = build(what)?;
        Ok((wall, children_cpu_seconds() - cpu))
    };
    // Alternated, so that a slow spell of the machine lands on both; the resolved lockfile
    // last, so that its build is the one the spec change below starts from.
    let (mut pinned, mut resolved_times) = (Vec::new(), Vec::new());
    for _ in 0..BUILD_ROUNDS {
        pinned.push(cold(&pinned_lock, "bench: cold build, idna_adapter 1.1")?);
        resolved_times.push(cold(&resolved, "bench: cold build of the generated crate")?);
    }

    // One line of the spec changes: a doc line, which every output carries.
    let v3 = spec.join("v3.yaml");
    let text = std::fs::read_to_string(&v3).map_err(|e| format!("bench: {e}"))?;
    let changed = text.replacen(
        "  title: Inspection Integration API (v3)",
        "  title: Inspection Integration API (v3, changed)",
        1,
    );
    if changed == text {
        return Err("bench: the v3 spec's title line moved; update the one-line change".into());
    }
    std::fs::write(&v3, changed).map_err(|e| format!("bench: {e}"))?;
    let start = Instant::now();
    super::output_check::generate(root, &generator, &spec, &work)?;
    build("bench: rebuild after a one-line spec change")?;
    let incremental = start.elapsed().as_secs_f64();

    let runs = |times: &[(f64, f64)]| {
        let wall: Vec<String> = times.iter().map(|t| format!("{:.1}", t.0)).collect();
        let cpu: Vec<String> = times.iter().map(|t| format!("{:.0}", t.1)).collect();
        format!(
            "median of {} alternated runs: {} s (CPU {} s)",
            times.len(),
            wall.join(", "),
            cpu.join(", ")
        )
    };
    let wall = |times: &[(f64, f64)]| median(&times.iter().map(|t| t.0).collect::<Vec<_>>());
    let (cold, pinned_median) = (wall(&resolved_times), wall(&pinned));
    Ok(vec![
        Row {
            what: "cold debug build of the generated crate and its dependencies (rustls)".into(),
            figure: format!("{cold:.1} s"),
            against: format!("target ≤ 30 s; {}", runs(&resolved_times)),
        },
        Row {
            what: "the same, the application's lockfile holding idna_adapter to 1.1 (IDNA by \
                   the unicode-rs crates, not ICU4X)"
                .into(),
            figure: format!("{pinned_median:.1} s"),
            against: format!(
                "{:+.1} s (target ≤ 30 s); {}",
                pinned_median - cold,
                runs(&pinned)
            ),
        },
        Row {
            what: "one-line spec change: regenerate + rebuild".into(),
            figure: format!("{incremental:.2} s"),
            against: "target < 2 s".into(),
        },
    ])
}

/// The CPU time (user and system) of this process's children that have ended, from
/// `/proc/self/stat` (`cutime`, `cstime`, in ticks of 1/100 s, the Linux value); a build's
/// cargo waits for its rustc processes, so theirs is included. 0 where it cannot be read.
fn children_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command's name (which may hold spaces) start at the third.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let tick = |field: usize| fields.get(field - 3).and_then(|t| t.parse::<f64>().ok());
    match (tick(16), tick(17)) {
        (Some(user), Some(system)) => (user + system) / 100.0,
        _ => 0.0,
    }
}

/// The middle value (the mean of the two middle ones for an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

fn print_table(rows: &[Row]) {
    println!();
    println!("{}", machine());
    println!();
    println!("| Measured | Figure | Compared with |");
    println!("|---|---|---|");
    for row in rows {
        println!("| {} | {} | {} |", row.what, row.figure, row.against);
    }
}

/// The date and the machine the table was measured on.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_date(days as i64);
    format!("`cargo xtask bench`, {y:04}-{m:02}-{d:02}, {cpus} cores ({model})")
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Runs a program, shows its output and returns its standard output.
fn capture(root: &Path, name: &str, program: &str, args: &[&str]) -> Result<String, String> {
    tools::say(&format!("==> {name}: {program} {}", args.join(" ")));
    let output = Command::new(program)
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("{name}: cannot run {program}: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    tools::say(String::from_utf8_lossy(&output.stderr).trim_end());
    tools::say(stdout.trim_end());
    if output.status.success() {
        Ok(stdout)
    } else {
        Err(format!("bench: step `{name}` failed ({})", output.status))
    }
}

/// The JSON line a benchmark program prints last.
fn last_json_line(stdout: &str) -> Result<serde_json::Value, String> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("bench: no JSON line in the output:\n{stdout}"))?;
    serde_json::from_str(line).map_err(|e| format!("bench: `{line}` is not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(20_780), (2026, 11, 23));
    }

    #[test]
    fn the_peak_rss_rows_compare_10000_records_with_1000() {
        let run = |kib: f64, tool_kib: f64| {
            serde_json::json!({
                "records": 10000, "quota": "q", "requests": 500, "share_of_ceiling": 0.98,
                "rate_limited": 0, "elapsed_ms": 1000, "ideal_ms": 990, "peak_rss_kib": kib,
                "tool": {"records": 10000, "elapsed_ms": 1005, "rate_limited": 0, "peak_rss_kib": tool_kib},
            })
        };
        let rows = export_rows(&[run(6144.0, 8192.0), run(6656.0, 8192.0)]).unwrap();
        assert_eq!(
            rows[1].what,
            "export: the client's peak RSS, 10,000 records"
        );
        assert_eq!(rows[1].figure, "6.5 MiB");
        assert_eq!(
            rows[1].against,
            "1,000 records 6.0 MiB: +8.3 % (target within 10 %)"
        );
        assert_eq!(
            rows[3].what,
            "`inspection export v3`: the tool's peak RSS, 10,000 records"
        );
        assert_eq!(
            rows[3].against,
            "1,000 records 8.0 MiB: +0.0 % (flat in the number of records)"
        );
    }

    #[test]
    fn the_last_json_line_is_the_figures() {
        let out = "people read this\n{\"a\": 1}\nmore\n{\"typed_ms\": 2.5}\n";
        assert_eq!(last_json_line(out).unwrap()["typed_ms"], 2.5);
        assert!(last_json_line("no figures\n").is_err());
    }
}
