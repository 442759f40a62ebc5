//! A bounded mutation fuzzer of the spec loader and every backend, on stable Rust: real
//! specs mutated line by line (deleted, repeated, swapped, a value replaced by a keyword, a
//! long name, a deep type, odd YAML, a name renamed to one a backend reserves or
//! introduces itself) with a fixed seed. The contract: nothing panics or
//! hangs, and a spec that is accepted renders in every language (each backend checks its
//! own output, the Rust one by parsing it). `FUZZ_ITERATIONS=N` runs longer; `FUZZ_SEED=S`
//! another seed; `FUZZ_SAMPLE_DIR=D FUZZ_SAMPLE=K` writes K accepted specs, spread over
//! the run, to `D/case-<n>/` for `cargo xtask check-output` to compile (`cargo xtask fuzz`
//! does all of it). `FUZZ_FAIL_DIR=D` writes every failing case to `D/case-<n>.yaml`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// A case taking longer than this is reported as a hang: a generous bound (cases take
/// milliseconds), so it flags work that grows without limit, never a slow machine.
const HANG: Duration = Duration::from_secs(10);

/// xorshift64*: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Values a mutation puts in place of a line's value.
const VALUES: &[&str] = &[
    "type",
    "self",
    "class",
    "lambda",
    "async",
    "abstract",
    "3d",
    "Page",
    "Client",
    "string",
    "array<string>",
    "map<Unit>",
    "page<Unit>",
    "json<string>",
    "\"\"",
    "null",
    "true",
    "-1",
    "99999999999999999999",
    "{}",
    "[]",
    "~",
    "\"a b\"",
    "\"ü\"",
    "Unit",
    "UnitId",
    "x-y",
];

/// Names a spec name may be renamed to: every backend's own (keywords, its types, members
/// and parameters) and the names the generated code derives from the base spec's (a
/// union's catch-all member, a one_of's types, an operation's builder and query types),
/// each also in the other case styles.
fn names(base: &str) -> Vec<String> {
    use heck::{ToLowerCamelCase, ToSnakeCase, ToUpperCamelCase};
    let mut names: Vec<String> = codegen::backend::ALL
        .iter()
        .flat_map(|b| b.own_names.concat())
        .map(str::to_string)
        .collect();
    let interface = codegen::load_str("base.yaml", base).unwrap_or_else(|d| panic!("{d}"));
    for t in &interface.types {
        names.push(format!("{}Unknown", t.name));
        if let codegen::ir::TypeKind::Object(o) = &t.kind
            && let Some(one) = &o.one_of
        {
            let variants: Vec<&str> = one.variants.iter().map(|v| v.name.as_str()).collect();
            names.extend(
                codegen::backend::one_of_types(&one.type_name, &variants)
                    .into_iter()
                    .map(|(_, n)| n),
            );
        }
    }
    for op in &interface.operations {
        let camel = op.name.to_upper_camel_case();
        names.extend([format!("{camel}Query"), format!("{camel}Request"), camel]);
    }
    let cased: Vec<String> = names
        .iter()
        .flat_map(|n| {
            [
                n.to_snake_case(),
                n.to_upper_camel_case(),
                n.to_lower_camel_case(),
            ]
        })
        .collect();
    names.extend(cased);
    names.retain(|n| !n.is_empty() && !n.contains(char::is_whitespace));
    names.sort();
    names.dedup();
    names
}

fn mutate(rng: &mut Rng, base: &str, names: &[String]) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for _ in 0..=rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let at = rng.below(lines.len());
        match rng.below(9) {
            7 | 8 => {
                // Rename a key (a type, member, field, group or operation) or a
                // `type_name` to a name the generated code already uses.
                let name = &names[rng.below(names.len())];
                let line = &lines[at];
                let indent = line.len() - line.trim_start().len();
                if line.trim_start().starts_with("type_name: ") {
                    lines[at] = format!("{}type_name: {name}", &line[..indent]);
                } else if let Some(colon) = line.find(':')
                    && colon > indent
                    && line[indent..colon]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    lines[at] = format!("{}{name}{}", &line[..indent], &line[colon..]);
                }
            }
            0 => {
                lines.remove(at);
            }
            1 => {
                let line = lines[at].clone();
                lines.insert(at, line);
            }
            2 => {
                let other = rng.below(lines.len());
                lines.swap(at, other);
            }
            3 | 4 => {
                // Replace the value after a `key:`.
                if let Some(colon) = lines[at].find(": ") {
                    let value = VALUES[rng.below(VALUES.len())];
                    lines[at].truncate(colon + 2);
                    lines[at].push_str(value);
                }
            }
            5 => {
                if let Some(colon) = lines[at].find(": ") {
                    let long = match rng.below(3) {
                        0 => "A".repeat(10_000),
                        1 => format!("\"{}string{}\"", "array<".repeat(40), ">".repeat(40)),
                        _ => "weird name with spaces".to_string(),
                    };
                    lines[at].truncate(colon + 2);
                    lines[at].push_str(&long);
                }
            }
            _ => {
                // Re-indent: YAML structure changes.
                let line = lines[at].trim_start().to_string();
                let indent = " ".repeat(rng.below(4) * 2);
                lines[at] = format!("{indent}{line}");
            }
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn mutated_specs_never_panic_and_accepted_ones_render() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bases = [
        std::fs::read_to_string(root.join("specs/keywords.yaml")).unwrap(),
        std::fs::read_to_string(root.join("../spec/legacy.yaml")).unwrap(),
    ];
    let iterations: usize = std::env::var("FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_1234_abcd_0001);
    // Unmutated, both load: otherwise every mutation would be refused and "accepted specs
    // render" would hold for none.
    for base in &bases {
        codegen::load_str("base.yaml", base).unwrap_or_else(|d| panic!("{d}"));
    }
    let names = [names(&bases[0]), names(&bases[1])];
    let sample_dir = std::env::var_os("FUZZ_SAMPLE_DIR").map(std::path::PathBuf::from);
    let fail_dir = std::env::var_os("FUZZ_FAIL_DIR").map(std::path::PathBuf::from);
    let sample: usize = std::env::var("FUZZ_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if sample_dir.is_some() { 10 } else { 0 });
    // One accepted spec per stretch of the run, so the sample spans it.
    let stride = (iterations / sample.max(1)).max(1);
    let mut sampled = 0;
    let mut slowest = Duration::ZERO;
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (mut accepted, mut refused) = (0, 0);
    // A panic's message would otherwise print for every caught case.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    for n in 0..iterations {
        // The large spec is slow to render: one case in eight.
        let which = if n % 8 == 7 { 1 } else { 0 };
        let text = mutate(&mut rng, &bases[which], &names[which]);
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match codegen::load_str("fuzz.yaml", &text) {
                Ok(interface) => Some(codegen::generate(&codegen::ir::Api::new(vec![interface]))),
                Err(_) => None,
            }
        }));
        let took = started.elapsed();
        slowest = slowest.max(took);
        if took > HANG {
            failures.push(format!("case {n}: took {took:?} (a hang)"));
        }
        match outcome {
            Err(_) => failures.push(format!("case {n}: panicked")),
            Ok(Some(Err(e))) => failures.push(format!("case {n}: accepted, but: {e}")),
            Ok(Some(Ok(_))) => {
                accepted += 1;
                if let Some(dir) = &sample_dir
                    && sampled < sample
                    && n >= sampled * stride
                {
                    let case = dir.join(format!("case-{n}"));
                    std::fs::create_dir_all(&case).unwrap();
                    std::fs::write(case.join("fuzz.yaml"), &text).unwrap();
                    sampled += 1;
                }
            }
            Ok(None) => refused += 1,
        }
        if failures
            .last()
            .is_some_and(|f| f.starts_with(&format!("case {n}:")))
        {
            if failures.len() == 1 {
                std::fs::write(std::env::temp_dir().join("fuzz-failure.yaml"), &text).ok();
            }
            // Every failing case, for a long run's report.
            if let Some(dir) = &fail_dir {
                std::fs::create_dir_all(dir).ok();
                std::fs::write(dir.join(format!("case-{n}.yaml")), &text).ok();
            }
        }
    }
    std::panic::set_hook(hook);
    println!(
        "fuzz: {iterations} cases (seed {seed:#x}): {accepted} accepted, {refused} refused, \
         {} failing; slowest case {slowest:?}; {sampled} accepted specs written for compiling",
        failures.len()
    );
    // Most mutations leave a valid spec (a line repeated, a doc changed); far fewer
    // accepted would mean the mutations stopped reaching the generator.
    assert!(
        accepted * 10 >= iterations,
        "only {accepted} of {iterations} mutated specs were accepted"
    );
    assert!(
        failures.is_empty(),
        "{} failing cases (the first is in {}): {:#?}",
        failures.len(),
        std::env::temp_dir().join("fuzz-failure.yaml").display(),
        &failures[..failures.len().min(10)]
    );
}
