//! The fuzz harness of the tool's inputs (tests only): valid inputs edited at random
//! (bytes cut, repeated or inserted: quotes, separators, line breaks, a BOM, invalid
//! UTF-8, JSON punctuation) with a fixed seed, and the cases of the files people edit by
//! hand or a crash may damage: the profiles file, a JSON body file, an export's
//! checkpoint and a sync's state row (the import's files: `import/fuzz.rs`; flag values
//! and database URLs: `app.rs`). The contract: nothing panics or hangs, and every refusal
//! names the file (and the line, where the file has lines) and never a secret it holds.
//! `FUZZ_ITERATIONS=N` runs longer, `FUZZ_SEED=S` another seed (docs/tests.md has a long
//! run's figures).

use std::path::PathBuf;

/// Bytes a mutation inserts.
pub const PIECES: &[&[u8]] = &[
    b",",
    b"\"",
    b"\"\"",
    b"\n",
    b"\r\n",
    b"\r",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"=",
    b"#",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"null",
    b"-",
    b".",
    b"extended_data.",
    b"9999999999999999999999",
    b" ",
    b"\t",
    b"\0",
    "é".as_bytes(),
    b"\\",
];

/// xorshift64*: the same on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `base` with one to four random edits.
pub fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 => {
                let end = (at + rng.below(12)).min(bytes.len());
                bytes.drain(at..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                bytes.splice(at..at, piece.iter().copied());
            }
            2 => {
                let end = (at + rng.below(40)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            _ => bytes.truncate(at),
        }
    }
    bytes
}

pub fn iterations() -> (usize, u64) {
    let n = std::env::var("FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x1a9_2026);
    (n, seed)
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("inspection-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const PROFILES: &str = "# keys\n[default]\nINSPECTION_V3_API_KEY_ID = demo-key\nINSPECTION_V3_API_KEY_SECRET = \"s3cr3t-value\"\n\n[staging]\nINSPECTION_V3_BASE_URL=https://staging.example.com/v3\n";

const BODY: &str = "{\"reference_number\": \"A-1\", \"year\": 2020, \"extended_data\": {\"fleet\": [1, 2.5, null]}, \"active\": true}";

#[test]
fn mutated_profile_files_are_read_or_refused_by_line_without_their_secrets() {
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0x9f0f);
    for case in 0..n {
        let bytes = mutate(&mut rng, PROFILES.as_bytes());
        let Ok(text) = String::from_utf8(bytes) else {
            continue; // read_to_string refuses it first, naming the file
        };
        if let Err((line, what)) = crate::credentials::parse(&text) {
            assert!(
                (1..=text.lines().count()).contains(&line),
                "case {case}: line {line} of a file of {} lines",
                text.lines().count()
            );
            assert!(
                !what.contains("s3cr3t"),
                "case {case}: the refusal shows a secret: {what}"
            );
        }
    }
}

const TENANTS: &str = "[[tenant]]\nname = \"acme\"\ninterface = \"v3\"\ndatabase = \"postgres://sync:p4ss-word@db/fleet?sslmode=require\"\nschema = \"acme\"\nsslrootcert = \"ca.pem\"\nlookback = \"3d\"\nonly = [\"inspections\"]\npage_size = 50\n\n[[tenant]]\nname = \"globex\"\ninterface = \"v3\"\ndatabase = \"globex.db\"\n";

#[test]
fn mutated_tenants_files_are_read_or_refused_by_line_and_column_without_passwords() {
    use std::os::unix::fs::PermissionsExt;
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0x7e4a);
    let dir = scratch("tenants");
    let path = dir.join("tenants.toml");
    let shown = path.display().to_string();
    for case in 0..n / 3 {
        std::fs::write(&path, mutate(&mut rng, TENANTS.as_bytes())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        if let Err(refused) = crate::sync::tenants::file::read(&path) {
            assert!(
                refused.contains(&shown) || refused.starts_with("cannot read"),
                "case {case}: {refused}"
            );
            assert!(
                !refused.contains("p4ss"),
                "case {case}: a password shown: {refused}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mutated_checkpoints_are_read_or_refused_by_name() {
    use crate::export::checkpoint::Checkpoint;
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0xc4ec);
    let dir = scratch("checkpoint");
    let path = dir.join("checkpoint.json");
    let mut whole = Checkpoint::new("v3", "list_inspections", true);
    whole.records = 40;
    whole.records_bytes = 31_000;
    whole.saw("ins_1", Some(chrono::Utc::now()));
    whole.write(&path).unwrap();
    let base = std::fs::read(&path).unwrap();
    for case in 0..n / 3 {
        std::fs::write(&path, mutate(&mut rng, &base)).unwrap();
        if let Err(refused) = Checkpoint::read(&path) {
            assert!(
                refused.message.contains(&path.display().to_string())
                    && refused.message.contains("--restart"),
                "case {case}: {}",
                refused.message
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mutated_body_files_are_read_or_refused_by_name_line_and_column() {
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0xb0d7);
    let dir = scratch("body");
    let path = dir.join("body.json");
    for case in 0..n / 3 {
        std::fs::write(&path, mutate(&mut rng, BODY.as_bytes())).unwrap();
        if let Err(refused) = crate::command::json_file(&path) {
            let message = &refused.message;
            assert!(
                message.contains(&path.display().to_string()) && message.contains("line "),
                "case {case}: {message}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn mutated_sync_state_rows_are_read_or_refused_naming_the_database() {
    use crate::sync::state::Row;
    let (n, seed) = iterations();
    let mut rng = Rng(seed ^ 0x5747);
    let text = |rng: &mut Rng, base: &str| -> Option<String> {
        match rng.below(4) {
            0 => None,
            _ => Some(String::from_utf8_lossy(&mutate(rng, base.as_bytes())).into_owned()),
        }
    };
    let number = |rng: &mut Rng| [0, 1, 2, -1, 7, i64::MAX, i64::MIN][rng.below(7)];
    for case in 0..n {
        let row = Row {
            pass: number(&mut rng),
            in_pass: number(&mut rng),
            whole: number(&mut rng),
            since: text(&mut rng, "2026-11-29T08:00:00.000000Z"),
            resume: text(&mut rng, "cursor:abc"),
            watermark: text(&mut rng, "2026-11-29T08:00:00Z"),
            started_at: text(&mut rng, "2026-11-29T08:00:00Z"),
            finished_at: None,
        };
        if let Err(refused) = row.read("fleet.db") {
            assert!(
                refused.message.starts_with("fleet.db: ") && refused.hint.is_some(),
                "case {case}: {}",
                refused.message
            );
        }
    }
}
