fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    match codegen::load_dir(root, &root.join("spec")) {
        Ok(api) => println!("{} types, {} ops", api.type_count(), api.operation_count()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
