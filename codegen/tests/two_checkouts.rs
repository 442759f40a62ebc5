//! Two checkouts sharing one built `codegen` (as they do when they share a target directory):
//! each run reads the `spec/` and writes the `generated/` of the checkout it runs in.

mod support;

use std::path::Path;

use support::{checkout, codegen};

fn edit_spec(dir: &Path) {
    let path = dir.join("spec/v3.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("Lists units", "Lists every unit", 1);
    assert_ne!(text, edited, "the edit must change the spec");
    std::fs::write(path, edited).unwrap();
}

#[test]
fn each_run_works_on_the_checkout_it_runs_in() {
    let a = checkout("a");
    let b = checkout("b");
    let client = "generated/python/src/inspection_client/v3/client.py";

    // From a folder inside the checkout: the root is found above it.
    let run = codegen(&a.join("spec"), &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(a.join(client).is_file());
    assert!(
        !b.join("generated").exists(),
        "the other checkout was written"
    );

    // A stale checkout fails --check, naming its own file, while the fresh one passes.
    edit_spec(&b);
    let check = codegen(&b, &["--check"]);
    assert!(!check.status.success());
    assert!(codegen(&a, &["--check"]).status.success());

    assert!(codegen(&b, &[]).status.success());
    let in_b = std::fs::read_to_string(b.join(client)).unwrap();
    let in_a = std::fs::read_to_string(a.join(client)).unwrap();
    assert!(in_b.contains("Lists every unit") && !in_a.contains("Lists every unit"));
    assert!(codegen(&b, &["--check"]).status.success());
    edit_spec_again(&b);
    let check = codegen(&b, &["--check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        !check.status.success() && stderr.contains(client),
        "{stderr}"
    );
    assert!(codegen(&a, &["--check"]).status.success());

    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

fn edit_spec_again(dir: &Path) {
    let path = dir.join("spec/v3.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        path,
        text.replacen("Lists every unit", "Lists all units", 1),
    )
    .unwrap();
}

#[test]
fn outside_a_checkout_it_says_so() {
    let dir = std::env::temp_dir().join(format!("codegen-{}-nowhere", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = codegen(&dir, &["--check"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(stderr.contains("is not inside a checkout"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
