//! The dlt row of `cargo xtask bench` (issue 61): the inspections of one sandbox, its rate
//! limit off, loaded by the generated dlt source and by dlt's own `rest_api` source into
//! DuckDB, and by `inspection sync` into SQLite, in alternated rounds of one run
//! (`tests/python/bench/dlt_load.py`): records a second, and the columns each ends with
//! whose type differs from the spec's.

use std::path::Path;

/// The program's arguments: the program, the sandbox and tool binaries of the profile the
/// benchmarks run in (`profile_dir`), and `--quick` for one small round.
pub fn args(profile_dir: &Path, quick: bool) -> Vec<String> {
    let exe = |name: &str| {
        profile_dir
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
            .to_string_lossy()
            .into_owned()
    };
    let mut args = vec![
        "tests/python/bench/dlt_load.py".to_string(),
        exe("sandbox"),
        exe("inspection"),
    ];
    if quick {
        args.push("--quick".into());
    }
    args
}

/// The row: the generated source's records a second against `rest_api`'s and the sync's,
/// and how many columns of each differ from the spec's types.
pub fn row(figures: &serde_json::Value) -> Result<[String; 3], String> {
    let rate = |name: &str| figures["records_per_second"][name].as_f64();
    let differ = |name: &str| figures["differing_columns"][name].as_u64();
    let missing = |name: &str| figures["missing_columns"][name].as_u64();
    let (Some(generated), Some(rest), Some(sync)) =
        (rate("generated"), rate("rest_api"), rate("sync"))
    else {
        return Err(format!("bench: dlt: no figures in {figures}"));
    };
    let records = figures["records"].as_u64().unwrap_or_default();
    let rounds = figures["rounds"].as_u64().unwrap_or_default();
    let columns = |name: &str| {
        format!(
            "{} columns typed otherwise than the spec, {} of its columns never made",
            differ(name).unwrap_or_default(),
            missing(name).unwrap_or_default()
        )
    };
    Ok([
        format!("dlt: the generated source, {records} inspections into DuckDB (first load)"),
        format!("{generated:.0} records/s"),
        format!(
            "dlt's rest_api source configured for the same list {rest:.0} records/s \
             ({:.2}× the generated source's time); inspection sync into SQLite {sync:.0} \
             records/s ({:.1}×); medians of {rounds} alternated rounds. Generated: {}; \
             rest_api: {}; sync: {}: `cargo xtask bench` (tests/python/bench/dlt_load.py)",
            generated / rest,
            sync / generated,
            columns("generated"),
            columns("rest_api"),
            columns("sync"),
        ),
    ])
}
