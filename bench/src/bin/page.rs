//! Writes the page of 100 inspections the parse benchmarks of every language read:
//! `cargo run -p bench --bin page -- PATH`.

fn main() -> Result<(), String> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: page PATH (where to write the page of 100 inspections)")?;
    std::fs::write(&path, bench::inspections_page(100))
        .map_err(|e| format!("cannot write {path}: {e}"))
}
