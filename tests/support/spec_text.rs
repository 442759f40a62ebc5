//! A small valid spec to splice constructs into, and readers of the diagnostics a
//! refused one gets (for the spec_errors and spec_rules tests).
#![allow(dead_code)] // each test file uses a different part of the support module

// The spec frame and its `Unit` are the generator's own test spec, one text for both crates.
#[allow(unused_imports)] // as dead_code above: not every test file takes every part
pub use codegen::test_spec::{GET_UNIT, UNIT, spec};

pub fn error_for(text: &str) -> String {
    match codegen::load_str("spec/t.yaml", text) {
        Ok(_) => panic!("the spec was accepted:\n{text}"),
        Err(diagnostics) => diagnostics.to_string(),
    }
}

pub fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// The message of the first problem, and that it points at a real place.
pub fn first_message(text: &str) -> String {
    let all = error_for(text);
    let first = first_line(&all);
    let (place, message) = first
        .split_once(": error: ")
        .expect("file:line:col: error: message");
    let mut parts = place.rsplitn(3, ':');
    let (col, line) = (parts.next().unwrap(), parts.next().unwrap());
    assert!(
        line.parse::<u32>().unwrap() > 0 && col.parse::<u32>().unwrap() > 0,
        "{first}"
    );
    assert!(all.contains("\n  help: "), "{all}");
    message.to_string()
}
